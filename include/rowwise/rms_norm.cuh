// rowwise/rms_norm.cuh — RMSNorm, and residual-add + RMSNorm fused, over the rows of a matrix.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/launch.cuh"
#include "rowwise/dispatch/validate.hpp"
#include "rowwise/kernels/ops/rms_norm_op.cuh"
#include "rowwise/status.hpp"
#include "rowwise/views.hpp"

ROWWISE_NAMESPACE_BEGIN

/// out[r, :] = in[r, :] / sqrt(mean(in[r, :]^2) + eps) * weight. weight optional; W is T or float.
/// in and out may be the same matrix (else they share no byte); the weight lies outside out.
template <class In, class Out, class W>
status rms_norm(matrix_view<In> in, matrix_view<Out> out, vector_view<W> weight, float eps,
                cudaStream_t stream) {
  using T = std::remove_const_t<In>;
  using Wt = std::remove_const_t<W>;
  using Msg = dispatch::rms_norm_messages;
  static_assert(std::is_same_v<T, Out>, "rms_norm: input and output element types must match");
  static_assert(is_supported_dtype_v<T>, "rms_norm: T must be float, __half or __nv_bfloat16");
  static_assert(std::is_same_v<Wt, T> || std::is_same_v<Wt, float>, "rms_norm: W must be T or float");
  if (status s = dispatch::validate_rms_norm<Msg>(in, out, weight, eps); !s) return s;
  const kernels::rms_norm_op<Wt, false> op{{}, weight.present() ? weight.data : nullptr, eps, in.cols};
  const kernels::row_io<T> io{in.data, out.data, nullptr, in.rows, in.cols,
                              in.row_stride, out.row_stride, 0};
  const dispatch::row_layout layouts[] = {{reinterpret_cast<uintptr_t>(in.data), in.row_stride},
                                          {reinterpret_cast<uintptr_t>(out.data), out.row_stride}};
  return dispatch::run_rows<Msg>(op, io, layouts, 2, stream);
}

/// vLLM's fused_add_rms_norm, in place: residual = round_T(residual + x) is written back, then
/// x = rms_norm(residual as stored) * weight. Agrees with `residual += x; rms_norm(residual)`.
/// x and residual share no byte; the weight lies outside both.
template <class T, class W>
status fused_add_rms_norm(matrix_view<T> x, matrix_view<T> residual, vector_view<W> weight,
                          float eps, cudaStream_t stream) {
  using Wt = std::remove_const_t<W>;
  using Msg = dispatch::fused_add_rms_norm_messages;
  static_assert(!std::is_const_v<T>, "fused_add_rms_norm: x and residual are written");
  static_assert(is_supported_dtype_v<T>, "fused_add_rms_norm: T must be float, __half or __nv_bfloat16");
  static_assert(std::is_same_v<Wt, T> || std::is_same_v<Wt, float>, "fused_add_rms_norm: W must be T or float");
  if (status s = dispatch::validate_fused_add_rms_norm<Msg>(x, residual, weight, eps); !s) return s;
  const kernels::rms_norm_op<Wt, true> op{{}, weight.present() ? weight.data : nullptr, eps, x.cols};
  const kernels::row_io<T> io{x.data, x.data, residual.data, x.rows, x.cols,
                              x.row_stride, x.row_stride, residual.row_stride};
  const dispatch::row_layout layouts[] = {{reinterpret_cast<uintptr_t>(x.data), x.row_stride},
                                          {reinterpret_cast<uintptr_t>(residual.data), residual.row_stride}};
  return dispatch::run_rows<Msg>(op, io, layouts, 2, stream);
}

ROWWISE_NAMESPACE_END
