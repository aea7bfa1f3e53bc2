// rowwise/primitives/async_copy.cuh — per-thread asynchronous copies of 4, 8 or 16 bytes from
// global to shared memory (cp.async, sm_80+), committed and awaited in groups.
//
// Contract
// - Both addresses are aligned to the copy's size (16 bytes for copy16).
// - A thread's copies since its last commit() form one group; wait<P>() returns once at most P
//   of the thread's groups are still in flight, and the bytes of the others are then visible to
//   that thread (only: other threads need a barrier as well).
// - copy: 16-byte copies go through L2 only (.cg): the data is read once, into shared memory;
//   4- and 8-byte copies may allocate in L1 (.ca: the only form PTX has for them). copy_ca: every
//   size through L1 (.ca), for data that many CTAs copy at once (the norms' weights: see
//   kernels/column_stage.cuh for where each form measured faster).
// - On targets below sm_80 nothing is copied: callers test `available`.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace async_copy {

/// Whether this target has cp.async (device code; false on the host pass and below sm_80).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
inline constexpr bool available = true;
#else
inline constexpr bool available = false;
#endif

__device__ __forceinline__ void copy16(void* dst_shared, const void* src_global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(dst_shared))),
               "l"(src_global)
               : "memory");
#endif
}

/// Copy Bytes (4, 8 or 16) bytes through L1 (.ca).
template <int Bytes>
__device__ __forceinline__ void copy_ca(void* dst_shared, const void* src_global) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(dst_shared))),
               "l"(src_global), "n"(Bytes)
               : "memory");
#endif
}

/// Copy Bytes (4, 8 or 16) bytes (16: through L2 only).
template <int Bytes>
__device__ __forceinline__ void copy(void* dst_shared, const void* src_global) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16)
    copy16(dst_shared, src_global);
  else
    copy_ca<Bytes>(dst_shared, src_global);
}

__device__ __forceinline__ void commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int Pending>
__device__ __forceinline__ void wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

}  // namespace async_copy
ROWWISE_NAMESPACE_END
