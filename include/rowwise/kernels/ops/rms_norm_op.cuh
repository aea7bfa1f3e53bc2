// rowwise/kernels/ops/rms_norm_op.cuh — RMSNorm, and residual-add + RMSNorm, as one op.
#pragma once

#include "rowwise/abi.hpp"
#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/reduce/max_sum.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// y = x * rsqrt(mean(x^2) + eps) * weight (weight may be null).
/// FusedResidual: the strategy first forms x = round_T(in + residual), stores it to residual,
/// and normalises that stored value — so it agrees with the two-call composition.
template <class W, bool FusedResidual>
struct rms_norm_op : row_op_base<rms_norm_op<W, FusedResidual>> {
  using reducer = sum_reducer;
  using value = float;
  static constexpr bool column_params = true;  // per-column weights read in apply
  static constexpr bool fuses_residual = FusedResidual;
  static constexpr float pad = 0.0f;  // adds nothing to the sum of squares
  // Long rows staged in shared memory (read once): measured on the H200 (bench/NOTES.md 18), bf16
  // 65536 columns 69 -> 83 % of the copy floor, fused 69 -> 90 %; softmax and layer_norm
  // measured slower there than streaming and keep chunked_kernel.
  static constexpr bool staged_long_rows = true;

  const W* weight;
  float eps;
  int64_t cols;

  struct state {
    float rstd;
  };

  template <int M>
  __device__ __forceinline__ value partial(const float (&v)[M], slot_mask<M>) const {
    float ss[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // independent chains: latency, not M
#pragma unroll
    for (int i = 0; i < M; ++i) ss[i % 4] = fmaf(v[i], v[i], ss[i % 4]);
    return (ss[0] + ss[1]) + (ss[2] + ss[3]);
  }

  using column_param_type = W;
  static constexpr int column_param_count = 1;
  __host__ __device__ __forceinline__ const W* column_param(int) const { return weight; }

  template <int N>
  __device__ __forceinline__ bool columns_aligned(int64_t col0) const {
    return column_params_aligned<N>(weight, col0);
  }

  __device__ __forceinline__ state finalize(value sum_sq) const {
    // __fdividef: the mean square follows the row's reduction in every call, where the IEEE
    // division's sequence and slow-path call are latency (bench/NOTES.md session 21).
    return {rsqrtf(__fdividef(sum_sq, static_cast<float>(cols)) + eps)};
  }

  template <int N, class Columns = checked_columns>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t col0, const state& s,
                                        Columns columns = {}) const {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] *= s.rstd;
    if (weight != nullptr) {
      float w[N];
      load_column_params<N>(weight, col0, cols, w, columns.param(0));
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] *= w[j];
    }
  }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
