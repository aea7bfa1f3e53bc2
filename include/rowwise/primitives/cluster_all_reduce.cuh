// rowwise/primitives/cluster_all_reduce.cuh — all-reduce over the CTAs of a thread-block cluster
// through distributed shared memory (sm_90+).
//
// Contract
// - Called by every thread of every CTA of the cluster, each thread holding its CTA's
//   aggregate (for example the result of block_all_reduce), the same in every thread of a CTA.
// - Returns the cluster aggregate in EVERY thread of every CTA, bit-identical everywhere: the
//   partials are merged in cluster-rank order by each thread.
// - One cluster barrier per call: thread 0 of each CTA writes its partial into slot [rank] of
//   every CTA's storage (a push), then the cluster synchronises, then each thread reads its own
//   CTA's slots. No workspace in global memory.
// - `storage` lives in each CTA's shared memory at the same offset. Successive calls must
//   alternate `parity` (0, 1, 0, ...): the barrier of call i+1 orders the reads of call i before
//   the pushes of call i+2 into the same buffer. A CTA must not exit while another can still
//   push into it; every push precedes the barrier that its target also waits on, so returning
//   after the last call is safe.
#pragma once

#include <cooperative_groups.h>

namespace rowwise {

template <int ClusterSize, class Reducer>
struct cluster_all_reduce {
  static_assert(ClusterSize >= 1 && ClusterSize <= 16, "cluster size is 1..16 CTAs");
  using value_type = typename Reducer::value_type;

  struct storage {
    value_type slot[2][ClusterSize];
  };

  __device__ __forceinline__ static value_type reduce(value_type block_value, storage& s,
                                                      int parity, Reducer op = {}) {
    if constexpr (ClusterSize == 1) {
      return block_value;
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      namespace cg = cooperative_groups;
      cg::cluster_group cluster = cg::this_cluster();
      const unsigned rank = cluster.block_rank();
      if (threadIdx.x < ClusterSize) {
        // Thread t pushes this CTA's partial into CTA t: ClusterSize stores issued in parallel.
        storage* remote = cluster.map_shared_rank(&s, threadIdx.x);
        remote->slot[parity][rank] = block_value;
      }
      cluster.sync();  // release/acquire: the pushes are visible to every CTA after it
      value_type v = s.slot[parity][0];
#pragma unroll
      for (int r = 1; r < ClusterSize; ++r) v = op(v, s.slot[parity][r]);
      return v;
#else
      // Clusters do not exist before sm_90; the dispatch never plans ClusterSize > 1 there.
      __trap();
      return block_value;
#endif
    }
  }
};

}  // namespace rowwise
