// rowwise/primitives/cluster_shape.cuh — the running CTA's place in its thread-block cluster.
#pragma once

#include <cooperative_groups.h>

namespace rowwise {

/// CTAs in this CTA's cluster (1 without clusters or before sm_90).
__device__ __forceinline__ unsigned cluster_ctas() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().num_blocks();
#else
  return 1;
#endif
}

/// This CTA's rank in its cluster (0 without clusters).
__device__ __forceinline__ unsigned cluster_cta_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().block_rank();
#else
  return 0;
#endif
}

}  // namespace rowwise
