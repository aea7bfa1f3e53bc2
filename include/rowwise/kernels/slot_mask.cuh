// rowwise/kernels/slot_mask.cuh — which register slots of a thread hold row elements.
#pragma once

#include <cstdint>
#include <type_traits>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Which of a thread's M register slots hold row elements, as bits: one or two registers
/// instead of M booleans (a register each), which matters at 32-64 values per thread.
template <int M>
struct slot_mask {
  static_assert(M >= 1 && M <= 64, "at most 64 slots per thread");
  using word = std::conditional_t<(M <= 32), uint32_t, uint64_t>;
  word bits = 0;
  __device__ __forceinline__ bool operator[](int i) const { return (bits >> i) & 1u; }
  /// Every slot holds a row element (the common case: only a row's edge packs are partial).
  __device__ __forceinline__ bool all() const {
    return bits == static_cast<word>(M == 64 ? ~uint64_t{0} : (uint64_t{1} << M) - 1);
  }
  /// Number of slots that hold row elements.
  __device__ __forceinline__ int count() const {
    if constexpr (M <= 32) return __popc(static_cast<unsigned>(bits));
    else return __popcll(static_cast<unsigned long long>(bits));
  }
  /// Every slot set.
  __device__ __forceinline__ static slot_mask full() {
    slot_mask m;
    m.bits = static_cast<word>(M == 64 ? ~uint64_t{0} : (uint64_t{1} << M) - 1);
    return m;
  }
  /// Record the N-bit mask of the pack whose first slot is `first`.
  __device__ __forceinline__ void set_pack(int first, unsigned pack_bits) {
    bits |= static_cast<word>(pack_bits) << first;
  }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
