// rowwise/primitives/cluster_shape.cuh — the running CTA's place in its thread-block cluster.
#pragma once

#include <cooperative_groups.h>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

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

/// x / ctas for a cluster size ctas that is a power of two (the dispatch launches clusters of
/// 1, 2, 4, 8 or 16 CTAs): a shift. A division by a run-time value is ~25 dependent instructions,
/// ahead of a kernel's first load (rowwise_bench small shapes, bench/NOTES.md 21).
__device__ __forceinline__ unsigned per_cluster(unsigned x, unsigned ctas) {
  return x >> (__ffs(static_cast<int>(ctas)) - 1);
}

ROWWISE_NAMESPACE_END
