// rowwise/primitives/cluster_all_reduce.cuh — all-reduce over the CTAs of a thread-block cluster
// through distributed shared memory (sm_90+).
//
// Contract
// - The kernel was launched with clusters of at most MaxClusterSize CTAs (1-D cluster); the
//   actual size is read at run time, so one instantiation serves every cluster size, and a
//   launch without clusters (a cluster of one) returns the block value untouched.
// - Called by every thread of every CTA of the cluster, each thread holding its CTA's
//   aggregate (for example the result of block_all_reduce), the same in every thread of a CTA.
// - Returns the cluster aggregate in EVERY thread of every CTA, bit-identical everywhere: the
//   partials are merged in cluster-rank order by each thread.
// - One cluster barrier per call: thread 0 of each CTA writes its partial into slot [rank] of
//   every CTA's storage (a push), then the cluster synchronises, then each thread reads its own
//   CTA's slots. No workspace in global memory.
// - Distributed shared memory may only be written once every CTA of the cluster has started.
//   So every thread calls announce_start() once at kernel entry (a relaxed cluster arrive,
//   which costs nothing to wait for), and passes first_call = true to its first reduce(),
//   which waits on that barrier before its pushes; the wait overlaps the row's loads instead
//   of preceding them.
// - `storage` lives in each CTA's shared memory at the same offset. Successive calls must
//   alternate `parity` (0, 1, 0, ...): the barrier of call i+1 orders the reads of call i before
//   the pushes of call i+2 into the same buffer. A CTA must not exit while another can still
//   push into it; every push precedes the barrier that its target also waits on, so returning
//   after the last call is safe.
#pragma once

#include <cooperative_groups.h>

#include "rowwise/primitives/cluster_shape.cuh"

namespace rowwise {

template <int MaxClusterSize, class Reducer>
struct cluster_all_reduce {
  static_assert(MaxClusterSize >= 1 && MaxClusterSize <= 16, "cluster size is 1..16 CTAs");
  using value_type = typename Reducer::value_type;

  struct storage {
    value_type slot[2][MaxClusterSize];
  };

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

  /// Every thread, once, at kernel entry (no-op without a cluster).
  __device__ __forceinline__ static void announce_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (MaxClusterSize > 1) {
      if (size() > 1) asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    }
#endif
  }

  __device__ __forceinline__ static value_type reduce(value_type block_value, storage& s,
                                                      int parity, bool first_call,
                                                      Reducer op = {}) {
    if constexpr (MaxClusterSize == 1) {
      return block_value;
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      namespace cg = cooperative_groups;
      cg::cluster_group cluster = cg::this_cluster();
      const unsigned csize = cluster.num_blocks();
      if (csize == 1) return block_value;
      const unsigned my_rank = cluster.block_rank();
      if (first_call) asm volatile("barrier.cluster.wait.aligned;" ::: "memory");  // all started
      if (threadIdx.x < csize) {
        // Thread t pushes this CTA's partial into CTA t: the stores go out in parallel.
        storage* remote = cluster.map_shared_rank(&s, threadIdx.x);
        remote->slot[parity][my_rank] = block_value;
      }
      cluster.sync();  // release/acquire: the pushes are visible to every CTA after it
      value_type v = s.slot[parity][0];
#pragma unroll
      for (int r = 1; r < MaxClusterSize; ++r)
        if (r < static_cast<int>(csize)) v = op(v, s.slot[parity][r]);
      return v;
#else
      return block_value;  // no clusters before sm_90: the dispatch never plans them there
#endif
    }
  }
};

}  // namespace rowwise
