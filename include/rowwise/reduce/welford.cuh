// rowwise/reduce/welford.cuh — the Welford triple (n, mean, M2) and its merge (Chan et al.).
//
// Summarises a set of values by count, mean and sum of squared deviations from the mean.
// Unlike E[x^2] - E[x]^2 it keeps full relative accuracy when the mean is large compared with
// the spread (a LayerNorm row with mean 1e4 and std 1e-2).
#pragma once

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

struct welford_value {
  float n;     // count, as float: exact up to 2^24 and a cheap divisor
  float mean;  // 0 for an empty set
  float m2;    // sum of (x - mean)^2
};

struct welford_reducer {
  using value_type = welford_value;

  __host__ __device__ static value_type identity() { return {0.0f, 0.0f, 0.0f}; }

  __host__ __device__ static value_type of(float x) { return {1.0f, x, 0.0f}; }

  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    // An empty side returns the other exactly (and avoids delta^2 * 0 = inf * 0 for huge means).
    if (a.n == 0.0f) return b;
    if (b.n == 0.0f) return a;
    const float n = a.n + b.n;
#if defined(__CUDA_ARCH__)
    const float wb = __fdividef(b.n, n);  // weight of b; 2 instructions instead of a full division
#else
    const float wb = b.n / n;
#endif
    const float delta = b.mean - a.mean;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
};

/// Population variance M2 / n (divisor n) of a set of n values; 0 for an empty set. On the device
/// by __fdividef (two instructions, 2 ulp): it follows the row's reduction in every call, where
/// the IEEE division's sequence and its slow-path call are latency (bench/NOTES.md session 21).
/// Every summary's variance (welford_variance, shifted_welford_variance) is this.
__host__ __device__ inline float population_variance(float m2, float n) {
#if defined(__CUDA_ARCH__)
  return n > 0.0f ? __fdividef(m2, n) : 0.0f;
#else
  return n > 0.0f ? m2 / n : 0.0f;
#endif
}

/// Variance (population, divisor n) of a summary; 0 for an empty set.
__host__ __device__ inline float welford_variance(welford_value v) { return population_variance(v.m2, v.n); }

ROWWISE_NAMESPACE_END
