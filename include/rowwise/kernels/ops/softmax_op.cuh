// rowwise/kernels/ops/softmax_op.cuh — softmax and log_softmax as an op.
#pragma once

#include <cuda/std/limits>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/ops/row_op.cuh"
#include "rowwise/reduce/log2e_multiple.cuh"
#include "rowwise/reduce/online_softmax.cuh"
#include "rowwise/reduce/pack_max.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// 2^x: one MUFU.EX2 (relative error ~2^-22; ftz: a result below 2^-126 is 0).
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// Log = false: y = exp(x - m) / d.  Log = true: y = x - m - log(d).
/// Row semantics (DESIGN.md): all -inf -> zeros (log: -inf); any NaN or +inf -> NaN everywhere.
/// NaN travels through d: a NaN (or an inf - inf) makes some exp NaN, hence d, hence every
/// output; so the per-element max can be the cheap fmaxf, which ignores NaN.
///
/// Every exponential of an element is 2^(fma(x, log2e, -hi)) with hi = fp32(m * log2e): one
/// FFMA and one MUFU.EX2 for every dtype (expf took ~9 instructions, which made the streaming
/// passes issue-bound: bench/NOTES.md 20). Since fma(x, log2e, -hi) = (x - m) * log2e + lo
/// exactly before its one rounding, the factor 2^lo is the same for the whole thread (or row)
/// and is taken out once (times 2^-lo), so the result does not depend on |m|: rows of logits
/// near 1e4 keep full accuracy. Left: log2e's own rounding (relative ~|x - m| * 2^-25 in y) and
/// MUFU.EX2's ~2^-22 — within tests/support/tolerance.hpp's fp32 rtol (1e-5), set for this.
/// Maxima too large for the split (|m| >= ~1.49e9: finite mask fills such as -1e10 or the
/// dtype's lowest value) take times_log2e's exact-only path: slope 1 in place of log2e, no lo.
template <bool Log>
struct softmax_op : row_op_base<softmax_op<Log>> {
  using reducer = online_softmax_reducer;
  using value = online_softmax_value;
  static constexpr bool column_params = false;  // per-column weights read in apply
  static constexpr bool fuses_residual = false;
  static constexpr float pad = -cuda::std::numeric_limits<float>::infinity();  // exp(pad - m) = 0
  // Many rows too long for registers stage 64 KiB segments (dispatch/policy.hpp: measured).
  static constexpr bool staged_long_rows = true;

  struct state {
    float shift;   // log_softmax: m, subtracted from x (0 for an all -inf row);
                   // softmax: hi of m's log2e_multiple (y = 2^(fma(x, slope, -shift)) * scale)
    float scale;   // log_softmax: log(d); softmax: 2^-lo / d, or in place exp(m_thread - m)
                   // * 2^-lo_thread / d; 0 for an all -inf row; NaN for a NaN row
    float slope = log2e;  // softmax: the slope of m's log2e_multiple
  };

  __device__ static float neg_inf() { return -cuda::std::numeric_limits<float>::infinity(); }

  /// Folds values into four independent max chains (a single running max is M dependent
  /// instructions of latency).
  template <int M, class F>
  __device__ __forceinline__ static void fold_max(const F (&v)[M], float (&c)[4]) {
#pragma unroll
    for (int i = 0; i < M; ++i) c[i % 4] = fmaxf(c[i % 4], v[i]);
  }

  /// The shift for a thread whose values' max is m: m, or 0 when all are -inf (or padding), so
  /// exp(-inf - -inf) never makes a NaN.
  __device__ __forceinline__ static float shift_for(float m) { return m == neg_inf() ? 0.0f : m; }

  /// Adds e_i = 2^(fma(v[i], s.slope, -s.hi)) into four sums; with Keep, e_i replaces v[i] (F =
  /// float; else const float).
  template <bool Keep, int M, class F>
  __device__ __forceinline__ static void fold_exp(F (&v)[M], const log2e_multiple& s, float (&d)[4]) {
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const float e = exp2_approx(fmaf(v[i], s.slope, -s.hi));
      if constexpr (Keep) v[i] = e;
      d[i % 4] += e;
    }
  }

  static __device__ __forceinline__ float sum_of(const float (&d)[4]) { return (d[0] + d[1]) + (d[2] + d[3]); }

  /// The thread's (m, d) of values held at once: d = 2^-lo * sum e_i, hi and lo the shift's
  /// multiple of log2e; with Keep, e_i replaces v[i].
  template <bool Keep, int M, class F>
  __device__ __forceinline__ static value exponentials(F (&v)[M]) {
    float c[4] = {neg_inf(), neg_inf(), neg_inf(), neg_inf()};
    fold_max(v, c);
    const float m = fmaxf(fmaxf(c[0], c[1]), fmaxf(c[2], c[3]));
    const log2e_multiple s = times_log2e(shift_for(m));
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    fold_exp<Keep>(v, s, d);
    return {m, sum_of(d) * exp2_approx(-s.lo)};
  }

  // Staged rows (row_op.cuh: sweeps): the thread's max over all its packs of the segment, taken
  // on the packs as stored (pack_max: no conversion), then their exponentials with that one
  // shift — one (m, d) per row, not a merge per step (each merge costs two exponentials and a
  // max, and each step its own max and 2^-lo).
  static constexpr bool sweeps = true;
  template <class T, int N>
  struct sweep {
    pack_max<T, N> max;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float m = 0.0f;
    log2e_multiple s = {0.0f, 0.0f, log2e};
  };
  template <class T, int N>
  __device__ __forceinline__ void sweep_first(const aligned_array<T, N>& x, sweep<T, N>& w) const {
    w.max.add(x);
  }
  template <class T, int N>
  __device__ __forceinline__ void sweep_turn(sweep<T, N>& w) const {
    w.m = w.max.value();
    w.s = times_log2e(shift_for(w.m));
  }
  template <int M, class T, int N>
  __device__ __forceinline__ void sweep_second(const float (&v)[M], sweep<T, N>& w) const {
    fold_exp<false>(v, w.s, w.d);
  }
  template <class T, int N>
  __device__ __forceinline__ value sweep_value(const sweep<T, N>& w) const {
    return {w.m, sum_of(w.d) * exp2_approx(-w.s.lo)};
  }

  template <int M>
  __device__ __forceinline__ value partial(const float (&v)[M], slot_mask<M>) const {
    return exponentials<false>(v);
  }

  __device__ __forceinline__ state finalize(value t) const {
    if (t.d != t.d) return {0.0f, t.d};         // NaN row: NaN everywhere
    if (t.m == neg_inf()) return {0.0f, 0.0f};  // all -inf: zeros, or -inf for log
    if constexpr (Log) {
      // __logf (MUFU.LG2 and a multiply), not logf's polynomial: log(d) is in the row's dependent
      // chain after its reduction. Its error (absolute 2^-21.4 for d in [0.5, 2], 3 ulps beyond;
      // d >= 1 up to rounding, the max element's term being 1) is within the log_softmax atol /
      // rtol of tests/support/tolerance.hpp, which were set for it.
      return {t.m, __logf(t.d)};
    } else {
      const log2e_multiple s = times_log2e(t.m);
      return {s.hi, __fdividef(exp2_approx(-s.lo), t.d), s.slope};  // d in [1, cols]: 2 ulp, no slow path
    }
  }

  template <int N, class Columns = checked_columns>
  __device__ __forceinline__ void apply(float (&v)[N], int64_t, const state& s, Columns = {}) const {
#pragma unroll
    for (int j = 0; j < N; ++j)
      v[j] = Log ? (v[j] - s.shift) - s.scale : exp2_approx(fmaf(v[j], s.slope, -s.shift)) * s.scale;
  }

  // Register strategies, softmax only: keep e_i = 2^(fma(x, log2e, -hi_thread)) in place of x,
  // so the write back is one multiply by exp(m_thread - m) * 2^-lo_thread / d: one exponential
  // per element, not two. log_softmax needs x itself, so it keeps the raw defaults.
  template <int M>
  __device__ __forceinline__ value partial_in_place(float (&v)[M], slot_mask<M> ok) const {
    if constexpr (Log)
      return partial(v, ok);
    else
      return exponentials<true>(v);
  }

  __device__ __forceinline__ state finalize_in_place(value t, value mine) const {
    if constexpr (Log) {
      return finalize(t);
    } else {
      if (t.d != t.d) return {0.0f, t.d};  // NaN row: NaN everywhere
      // All -inf row, or a thread whose slots are all -inf/padding (its e are all 0; the
      // factor must not become inf * 0 when m is far below 0): zeros.
      if (t.m == neg_inf() || mine.m == neg_inf()) return {0.0f, 0.0f};
      // The thread's shift was mine.m (finite here): the same hi/lo as in exponentials(), so the
      // factor is 2^((mine.m - t.m) log2e - lo) / d: one FFMA, one MUFU.EX2 and __fdividef (d in
      // [1, cols]). expf's sequence and the IEEE division (a call to its slow path) sat in every
      // row's chain after its reduction (bench/NOTES.md session 21). On times_log2e's exact-only
      // path (|mine.m| huge) lo is 0 and the thread's e are exp(x - mine.m) themselves; mine.m -
      // t.m is then 0 or below -128, where the exponential is 0.
      return {0.0f, __fdividef(exp2_approx(fmaf(mine.m - t.m, log2e, -times_log2e(mine.m).lo)), t.d)};
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
ROWWISE_NAMESPACE_END
