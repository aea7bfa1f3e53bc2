// rowwise/reduce/shifted_welford.cuh — Welford summaries whose mean is kept as shift + offset.
//
// A set of values summarised by count n, a shift s (any value near the data: the rounded mean
// of a first pass), the offset d = mean - s, and M2 = sum (x - mean)^2. Carrying the mean as the
// unevaluated sum s + d is what lets LayerNorm rows with mean 1e4 and std 1e-2 keep their
// digits: s is a float within a rounding of the mean, x - s is exact for x near it (Sterbenz),
// and d — a few units of s's last place — is held separately instead of being rounded into s.
//
// Merge (Chan et al.) keeps the left operand's shift: b's deviation from it is
// (b.s - a.s) + b.d, a difference of nearby floats plus a small offset, so no digits of a
// large common mean ever enter the sums. Merging in a fixed operand order (the warp and block
// all-reduces do) gives bit-identical results in every thread.
#pragma once

#include "rowwise/abi.hpp"
#include "rowwise/reduce/welford.cuh"

ROWWISE_NAMESPACE_BEGIN

struct shifted_welford_value {
  float n;      // count (as float: exact up to 2^24, a cheap divisor)
  float shift;  // s
  float dmean;  // mean - s
  float m2;     // sum of (x - mean)^2
};

/// Sums over a group of values relative to a shift S that other groups share: count n, and the
/// sums c of (x - S) and q of (x - S)^2. Sums relative to the same S simply add.
struct shifted_sums {
  float n;
  float c;
  float q;
};

/// The exact two-pass over a group of n values around a shift s of the group's own: c = sum
/// (x - s), q = sum (x - s)^2. s may be any value near the data (one of the values, or their
/// rounded mean): (mean - s)^2 at most (n) times the variance keeps q - c^2 / n to within that
/// factor of q's rounding.
struct shifted_two_pass {
  float n;
  float s;
  float c;
  float q;
};

/// shifted_sums relative to one shared shift add up (a butterfly of them is the union's sums).
struct shifted_sums_reducer {
  using value_type = shifted_sums;
  __host__ __device__ static value_type identity() { return {0.0f, 0.0f, 0.0f}; }
  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    return {a.n + b.n, a.c + b.c, a.q + b.q};
  }
};

struct shifted_welford_reducer {
  using value_type = shifted_welford_value;

  __host__ __device__ static value_type identity() { return {0.0f, 0.0f, 0.0f, 0.0f}; }

  /// From an exact two-pass over n values: their sum of (x - s) is c and of (x - s)^2 is q.
  /// The offset is c / n, and M2 = q - c^2 / n (the corrected two-pass formula: c is the
  /// rounding error of s as the mean, so the subtraction removes only a tiny term).
  /// On the device the offset, a correction term with n in [1, 2^31], is c * __frcp_rn(n) when
  /// RcpRn, else __fdividef(c, n) (2 ulp). The IEEE reciprocal's denormal slow path is a CALL
  /// with the caller's live registers kept around it; which form a kernel compiles best is
  /// measured per caller (registers_kernel.cuh: two_pass_moments, bench/NOTES.md session 22).
  template <bool RcpRn = false>
  __host__ __device__ static value_type from_two_pass(float n, float s, float q, float c) {
    if (n == 0.0f) return identity();
#if defined(__CUDA_ARCH__)
    const float d = RcpRn ? c * __frcp_rn(n) : __fdividef(c, n);
#else
    const float d = c / n;
#endif
    const float m2 = fmaf(-d, c, q);
    // Rounding can leave M2 just below 0: clamp it, but keep a NaN (a row holding an inf or a
    // NaN), which must reach rstd and every output (a clamp to 0 gave rsqrt(eps) and -inf outputs).
    return {n, s, d, m2 < 0.0f ? 0.0f : m2};
  }

  /// A group's exact two-pass sums relative to its own shift s (n values, c = sum (x - s),
  /// q = sum (x - s)^2) re-expressed relative to a shift S shared with other groups: with
  /// d = s - S, sum (x - S) = c + n d and sum (x - S)^2 = q + d (2 c + n d). Adding the groups'
  /// results and from_two_pass(N, S, Q, C) gives the union's summary with one division, where
  /// pairwise merges take one per merge. S should be a value of the data's scale (another
  /// group's shift): (mean - S)^2 then stays within (groups) times the variance, which bounds
  /// what the final subtraction Q - C^2 / N loses (the shifted-data algorithm's argument).
  __host__ __device__ static shifted_sums rebase(float n, float s, float c, float q, float shared) {
    const float d = s - shared;
    return {n, fmaf(n, d, c), fmaf(d, fmaf(n, d, 2.0f * c), q)};
  }

  /// A summary re-expressed as sums relative to a shift S shared with other summaries: with d its
  /// mean minus S, (shift - S) + dmean, the sums are n, c = n d and q = M2 + n d^2 (Chan's
  /// between-group term). Summed over summaries, from_two_pass(N, S, Q, C) gives their union with
  /// one division (primitives/warp_all_reduce.cuh merges a cluster's CTAs so). An empty summary
  /// gives zeros; S should be a shift of the same data (another summary's), as for rebase.
  __host__ __device__ static shifted_sums rebase_summary(const value_type& v, float shared) {
    const float d = (v.shift - shared) + v.dmean;
    const float nd = v.n * d;
    return {v.n, nd, fmaf(nd, d, v.m2)};
  }

  /// The mean of a group's two-pass, rounded to fp32: s + c / n (s for an empty group). A shift
  /// that other groups share, taken from one group, is best this rounded mean.
  __host__ __device__ static float rounded_mean(const shifted_two_pass& g) {
#if defined(__CUDA_ARCH__)
    return g.n > 0.0f ? g.s + __fdividef(g.c, g.n) : g.s;
#else
    return g.n > 0.0f ? g.s + g.c / g.n : g.s;
#endif
  }

  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    if (a.n == 0.0f) return b;  // an empty side returns the other exactly
    if (b.n == 0.0f) return a;
    const float n = a.n + b.n;
#if defined(__CUDA_ARCH__)
    const float wb = __fdividef(b.n, n);
#else
    const float wb = b.n / n;
#endif
    const float db = (b.shift - a.shift) + b.dmean;  // b's mean relative to a's shift
    const float delta = db - a.dmean;                // b's mean minus a's mean
    return {n, a.shift, a.dmean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
};

/// Exact two-pass sums (shifted_two_pass) as a reduction: the union's sums relative to the left
/// operand's shift (b rebased to it, then added). An empty side returns the other exactly.
/// The CTAs of a cluster exchange their rows' sums in this form (registers_kernel.cuh:
/// two_pass_moments), so that no division sits before the exchange: the row's one division is
/// from_two_pass after it.
struct shifted_two_pass_reducer {
  using value_type = shifted_two_pass;
  __host__ __device__ static value_type identity() { return {0.0f, 0.0f, 0.0f, 0.0f}; }
  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    if (a.n == 0.0f) return b;
    if (b.n == 0.0f) return a;
    const shifted_sums r = shifted_welford_reducer::rebase(b.n, b.s, b.c, b.q, a.s);
    return {a.n + r.n, a.s, a.c + r.c, a.q + r.q};
  }
};

/// Population variance (divisor n); 0 for an empty set (welford.cuh: population_variance).
__host__ __device__ inline float shifted_welford_variance(shifted_welford_value v) {
  return population_variance(v.m2, v.n);
}

ROWWISE_NAMESPACE_END
