// rowwise/reduce/pack_max.cuh — a running maximum over whole packs, in the packs' own type.
//
// A maximum is exact in any format, so 16-bit values need no conversion to find it: one packed
// max (HMNMX2) per two values, where converting first costs 1.5 instructions per bf16 value and
// the fp32 max one more (bench/NOTES.md 26). fp32 packs fold into one chain per slot. Like
// fmaxf, a NaN is dropped in favour of the other operand; ops that must see NaN (softmax) find it
// later through their sums.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/numeric/dtype.cuh"
#include "rowwise/numeric/pack.cuh"

ROWWISE_NAMESPACE_BEGIN

/// Element-wise running max of packs of N values of T, started at -inf (which is also the pad
/// of slots outside a row). value() gives the max over every slot as fp32.
template <class T, int N>
struct pack_max {
  static constexpr bool paired = !std::is_same_v<T, float> && N % 2 == 0;
  using pair = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
  static constexpr int lanes = paired ? N / 2 : N;
  using lane = std::conditional_t<paired, pair, float>;
  lane acc[lanes];

  __device__ __forceinline__ pack_max() {
#pragma unroll
    for (int i = 0; i < lanes; ++i) {
      if constexpr (paired) {
        acc[i] = pair{from_float<T>(-INFINITY), from_float<T>(-INFINITY)};
      } else {
        acc[i] = -INFINITY;
      }
    }
  }

  __device__ __forceinline__ void add(const aligned_array<T, N>& x) {
#pragma unroll
    for (int i = 0; i < lanes; ++i) {
      if constexpr (paired) {
        acc[i] = __hmax2(acc[i], *reinterpret_cast<const pair*>(&x.v[2 * i]));
      } else {
        acc[i] = fmaxf(acc[i], to_float(x.v[i]));
      }
    }
  }

  __device__ __forceinline__ float value() const {
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < lanes; ++i) {
      if constexpr (paired) {
        m = fmaxf(m, fmaxf(to_float(acc[i].x), to_float(acc[i].y)));
      } else {
        m = fmaxf(m, acc[i]);
      }
    }
    return m;
  }
};

ROWWISE_NAMESPACE_END
