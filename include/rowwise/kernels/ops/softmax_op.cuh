// rowwise/kernels/ops/softmax_op.cuh — softmax and log_softmax as an op.
#pragma once

#include <cuda/std/limits>

#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/reduce/online_softmax.cuh"

namespace rowwise {
namespace kernels {

/// e^x. Accurate (expf) for fp32 outputs; for 16-bit outputs one MUFU.EX2 on x*log2(e): its
/// relative error (~2^-21 for |x| < 30) is far below the half-ulp of fp16/bf16 the output is
/// rounded to, and it halves the instructions per element where the element rate is highest.
template <bool Fast>
__device__ __forceinline__ float exp_of(float x) {
  if constexpr (Fast) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
    return y;
  } else {
    return expf(x);
  }
}

/// Log = false: y = exp(x - m) / d.  Log = true: y = x - m - log(d).
/// Row semantics (DESIGN.md): all -inf -> zeros (log: -inf); any NaN or +inf -> NaN everywhere.
/// NaN travels through d: a NaN (or an inf - inf) makes some exp NaN, hence d, hence every
/// output; so the per-element max can be the cheap fmaxf, which ignores NaN.
template <bool Log, bool FastExp>
struct softmax_op : row_op_base<softmax_op<Log, FastExp>> {
  using reducer = online_softmax_reducer;
  using value = online_softmax_value;
  static constexpr bool column_params = false;  // per-column weights read in apply
  static constexpr bool fuses_residual = false;
  static constexpr float pad = -cuda::std::numeric_limits<float>::infinity();  // exp(pad - m) = 0

  struct state {
    float shift;  // subtracted from x (the row max, or 0 for an all -inf row)
    float scale;  // softmax: 1/d; log_softmax: log(d); 0 for an all -inf row; NaN for a NaN row
  };

  __device__ static float neg_inf() { return -cuda::std::numeric_limits<float>::infinity(); }

  /// Thread-local max; a thread whose slots are all -inf (or padding) shifts by 0 instead, so
  /// exp(-inf - -inf) never makes a NaN.
  template <int M>
  __device__ __forceinline__ static float local_shift(const float (&v)[M], float& m) {
    // Four independent chains: a single running max is M dependent instructions of latency.
    float c[4] = {neg_inf(), neg_inf(), neg_inf(), neg_inf()};
#pragma unroll
    for (int i = 0; i < M; ++i) c[i % 4] = fmaxf(c[i % 4], v[i]);
    m = fmaxf(fmaxf(c[0], c[1]), fmaxf(c[2], c[3]));
    return m == neg_inf() ? 0.0f : m;
  }

  template <int M>
  __device__ __forceinline__ value partial(const float (&v)[M], slot_mask<M>) const {
    float m;
    const float shift = local_shift(v, m);
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < M; ++i) d[i % 4] += exp_of<FastExp>(v[i] - shift);
    return {m, (d[0] + d[1]) + (d[2] + d[3])};
  }

  __device__ __forceinline__ state finalize(value t) const {
    if (t.d != t.d) return {0.0f, t.d};          // NaN row
    if (t.m == neg_inf()) return {0.0f, 0.0f};   // all -inf: zeros, or -inf for log
    return {t.m, Log ? logf(t.d) : 1.0f / t.d};
  }

  template <int N, class Columns = checked_columns>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t, const state& s, Columns = {}) const {
#pragma unroll
    for (int j = 0; j < N; ++j)
      v[j] = Log ? (v[j] - s.shift) - s.scale : exp_of<FastExp>(v[j] - s.shift) * s.scale;
  }

  // Register strategies, softmax only: keep e = exp(x - m_thread) in place of x, so the write
  // back is one multiply by exp(m_thread - m) / d: one exponential per element, not two.
  // log_softmax needs x itself, so it keeps the raw defaults.
  template <int M>
  __device__ __forceinline__ value partial_in_place(float (&v)[M], slot_mask<M> ok) const {
    if constexpr (Log) {
      return partial(v, ok);
    } else {
      float m;
      const float shift = local_shift(v, m);
      float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int i = 0; i < M; ++i) {
        v[i] = exp_of<FastExp>(v[i] - shift);
        d[i % 4] += v[i];
      }
      return {m, (d[0] + d[1]) + (d[2] + d[3])};
    }
  }

  __device__ __forceinline__ state finalize_in_place(value t, value mine) const {
    if constexpr (Log) {
      return finalize(t);
    } else {
      if (t.d != t.d) return {0.0f, t.d};  // NaN row: NaN everywhere
      // All -inf row, or a thread whose slots are all -inf/padding (its e are all 0; the
      // factor must not become inf * 0 when m is far below 0): zeros.
      if (t.m == neg_inf() || mine.m == neg_inf()) return {0.0f, 0.0f};
      return {0.0f, expf(mine.m - t.m) / t.d};
    }
  }

  template <int N, class Columns>
  __device__ __forceinline__ void apply_in_place(float (&v)[N], int64_t c, const state& s, Columns) const {
    if constexpr (Log) {
      apply(v, c, s);
    } else {
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] *= s.scale;
    }
  }
};

}  // namespace kernels
}  // namespace rowwise
