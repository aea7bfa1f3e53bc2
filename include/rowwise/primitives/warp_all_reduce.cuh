// rowwise/primitives/warp_all_reduce.cuh — all-reduce over a group of 1, 2, 4, ..., 32 lanes.
//
// Contract
// - GroupSize lanes of one warp that are aligned to GroupSize (lanes [k*G, k*G + G)) form a
//   group; every group of the warp reduces independently.
// - Every lane of the warp must call it (the shuffles are warp-synchronous with a full mask),
//   with the same GroupSize and an operator from reduce/.
// - The result is returned in EVERY lane of the group, bit-identical across the lanes: at each
//   butterfly step both partners merge (lower lane's value, upper lane's value) in that order,
//   so merges that are commutative only up to rounding (Welford) still agree everywhere.
// - No shared memory, no barrier.
//
// Why not cub::WarpReduce: it delivers the aggregate to lane 0 only, and a broadcast afterwards
// costs another shuffle round per word; the xor butterfly gives every lane the result in log2(G)
// steps, the same number of shuffles CUB's reduction takes.
#pragma once

#include "rowwise/primitives/shuffle.cuh"

namespace rowwise {

template <int GroupSize, class Reducer>
__device__ __forceinline__ typename Reducer::value_type warp_all_reduce(
    typename Reducer::value_type v, Reducer op = {}) {
  static_assert(GroupSize >= 1 && GroupSize <= 32 && (GroupSize & (GroupSize - 1)) == 0,
                "group size must be a power of two no larger than a warp");
#pragma unroll
  for (int offset = GroupSize / 2; offset > 0; offset /= 2) {
    const typename Reducer::value_type other = detail::shfl_xor(0xffffffffu, v, offset, GroupSize);
    v = (threadIdx.x & offset) ? op(other, v) : op(v, other);
  }
  return v;
}

}  // namespace rowwise
