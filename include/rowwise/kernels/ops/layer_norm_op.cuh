// rowwise/kernels/ops/layer_norm_op.cuh — LayerNorm as an op; never E[x^2] - E[x]^2.
//
// Two ways to the row's mean and variance, both exact to fp32 rounding for rows whose mean is
// far larger than their spread (mean 1e4, std 1e-2):
//  * the exact two-pass in registers (registers_kernel: rows held by one CTA or a cluster), in
//    one of two forms (dispatch/policy.hpp: two_pass_thread_shifts): thread shifts (fp32 rows and
//    16-bit ones of the 128-register staged kernels: thread_centre, each thread's two-pass around
//    its first value, the values left centred, and the warps' sums rebased to one shift;
//    centred_state) or warp shifts (the other 16-bit rows, below):
//    each warp all-reduces its sum and count, giving a shift s = its mean; then the sums of
//    (x - s)^2 and (x - s) over its values together; a block adds its warps' sums relative to
//    its first warp's shift after one barrier, and CTAs of a cluster merge the resulting shifted
//    Welford summaries (count, s, mean - s, M2; reduce/shifted_welford.cuh) by Chan
//    (registers_kernel.cuh: two_pass_moments). Outputs are ((x - s) - (mean - s)) * rstd: x - s
//    is exact (Sterbenz) when x is near s, so a huge mean cancels before any rounding. One
//    barrier per row; two block-wide passes (sum, then deviations) took two and measured slower
//    on the H200 (bench/NOTES.md 19).
//  * Welford partials merged by Chan's formula (strategies that see the row in chunks:
//    chunked_kernel, staged_kernel), with state {mean, 0, rstd}.
#pragma once

#include "rowwise/abi.hpp"
#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/reduce/max_sum.cuh"
#include "rowwise/reduce/shifted_welford.cuh"
#include "rowwise/reduce/welford.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// y = (x - mean) * rstd * gamma + beta, rstd = 1 / sqrt(var + eps), population variance.
/// gamma and beta may each be null (absent); mean_out / rstd_out (fp32, one per row) likewise.
template <class W>
struct layer_norm_op : row_op_base<layer_norm_op<W>> {
  using reducer = welford_reducer;
  using value = welford_value;
  static constexpr bool column_params = true;  // per-column weights read in apply
  static constexpr bool fuses_residual = false;
  static constexpr float pad = 0.0f;  // neutral for the sum; deviations are masked

  // Two-pass interface (see row_op.cuh): a sum, then deviations from the shift it gives.
  static constexpr bool two_pass = true;

  const W* gamma;
  const W* beta;
  float* mean_out;
  float* rstd_out;
  float eps;
  int64_t cols;

  struct state {
    float shift;  // s
    float corr;   // mean - s (0 on the Welford path)
    float rstd;
  };

  // ---- Welford path -------------------------------------------------------------------------
  // A thread's slots reduced in two passes over registers (mean, then squared deviations from
  // that mean); threads then merge by Chan's formula.
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
    const float mean = __fdividef(sum, n);  // no IEEE division in the row's chain (welford.cuh)
    float m2 = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const float d = v[i] - mean;
      m2 += ok[i] ? d * d : 0.0f;
    }
    return {n, mean, m2};
  }

  __device__ __forceinline__ state finalize(value t) const {
    return {t.mean, 0.0f, rsqrtf(welford_variance(t) + eps)};
  }

  // ---- two-pass path ------------------------------------------------------------------------
  template <int M>
  __device__ __forceinline__ float first_partial(const float (&v)[M], slot_mask<M>) const {
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // padding is 0: no mask needed
#pragma unroll
    for (int i = 0; i < M; ++i) s[i % 4] += v[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
  }

  /// Sums of (x - shift)^2 and of (x - shift) over the slots with ok.
  template <int M>
  __device__ __forceinline__ float_pair second_partial(const float (&v)[M], slot_mask<M> ok,
                                                       float shift) const {
    float q[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (ok.all()) {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const float d = v[i] - shift;
        c[i % 4] += d;
        q[i % 4] = fmaf(d, d, q[i % 4]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const float d = ok[i] ? v[i] - shift : 0.0f;
        c[i % 4] += d;
        q[i % 4] = fmaf(d, d, q[i % 4]);
      }
    }
    return {(q[0] + q[1]) + (q[2] + q[3]), (c[0] + c[1]) + (c[2] + c[3])};
  }

  __device__ __forceinline__ state finalize_moments(shifted_welford_value m) const {
    return {m.shift, m.dmean, rsqrtf(shifted_welford_variance(m) + eps)};
  }

  // ---- two-pass path, thread shifts ---------------------------------------------------------
  /// The thread's exact two-pass around a shift of its own, leaving v centred on it (v[i] - s:
  /// exact for values near s, Sterbenz), so that the write-back is one fma per value. A whole
  /// thread's shift is its first value: no pass for a mean (what q - c^2 / M loses grows with
  /// (mean - s)^2, at most M times the variance for a value of the set: the rebase takes any
  /// shift). A row's edge threads take their values' mean (slots outside the row hold 0 and are
  /// masked).
  template <int M>
  __device__ __forceinline__ shifted_two_pass thread_centre(float (&v)[M], slot_mask<M> ok) const {
    float q[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // independent chains: latency, not M
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (ok.all()) {
      const float s = v[0];
      v[0] = 0.0f;
#pragma unroll
      for (int i = 1; i < M; ++i) {
        v[i] -= s;
        c[i % 4] += v[i];
        q[i % 4] = fmaf(v[i], v[i], q[i % 4]);
      }
      return {static_cast<float>(M), s, (c[0] + c[1]) + (c[2] + c[3]), (q[0] + q[1]) + (q[2] + q[3])};
    }
    float sum = 0.0f;  // padding is 0
#pragma unroll
    for (int i = 0; i < M; ++i) sum += v[i];
    const float n = static_cast<float>(ok.count());
    const float s = n > 0.0f ? __fdividef(sum, n) : 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      v[i] -= s;
      const float d = ok[i] ? v[i] : 0.0f;
      c[i % 4] += d;
      q[i % 4] = fmaf(d, d, q[i % 4]);
    }
    return {n, s, (c[0] + c[1]) + (c[2] + c[3]), (q[0] + q[1]) + (q[2] + q[3])};
  }

  /// The write-back's state for values centred by thread_centre: y = v * rstd + offset with
  /// offset = ((s_thread - shift) - dmean) * rstd, both differences of nearby values.
  struct centred_state {
    float offset;
    float rstd;
    float mean;  // for store_stats
  };

  __device__ __forceinline__ centred_state finalize_centred(shifted_welford_value m,
                                                            const shifted_two_pass& mine) const {
    const float rstd = rsqrtf(shifted_welford_variance(m) + eps);
    return {((mine.s - m.shift) - m.dmean) * rstd, rstd, m.shift + m.dmean};
  }

  // ---- write-back ---------------------------------------------------------------------------
  using column_param_type = W;
  static constexpr int column_param_count = 2;
  __host__ __device__ __forceinline__ const W* column_param(int i) const { return i == 0 ? gamma : beta; }

  template <int N>
  __device__ __forceinline__ bool columns_aligned(int64_t col0) const {
    return column_params_aligned<N>(gamma, col0) && column_params_aligned<N>(beta, col0);
  }

  template <int N, class Columns = checked_columns>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t col0, const state& s,
                                        Columns columns = {}) const {
    // ((x - s) - corr) * rstd as (x - s) * rstd - corr * rstd: x - s stays exact, and the
    // write-back is 3 instructions per element with both weights (fma), not 5; at 16-bit rows
    // the SM's instruction issue is part of the per-row chain.
    const float offset = -s.corr * s.rstd;
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = fmaf(v[j] - s.shift, s.rstd, offset);
    affine(v, col0, columns);
  }

  // The registers kernel writes back in place: with warp shifts v holds the inputs (row_op_base's
  // apply_in_place: apply); with thread shifts v is centred (one fma per value).
  using row_op_base<layer_norm_op<W>>::apply_in_place;
  template <int N, class Columns>
  __device__ __forceinline__ void apply_in_place(float (&v)[N], int64_t col0, const centred_state& s,
                                                 Columns columns) const {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = fmaf(v[j], s.rstd, s.offset);
    affine(v, col0, columns);
  }

  /// y * gamma + beta for the weights present.
  template <int N, class Columns>
  __device__ __forceinline__ void affine(float (&v)[N], int64_t col0, Columns columns) const {
    if (gamma != nullptr) {
      float g[N];
      load_column_params<N>(gamma, col0, cols, g, columns.param(0));
      if (beta != nullptr) {
        float b[N];
        load_column_params<N>(beta, col0, cols, b, columns.param(1));
#pragma unroll
        for (int j = 0; j < N; ++j) v[j] = fmaf(v[j], g[j], b[j]);
      } else {
#pragma unroll
        for (int j = 0; j < N; ++j) v[j] *= g[j];
      }
    } else if (beta != nullptr) {
      float b[N];
      load_column_params<N>(beta, col0, cols, b, columns.param(1));
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] += b[j];
    }
  }

  __device__ __forceinline__ void store_stats(int64_t row, const state& s) const {
    if (mean_out != nullptr) mean_out[row] = s.shift + s.corr;
    if (rstd_out != nullptr) rstd_out[row] = s.rstd;
  }
  __device__ __forceinline__ void store_stats(int64_t row, const centred_state& s) const {
    if (mean_out != nullptr) mean_out[row] = s.mean;
    if (rstd_out != nullptr) rstd_out[row] = s.rstd;
  }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
