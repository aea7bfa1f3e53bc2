// rowwise/primitives/async_copy.cuh — per-thread asynchronous copies of 16 bytes from global to
// shared memory (cp.async, sm_80+), committed and awaited in groups.
//
// Contract
// - Both addresses are 16-byte aligned.
// - A thread's copies since its last commit() form one group; wait<P>() returns once at most P
//   of the thread's groups are still in flight, and the bytes of the others are then visible to
//   that thread (only: other threads need a barrier as well).
// - The copies go through L2 only (.cg): the data is read once, into shared memory.
#pragma once

#include <cstdint>

namespace rowwise {
namespace async_copy {

__device__ __forceinline__ void copy16(void* dst_shared, const void* src_global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   static_cast<uint32_t>(__cvta_generic_to_shared(dst_shared))),
               "l"(src_global)
               : "memory");
#endif
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
}  // namespace rowwise
