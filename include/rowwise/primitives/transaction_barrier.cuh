// rowwise/primitives/transaction_barrier.cuh — a shared-memory barrier whose phase completes
// when its arrivals have arrived and the bytes it expects have landed (mbarrier, sm_90+).
//
// Contract
// - One thread init()s a barrier, then init_fence(), then the block (or cluster) synchronises
//   before any use.
// - Per phase: one thread arms it with expect_bytes(n) (that is its arrival); asynchronous
//   stores that name the barrier (st.async from any CTA of the cluster) count their bytes; the
//   phase completes when all n bytes have landed. Threads wait(b, parity) with the phase's parity
//   (0, 1, 0, ... per reuse); after the wait, the bytes are visible to ordinary loads.
// - Compiled for an architecture before sm_90 every call does nothing; the dispatch never runs a
//   kernel using them there.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace mbarrier {

struct alignas(8) barrier {
  uint64_t word;
};

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void init(barrier* b, unsigned arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(b)), "r"(arrivals)
               : "memory");
#endif
}

/// Makes initialised barriers visible to the other CTAs of the cluster and to the async proxy.
__device__ __forceinline__ void init_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// The arriving thread announces `bytes` still to land in this phase (one arrival).
__device__ __forceinline__ void expect_bytes(barrier* b, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(b)),
               "r"(bytes)
               : "memory");
#endif
}

/// Block until the phase with this parity has completed (a polling loop of test_wait).
__device__ __forceinline__ void wait(barrier* b, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(b)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

}  // namespace mbarrier
ROWWISE_NAMESPACE_END
