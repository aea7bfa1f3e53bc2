// rowwise/reduce/online_softmax.cuh — the online-softmax pair (m, d) and its merge.
//
// (m, d) summarises a set of logits x_i as m = max x_i and d = sum exp(x_i - m). Two summaries
// merge exactly (up to rounding) by rescaling both sums to the larger maximum, so a row can be
// reduced in any split and order: per thread, per warp, per block, per cluster.
#pragma once

#include <cmath>

#include <cuda/std/limits>

#include "rowwise/abi.hpp"
#include "rowwise/reduce/max_sum.cuh"

ROWWISE_NAMESPACE_BEGIN

struct online_softmax_value {
  float m;  // running maximum (NaN if any logit is NaN; -inf for an empty or all -inf set)
  float d;  // sum of exp(x - m); 0 for an empty or all -inf set
};

struct online_softmax_reducer {
  using value_type = online_softmax_value;

  /// e^x for x <= 0. On the device one MUFU.EX2 (relative error ~2^-22): a merge sits on the
  /// critical path of every row's all-reduce, five to ten times per row, where expf's longer
  /// sequence showed as latency; the sums it scales carry far larger rounding already.
  __host__ __device__ static float rescale(float x) {
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
    return y;
#else
    return expf(x);
#endif
  }

  __host__ __device__ static value_type identity() {
    return {-cuda::std::numeric_limits<float>::infinity(), 0.0f};
  }

  /// Summary of a single logit.
  __host__ __device__ static value_type of(float x) {
    if (x == -cuda::std::numeric_limits<float>::infinity()) return identity();
    return {x, 1.0f};
  }

  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    const float m = max_reducer{}(a.m, b.m);
    // Both maxima -inf: exp(-inf - -inf) would be NaN, so add the sums unscaled: 0 for empty or
    // all -inf sets (the identity), NaN if a side carries a NaN in d (a NaN logit that a
    // NaN-ignoring local max skipped) — which must survive.
    if (m == -cuda::std::numeric_limits<float>::infinity()) return {m, a.d + b.d};
    // The rescale factors are <= 1 (or NaN when m is NaN or +inf, which the row semantics want),
    // so logits any distance apart underflow to 0 instead of overflowing.
    return {m, a.d * rescale(a.m - m) + b.d * rescale(b.m - m)};
  }
};

ROWWISE_NAMESPACE_END
