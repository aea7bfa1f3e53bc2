// rowwise/primitives/l2_prefetch.cuh — one bulk request that prefetches a byte range into L2
// (cp.async.bulk.prefetch.L2, sm_90+).
//
// Contract
// - A hint: nothing completes, nothing becomes visible, no thread waits; data read later through
//   any path is the same with or without it.
// - Only bytes inside [begin, end) are touched: the range is narrowed to the 16-byte boundaries
//   inside it (the instruction's alignment rule); an empty result issues nothing.
// - One thread issues it; below sm_90 (and on the host pass) it does nothing.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

__device__ __forceinline__ void prefetch_l2_bulk(const void* begin, const void* end) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + 15) & ~uintptr_t{15};
  const uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~uintptr_t{15};
  if (e > b)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(b), "r"(static_cast<uint32_t>(e - b)));
#else
  (void)begin;
  (void)end;
#endif
}

ROWWISE_NAMESPACE_END
