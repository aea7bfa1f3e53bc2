// rowwise/kernels/ops/layer_norm_op.cuh — LayerNorm as an op: Welford partials, never E[x^2]-E[x]^2.
#pragma once

#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/reduce/welford.cuh"

namespace rowwise {
namespace kernels {

/// y = (x - mean) * rstd * gamma + beta, rstd = 1 / sqrt(var + eps), population variance.
/// gamma and beta may each be null (absent); mean_out / rstd_out (fp32, one per row) likewise.
template <class W>
struct layer_norm_op : row_op_base<layer_norm_op<W>> {
  using reducer = welford_reducer;
  using value = welford_value;
  static constexpr bool fuses_residual = false;
  static constexpr float pad = 0.0f;  // not neutral for M2: partial() masks edge threads

  const W* gamma;
  const W* beta;
  float* mean_out;
  float* rstd_out;
  float eps;
  int64_t cols;

  struct state {
    float mean;
    float rstd;
  };

  // A thread's slots reduced in two passes over registers (mean, then squared deviations from
  // that mean), which is exact-er than a running update and as cheap; threads then merge by
  // Chan's formula.
  template <int M>
  __device__ __forceinline__ value partial(const float (&v)[M], slot_mask<M> ok) const {
    // Interior threads (all slots inside the row) take the unmasked loops; only threads at a
    // row's edges pay for the per-slot test.
    if (ok.all()) {
      float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // independent chains: latency, not M
#pragma unroll
      for (int i = 0; i < M; ++i) s[i % 4] += v[i];
      const float mean = ((s[0] + s[1]) + (s[2] + s[3])) * (1.0f / M);
      float q[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int i = 0; i < M; ++i) q[i % 4] = fmaf(v[i] - mean, v[i] - mean, q[i % 4]);
      return {static_cast<float>(M), mean, (q[0] + q[1]) + (q[2] + q[3])};
    }
    float n = 0.0f, sum = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      n += ok[i] ? 1.0f : 0.0f;
      sum += v[i];  // padding is 0
    }
    if (n == 0.0f) return reducer::identity();
    const float mean = sum / n;
    float m2 = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const float d = v[i] - mean;
      m2 += ok[i] ? d * d : 0.0f;
    }
    return {n, mean, m2};
  }

  __device__ __forceinline__ state finalize(value t) const {
    return {t.mean, rsqrtf(welford_variance(t) + eps)};
  }

  template <int N>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t col0, const state& s) const {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = (v[j] - s.mean) * s.rstd;
    if (gamma != nullptr) {
      float g[N];
      load_column_params<N>(gamma, col0, cols, g);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] *= g[j];
    }
    if (beta != nullptr) {
      float b[N];
      load_column_params<N>(beta, col0, cols, b);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] += b[j];
    }
  }

  __device__ __forceinline__ void store_stats(int64_t row, const state& s) const {
    if (mean_out != nullptr) mean_out[row] = s.mean;
    if (rstd_out != nullptr) rstd_out[row] = s.rstd;
  }
};

}  // namespace kernels
}  // namespace rowwise
