// rowwise/kernels/ops/softmax_op.cuh — softmax and log_softmax as an op.
#pragma once

#include <cuda/std/limits>

#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/reduce/online_softmax.cuh"

namespace rowwise {
namespace kernels {

/// Log = false: y = exp(x - m) / d.  Log = true: y = x - m - log(d).
/// Row semantics (DESIGN.md): all -inf -> zeros (log: -inf); any NaN or +inf -> NaN everywhere.
template <bool Log>
struct softmax_op : row_op_base<softmax_op<Log>> {
  using reducer = online_softmax_reducer;
  using value = online_softmax_value;
  static constexpr bool fuses_residual = false;

  struct state {
    float shift;  // subtracted from x (the row max, or 0 for an all -inf row)
    float scale;  // softmax: 1/d (0 for an all -inf row); log_softmax: log(d) (0 likewise)
  };

  __device__ static float neg_inf() { return -cuda::std::numeric_limits<float>::infinity(); }

  template <int M>
  __device__ __forceinline__ value partial(const float (&v)[M], slot_mask<M> ok) const {
    float m = neg_inf();
#pragma unroll
    for (int i = 0; i < M; ++i)
      if (ok[i]) m = max_reducer{}(m, v[i]);
    const float shift = m == neg_inf() ? 0.0f : m;  // keep exp(-inf - -inf) from making NaN
    float d = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i)
      if (ok[i]) d += expf(v[i] - shift);
    return {m, d};
  }

  __device__ __forceinline__ state finalize(value t) const {
    if (t.m == neg_inf()) return {0.0f, 0.0f};  // all -inf (d == 0): zeros, or -inf for log
    return {t.m, Log ? logf(t.d) : 1.0f / t.d};  // NaN / +inf rows carry NaN in m or d
  }

  template <int N>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t, const state& s) const {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = Log ? (v[j] - s.shift) - s.scale : expf(v[j] - s.shift) * s.scale;
  }

  // Register strategies, softmax only: keep e = exp(x - m_thread) in place of x, so the write
  // back is one multiply by exp(m_thread - m) / d. log_softmax needs x itself, so it keeps the
  // raw defaults.
  template <int M>
  __device__ __forceinline__ value partial_in_place(float (&v)[M], slot_mask<M> ok) const {
    if constexpr (Log) {
      return partial(v, ok);
    } else {
      float m = neg_inf();
#pragma unroll
      for (int i = 0; i < M; ++i)
        if (ok[i]) m = max_reducer{}(m, v[i]);
      const float shift = m == neg_inf() ? 0.0f : m;
      float d = 0.0f;
#pragma unroll
      for (int i = 0; i < M; ++i) {
        v[i] = ok[i] ? expf(v[i] - shift) : 0.0f;
        d += v[i];
      }
      return {m, d};
    }
  }

  __device__ __forceinline__ state finalize_in_place(value t, value mine) const {
    if constexpr (Log) {
      return finalize(t);
    } else {
      if (t.m != t.m || t.d != t.d) return {0.0f, t.m + t.d};  // NaN row: NaN everywhere
      // All -inf row, or a thread whose slots are all -inf/padding (its e are all 0; the
      // factor must not become inf * 0 when m is far below 0): zeros.
      if (t.m == neg_inf() || mine.m == neg_inf()) return {0.0f, 0.0f};
      return {0.0f, expf(mine.m - t.m) / t.d};
    }
  }

  template <int N>
  __device__ __forceinline__ void apply_in_place(float (&v)[N], int64_t c, const state& s) const {
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
