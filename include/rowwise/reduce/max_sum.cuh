// rowwise/reduce/max_sum.cuh — the scalar reduction operators: sum and NaN-propagating max.
//
// Every reduction operator in reduce/ is a stateless value type with
//   using value_type = ...;                       // trivially copyable, a whole number of 4-byte words
//   static value_type identity();                 // merge(identity(), x) == x for every x
//   value_type operator()(value_type a, value_type b) const;   // the merge, associative and
//                                                 // commutative up to rounding
// so that primitives/ can all-reduce any of them with the same code.
#pragma once

#include <cstring>

#include <cuda/std/limits>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

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

/// An integer key of a float whose signed order is the floats' order, for maxima taken by integer
/// instructions (primitives/warp_all_reduce.cuh: one redux.sync per warp): the float's bits for
/// x >= +0, the bits with the magnitude flipped for negatives (more negative, smaller), and
/// INT_MAX for a NaN of either sign, so that a NaN wins as in max_reducer. -0 sorts just below +0.
__host__ __device__ inline int max_key(float x) {
#if defined(__CUDA_ARCH__)
  const int bits = __float_as_int(x);
#else
  int bits;
  std::memcpy(&bits, &x, sizeof bits);
#endif
  return x != x ? 0x7fffffff : (bits >= 0 ? bits : bits ^ 0x7fffffff);
}

/// The float of a max_key (the key of a NaN gives the NaN 0x7FFFFFFF).
__host__ __device__ inline float from_max_key(int key) {
  const int bits = key >= 0 ? key : key ^ 0x7fffffff;
#if defined(__CUDA_ARCH__)
  return __int_as_float(bits);
#else
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

ROWWISE_NAMESPACE_END
