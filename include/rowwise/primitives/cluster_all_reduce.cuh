// rowwise/primitives/cluster_all_reduce.cuh — all-reduce over the CTAs of a thread-block cluster
// through distributed shared memory (sm_90+), one call per row step.
//
// Contract
// - The kernel was launched with clusters of at most MaxClusterSize CTAs (1-D cluster) and at
//   least MaxClusterSize threads per CTA; the actual size is read at run time, so one
//   instantiation serves every cluster size, and a launch without clusters (a cluster of one)
//   returns the block value untouched.
// - Every thread of every CTA calls start(s) once at kernel entry, reduce(v, s, step) for steps
//   0, 1, 2, ... (the same steps in every CTA of the cluster), each thread holding its CTA's
//   aggregate (the same in every thread of a CTA, e.g. from block_all_reduce), and finish(steps)
//   once before exit. `storage` lives in each CTA's shared memory at the same offset.
// - reduce returns the cluster aggregate in EVERY thread of every CTA, bit-identical everywhere:
//   every warp merges the partials by the same butterfly (cluster_push_reduce::collect).
//
// How: cluster_push_reduce (asynchronous remote stores counted on each receiver's transaction
// barrier), not a cluster barrier per step. A barrier.cluster arrive has release semantics: it
// waits until the CTA's earlier global stores (the previous row's outputs) have drained, and
// every CTA then waits for the slowest one. Measured on the H200 (bench/NOTES.md 20): rows in
// registers over clusters of 4-8 CTAs went from 77-79 % to 86-91 % of the copy floor.
// - start: thread 0 initialises the CTA's exchange barriers; every thread arrives (release) on the
//   cluster barrier, which the first reduce waits on (acquire) before its first push: the wait
//   overlaps the first row's loads instead of preceding them.
// - finish: a CTA has received every peer's pushes when its last reduce returns, but its own last
//   pushes may still be landing in a peer; a relaxed cluster barrier (nothing to order, so no
//   store drain) keeps it alive until every peer has collected them.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/primitives/cluster_push_reduce.cuh"
#include "rowwise/primitives/cluster_shape.cuh"

ROWWISE_NAMESPACE_BEGIN

template <int MaxClusterSize, class Reducer>
struct cluster_all_reduce {
  static_assert(MaxClusterSize >= 1 && MaxClusterSize <= 16, "cluster size is 1..16 CTAs");
  using value_type = typename Reducer::value_type;
  using exchange = cluster_push_reduce<MaxClusterSize, MaxClusterSize, Reducer>;
  using storage = typename exchange::storage;

  /// CTAs in this CTA's cluster (1 without clusters or before sm_90).
  __device__ __forceinline__ static unsigned size() {
    if constexpr (MaxClusterSize == 1) return 1;  // known at compile time: no cluster
    return cluster_ctas();
  }

  /// This CTA's rank in its cluster (0 without clusters).
  __device__ __forceinline__ static unsigned rank() {
    if constexpr (MaxClusterSize == 1) return 0;
    return cluster_cta_rank();
  }

  /// Every thread, once, at kernel entry.
  __device__ __forceinline__ static void start(storage& s) {
    if constexpr (MaxClusterSize > 1) {
      const unsigned csize = size();
      if (csize <= 1) return;
      if (threadIdx.x == 0) {
        exchange::init(s);
        mbarrier::init_fence();
      }
      exchange::start_arrive(csize);
    }
  }

  /// Every thread, for steps 0, 1, 2, ...: the cluster aggregate of the CTAs' values.
  __device__ __forceinline__ static value_type reduce(value_type block_value, storage& s, int64_t step,
                                                      Reducer op = {}) {
    if constexpr (MaxClusterSize > 1) {
      const unsigned csize = size();
      if (csize > 1) {
        if (step == 0) exchange::start_wait(csize);  // every peer's barriers are initialised
        exchange::push(block_value, s, csize, rank(), step);
        return exchange::collect(block_value, s, csize, step, op);
      }
    }
    return block_value;
  }

  /// Every thread, once, before exit, with the number of reduce() calls it made.
  __device__ __forceinline__ static void finish(int64_t steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (MaxClusterSize > 1) {
      const unsigned csize = size();
      if (csize > 1) {
        if (steps == 0) exchange::start_wait(csize);  // start's arrival is still open
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
      }
    }
#endif
  }
};

ROWWISE_NAMESPACE_END
