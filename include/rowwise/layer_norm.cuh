// rowwise/layer_norm.cuh — LayerNorm over the rows of a matrix.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/launch.cuh"
#include "rowwise/dispatch/validate.hpp"
#include "rowwise/kernels/ops/layer_norm_op.cuh"
#include "rowwise/status.hpp"
#include "rowwise/views.hpp"

ROWWISE_NAMESPACE_BEGIN

/// out[r, :] = (in[r, :] - mean) / sqrt(var + eps) * gamma + beta, population variance, in fp32
/// by two passes over registers or Welford partials (kernels/ops/layer_norm_op.cuh). gamma and beta are optional (absent: size 0 or null); W is T or
/// float. mean / rstd, when not null, receive rows floats each. in and out may be the same matrix
/// (else they share no byte); weights and statistics lie outside what the call writes.
template <class In, class Out, class W>
status layer_norm(matrix_view<In> in, matrix_view<Out> out, vector_view<W> gamma,
                  vector_view<W> beta, float eps, cudaStream_t stream, float* mean = nullptr,
                  float* rstd = nullptr) {
  using T = std::remove_const_t<In>;
  using Wt = std::remove_const_t<W>;
  using Msg = dispatch::layer_norm_messages;
  static_assert(std::is_same_v<T, Out>, "layer_norm: input and output element types must match");
  static_assert(is_supported_dtype_v<T>, "layer_norm: T must be float, __half or __nv_bfloat16");
  static_assert(std::is_same_v<Wt, T> || std::is_same_v<Wt, float>, "layer_norm: W must be T or float");
  if (status s = dispatch::validate_layer_norm<Msg>(in, out, gamma, beta, eps, mean, rstd); !s) return s;
  kernels::layer_norm_op<Wt> op;
  op.gamma = gamma.present() ? gamma.data : nullptr;
  op.beta = beta.present() ? beta.data : nullptr;
  op.mean_out = mean;
  op.rstd_out = rstd;
  op.eps = eps;
  op.cols = in.cols;
  const kernels::row_io<T> io{in.data, out.data, nullptr, in.rows, in.cols,
                              in.row_stride, out.row_stride, 0};
  const dispatch::row_layout layouts[] = {{reinterpret_cast<uintptr_t>(in.data), in.row_stride},
                                          {reinterpret_cast<uintptr_t>(out.data), out.row_stride}};
  return dispatch::run_rows<Msg>(op, io, layouts, 2, stream);
}

ROWWISE_NAMESPACE_END
