// rowwise/primitives/shuffle.cuh — butterfly shuffle of any reduction value type.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace detail {

/// __shfl_xor_sync for any trivially copyable value made of whole 4-byte words
/// (float, online_softmax_value, welford_value, ...), one word at a time.
template <class V>
__device__ __forceinline__ V shfl_xor(unsigned mask, const V& v, int lane_mask, int width) {
  static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0,
                "shuffled values must be trivially copyable and made of 4-byte words");
  constexpr int words = sizeof(V) / 4;
  union {
    V value;
    int word[words];
  } in{v}, out;
#pragma unroll
  for (int i = 0; i < words; ++i) out.word[i] = __shfl_xor_sync(mask, in.word[i], lane_mask, width);
  return out.value;
}

}  // namespace detail
ROWWISE_NAMESPACE_END
