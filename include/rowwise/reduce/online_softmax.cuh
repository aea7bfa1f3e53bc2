// rowwise/reduce/online_softmax.cuh — the online-softmax pair (m, d) and its merge.
//
// (m, d) summarises a set of logits x_i as m = max x_i and d = sum exp(x_i - m). Two summaries
// merge exactly (up to rounding) by rescaling both sums to the larger maximum, so a row can be
// reduced in any split and order: per thread, per warp, per block, per cluster.
#pragma once

#include <cmath>

#include <cuda/std/limits>

#include "rowwise/reduce/max_sum.cuh"

namespace rowwise {

struct online_softmax_value {
  float m;  // running maximum (NaN if any logit is NaN; -inf for an empty or all -inf set)
  float d;  // sum of exp(x - m); 0 for an empty or all -inf set
};

struct online_softmax_reducer {
  using value_type = online_softmax_value;

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
    // Both sides empty or all -inf: exp(-inf - -inf) would be NaN, so answer the identity.
    if (m == -cuda::std::numeric_limits<float>::infinity()) return identity();
    // The rescale factors are <= 1 (or NaN when m is NaN or +inf, which the row semantics want),
    // so logits any distance apart underflow to 0 instead of overflowing.
    return {m, a.d * expf(a.m - m) + b.d * expf(b.m - m)};
  }
};

}  // namespace rowwise
