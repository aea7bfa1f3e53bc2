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
// - online_softmax_reducer is all-reduced in two steps instead of by pairwise merges: the
//   group's maximum m (a max butterfly, exact), then each lane rescales its own d once to m and
//   the rescaled d are summed (a sum butterfly). The same result up to rounding (each d is
//   rescaled once instead of once per level) for a fraction of the instructions: a pairwise
//   merge costs two exponentials, a max and a branch per level, ~70 instructions over a warp.
//   Measured on the H200 (bench/NOTES.md 20): 16-bit softmax of 128-512 columns 88-94 -> 97-101 %
//   of the copy floor, 8192-16384 columns 74-89 -> 86-96 %.
//
// Why not cub::WarpReduce: it delivers the aggregate to lane 0 only, and a broadcast afterwards
// costs another shuffle round per word; the xor butterfly gives every lane the result in log2(G)
// steps, the same number of shuffles CUB's reduction takes.
#pragma once

#include <cuda/std/limits>
#include <type_traits>

#include "rowwise/primitives/shuffle.cuh"
#include "rowwise/reduce/max_sum.cuh"
#include "rowwise/reduce/online_softmax.cuh"

namespace rowwise {

/// The smallest group size warp_all_reduce takes (a power of two, at most a warp) that holds n
/// values one per lane: the lanes over which warp, CTA or cluster partials are merged.
__host__ __device__ constexpr int warp_group_for(int n) {
  return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32;
}

namespace detail {

/// The plain xor butterfly of any reduction operator.
template <int GroupSize, class Reducer>
__device__ __forceinline__ typename Reducer::value_type butterfly_all_reduce(
    typename Reducer::value_type v, Reducer op) {
#pragma unroll
  for (int offset = GroupSize / 2; offset > 0; offset /= 2) {
    const typename Reducer::value_type other = shfl_xor(0xffffffffu, v, offset, GroupSize);
    v = (threadIdx.x & offset) ? op(other, v) : op(v, other);
  }
  return v;
}

/// online_softmax_reducer in two steps: max of m, then the sum of each lane's d rescaled to it.
/// Semantics as the pairwise merge: an all -inf (or empty) group gives (-inf, sum of d) = (-inf,
/// 0); a NaN d survives (NaN * anything); a +inf m makes every finite side's factor 0 and its own
/// inf - inf a NaN.
template <int GroupSize>
__device__ __forceinline__ online_softmax_value online_softmax_all_reduce(online_softmax_value v) {
  const float m = butterfly_all_reduce<GroupSize>(v.m, max_reducer{});
  float d = m == -cuda::std::numeric_limits<float>::infinity()
                ? v.d
                : v.d * online_softmax_reducer::rescale(v.m - m);
  d = butterfly_all_reduce<GroupSize>(d, sum_reducer{});
  return {m, d};
}

}  // namespace detail

template <int GroupSize, class Reducer>
__device__ __forceinline__ typename Reducer::value_type warp_all_reduce(
    typename Reducer::value_type v, Reducer op = {}) {
  static_assert(GroupSize >= 1 && GroupSize <= 32 && (GroupSize & (GroupSize - 1)) == 0,
                "group size must be a power of two no larger than a warp");
  if constexpr (std::is_same_v<Reducer, online_softmax_reducer>)
    return detail::online_softmax_all_reduce<GroupSize>(v);
  else
    return detail::butterfly_all_reduce<GroupSize>(v, op);
}

}  // namespace rowwise
