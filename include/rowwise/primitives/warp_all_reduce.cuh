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
// - Maxima (max_reducer, and the m of online_softmax_reducer) over a whole warp are one integer
//   redux.sync (sm_80+) on an order-preserving key of the float instead of a five-level shuffle
//   butterfly: exact, the same in every lane, NaN of either sign kept. Every row's all-reduce
//   sits in its dependent chain, and the butterfly's shuffle latency showed there (bench/NOTES.md
//   27: fp32 log_softmax 1 / 128 x 4096 1.57 / 2.16 -> 1.39 / 1.96 us, fp32 softmax 1 x 152064
//   3.47 -> 3.21). Groups of fewer lanes keep the butterfly (one redux per group would need a
//   mask per group in one instruction), unless the caller vouches that the warp is replicated:
// - warp_all_reduce_replicated<G>: for warps whose aligned groups of G lanes all hold the same
//   values lane by lane (block_all_reduce's warp partials, cluster_push_reduce's CTA partials:
//   lane l takes partial l mod G). The result is warp_all_reduce<G>'s; its maxima, which repeated
//   operands do not change, are taken over the whole warp by redux. Shifted Welford summaries
//   (a cluster's CTAs' LayerNorm moments) are re-expressed relative to one shared shift, lane 0's
//   (every group's first operand), and their sums added by one butterfly, with one division at
//   the end (shifted_welford_reducer::rebase_summary / from_two_pass): the same summary up to rounding as
//   the pairwise Chan merges, each of which divides and tests both sides for emptiness.
//   Raw two-pass sums (shifted_two_pass_reducer) are rebased to lane 0's shift and added the
//   same way, without the division: the caller divides once (from_two_pass).
//
// Why not cub::WarpReduce: it delivers the aggregate to lane 0 only, and a broadcast afterwards
// costs another shuffle round per word; the xor butterfly gives every lane the result in log2(G)
// steps, the same number of shuffles CUB's reduction takes.
#pragma once

#include <cuda/std/limits>
#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/primitives/shuffle.cuh"
#include "rowwise/reduce/max_sum.cuh"
#include "rowwise/reduce/online_softmax.cuh"
#include "rowwise/reduce/shifted_welford.cuh"

ROWWISE_NAMESPACE_BEGIN

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

/// The maximum of x over the whole warp, in every lane: one redux.sync of the order-preserving
/// integer key max_key (reduce/max_sum.cuh; sm_80+, the butterfly before). A NaN of either sign
/// wins, as max_reducer's does, and comes back as the NaN 0x7FFFFFFF; -0 and +0 give +0
/// (max_reducer may keep -0; the value is the same).
__device__ __forceinline__ float warp_max(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return from_max_key(__reduce_max_sync(0xffffffffu, max_key(x)));
#else
  return butterfly_all_reduce<32>(x, max_reducer{});
#endif
}

/// The maximum over each aligned group of GroupSize lanes; MaxLanes = 32 when every group holds
/// the same values (a replicated warp), which lets it take the whole warp's.
template <int GroupSize, int MaxLanes = GroupSize>
__device__ __forceinline__ float group_max(float x) {
  if constexpr (MaxLanes == 32)
    return warp_max(x);
  else
    return butterfly_all_reduce<GroupSize>(x, max_reducer{});
}

/// Shifted Welford summaries of a replicated warp: each lane's summary as sums relative to S =
/// lane 0's shift (shifted_welford_reducer::rebase_summary: c = n d, q = M2 + n d^2 with d its
/// mean minus S), one sum butterfly, then from_two_pass(N, S, Q, C). Empty lanes (n = 0) add nothing; a
/// NaN in any summary reaches c or q, hence the result. S is a shift of the row's data (a warp's
/// mean), so (mean - S)^2 stays within a few times the variance and Q - C^2 / N loses no more
/// than the block level's rebase does (registers_kernel.cuh: two_pass_moments).
template <int GroupSize>
__device__ __forceinline__ shifted_welford_value shifted_welford_all_reduce_replicated(shifted_welford_value v) {
  const float shared = __shfl_sync(0xffffffffu, v.shift, 0);
  const shifted_sums t =
      butterfly_all_reduce<GroupSize>(shifted_welford_reducer::rebase_summary(v, shared), shifted_sums_reducer{});
  return shifted_welford_reducer::from_two_pass(t.n, shared, t.q, t.c);
}

/// Exact two-pass sums of a replicated warp (shifted_two_pass_reducer: a cluster's CTAs' row
/// sums): each lane's sums re-expressed relative to S = lane 0's shift (shifted_welford_reducer::
/// rebase), one sum butterfly; the result is relative to S, undivided. Empty lanes (n = 0: padding
/// past the cluster) add zeros whatever their shift. S is a shift of the row's data, as above.
template <int GroupSize>
__device__ __forceinline__ shifted_two_pass shifted_two_pass_all_reduce_replicated(shifted_two_pass v) {
  const float shared = __shfl_sync(0xffffffffu, v.s, 0);
  const shifted_sums mine = v.n > 0.0f ? shifted_welford_reducer::rebase(v.n, v.s, v.c, v.q, shared)
                                       : shifted_sums_reducer::identity();
  const shifted_sums t = butterfly_all_reduce<GroupSize>(mine, shifted_sums_reducer{});
  return {t.n, shared, t.c, t.q};
}

/// online_softmax_reducer in two steps: max of m, then the sum of each lane's d rescaled to it.
/// Semantics as the pairwise merge: an all -inf (or empty) group gives (-inf, sum of d) = (-inf,
/// 0); a NaN d survives (NaN * anything); a +inf m makes every finite side's factor 0 and its own
/// inf - inf a NaN.
template <int GroupSize, int MaxLanes = GroupSize>
__device__ __forceinline__ online_softmax_value online_softmax_all_reduce(online_softmax_value v) {
  const float m = group_max<GroupSize, MaxLanes>(v.m);
  float d = m == -cuda::std::numeric_limits<float>::infinity()
                ? v.d
                : v.d * online_softmax_reducer::rescale(v.m - m);
  d = butterfly_all_reduce<GroupSize>(d, sum_reducer{});
  return {m, d};
}

/// Both entry points below: Replicated lets maxima take the whole warp and shifted Welford
/// summaries take the rebased sums (warp_all_reduce_replicated's contract).
template <int GroupSize, bool Replicated, class Reducer>
__device__ __forceinline__ typename Reducer::value_type all_reduce(typename Reducer::value_type v, Reducer op) {
  static_assert(GroupSize >= 1 && GroupSize <= 32 && (GroupSize & (GroupSize - 1)) == 0,
                "group size must be a power of two no larger than a warp");
  constexpr int max_lanes = Replicated ? 32 : GroupSize;
  if constexpr (std::is_same_v<Reducer, online_softmax_reducer>)
    return online_softmax_all_reduce<GroupSize, max_lanes>(v);
  else if constexpr (std::is_same_v<Reducer, max_reducer>)
    return group_max<GroupSize, max_lanes>(v);
  else if constexpr (Replicated && GroupSize > 1 && std::is_same_v<Reducer, shifted_welford_reducer>)
    return shifted_welford_all_reduce_replicated<GroupSize>(v);
  else if constexpr (Replicated && GroupSize > 1 && std::is_same_v<Reducer, shifted_two_pass_reducer>)
    return shifted_two_pass_all_reduce_replicated<GroupSize>(v);
  else
    return butterfly_all_reduce<GroupSize>(v, op);
}

}  // namespace detail

template <int GroupSize, class Reducer>
__device__ __forceinline__ typename Reducer::value_type warp_all_reduce(
    typename Reducer::value_type v, Reducer op = {}) {
  return detail::all_reduce<GroupSize, /*Replicated=*/false>(v, op);
}

/// warp_all_reduce<GroupSize> for a replicated warp: lanes l and l + k * GroupSize hold the same
/// value (every lane of the warp calls it). Same result; maxima over the whole warp (redux),
/// shifted Welford summaries by rebased sums.
template <int GroupSize, class Reducer>
__device__ __forceinline__ typename Reducer::value_type warp_all_reduce_replicated(
    typename Reducer::value_type v, Reducer op = {}) {
  return detail::all_reduce<GroupSize, /*Replicated=*/true>(v, op);
}

ROWWISE_NAMESPACE_END
