// rowwise/reduce/max_sum.cuh — the scalar reduction operators: sum and NaN-propagating max.
//
// Every reduction operator in reduce/ is a stateless value type with
//   using value_type = ...;                       // trivially copyable, a whole number of 4-byte words
//   static value_type identity();                 // merge(identity(), x) == x for every x
//   value_type operator()(value_type a, value_type b) const;   // the merge, associative and
//                                                 // commutative up to rounding
// so that primitives/ can all-reduce any of them with the same code.
#pragma once

#include <cuda/std/limits>

namespace rowwise {

/// Sum of fp32 values. Identity 0.
struct sum_reducer {
  using value_type = float;
  __host__ __device__ static value_type identity() { return 0.0f; }
  __host__ __device__ value_type operator()(value_type a, value_type b) const { return a + b; }
};

/// Two fp32 sums reduced together (one all-reduce for both). Identity (0, 0).
struct float_pair {
  float a;
  float b;
};
struct pair_sum_reducer {
  using value_type = float_pair;
  __host__ __device__ static value_type identity() { return {0.0f, 0.0f}; }
  __host__ __device__ value_type operator()(value_type x, value_type y) const {
    return {x.a + y.a, x.b + y.b};
  }
};

/// Maximum of fp32 values that propagates NaN (fmaxf would drop it, and a NaN in a softmax row
/// must poison the whole row). Identity -inf.
struct max_reducer {
  using value_type = float;
  __host__ __device__ static value_type identity() {
    return -cuda::std::numeric_limits<float>::infinity();
  }
  __host__ __device__ value_type operator()(value_type a, value_type b) const {
    // a != a is true only for NaN: return the NaN operand, else the larger one.
    return (a > b || a != a) ? a : b;
  }
};

}  // namespace rowwise
