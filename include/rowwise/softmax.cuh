// rowwise/softmax.cuh — softmax and log_softmax over the rows of a matrix.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/launch.cuh"
#include "rowwise/dispatch/validate.hpp"
#include "rowwise/kernels/ops/softmax_op.cuh"
#include "rowwise/status.hpp"
#include "rowwise/views.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace detail {

template <class Msg, bool Log, class In, class Out>
status softmax_rows(matrix_view<In> in, matrix_view<Out> out, cudaStream_t stream) {
  using T = std::remove_const_t<In>;
  static_assert(std::is_same_v<T, Out>, "softmax: input and output element types must match");
  static_assert(is_supported_dtype_v<T>, "softmax: T must be float, __half or __nv_bfloat16");
  if (status s = dispatch::validate_softmax<Msg>(in, out); !s) return s;
  const kernels::row_io<T> io{in.data, out.data, nullptr, in.rows, in.cols,
                              in.row_stride, out.row_stride, 0};
  const dispatch::row_layout layouts[] = {{reinterpret_cast<uintptr_t>(in.data), in.row_stride},
                                          {reinterpret_cast<uintptr_t>(out.data), out.row_stride}};
  return dispatch::run_rows<Msg>(kernels::softmax_op<Log>{}, io, layouts, 2, stream);
}

}  // namespace detail

/// out[r, :] = softmax(in[r, :]) for every row, fp32 arithmetic, max-subtracted.
/// in and out may be the same matrix (else they share no byte). All -inf row -> zeros; NaN or
/// +inf in a row -> NaN row.
template <class In, class Out>
status softmax(matrix_view<In> in, matrix_view<Out> out, cudaStream_t stream) {
  return detail::softmax_rows<dispatch::softmax_messages, false>(in, out, stream);
}

/// out[r, :] = log_softmax(in[r, :]) = x - max - log(sum exp(x - max)). All -inf row -> -inf.
template <class In, class Out>
status log_softmax(matrix_view<In> in, matrix_view<Out> out, cudaStream_t stream) {
  return detail::softmax_rows<dispatch::log_softmax_messages, true>(in, out, stream);
}

ROWWISE_NAMESPACE_END
