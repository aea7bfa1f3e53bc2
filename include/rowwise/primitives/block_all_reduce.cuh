// rowwise/primitives/block_all_reduce.cuh — all-reduce over a whole thread block.
//
// Contract
// - BlockThreads is the block size: a multiple of 32, from 32 to 1024. Every thread of the block
//   must call it (it contains a __syncthreads()).
// - The result is returned in EVERY thread, bit-identical across the block: each warp reduces
//   with the butterfly, lane 0 of each warp publishes its partial, and after one barrier every
//   warp reduces the same partials in the same order.
// - `storage` is the shared memory it uses. It may be reused (by another call or anything
//   else) only after a further __syncthreads(), because slow warps may still be reading it
//   when fast ones return. Kernels that reduce once per row alternate two storages instead,
//   which is safe because the barrier of call i+1 separates the reads of call i from the
//   writes of call i+2.
//
// Why one barrier and not cub::BlockReduce: BlockReduce returns the aggregate in thread 0
// only; broadcasting it takes a second barrier, which on a row that is one block's whole work
// item is latency that shows.
#pragma once

#include "rowwise/abi.hpp"
#include "rowwise/primitives/warp_all_reduce.cuh"

ROWWISE_NAMESPACE_BEGIN

template <int BlockThreads, class Reducer>
struct block_all_reduce {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "block size must be a multiple of 32 in [32, 1024]");
  using value_type = typename Reducer::value_type;
  static constexpr int warps = BlockThreads / 32;

  struct storage {
    value_type warp_partial[warps];
  };

  __device__ __forceinline__ static value_type reduce(value_type v, storage& s, Reducer op = {}) {
    return reduce_warp_values(warp_all_reduce<32>(v, op), s, op);
  }

  /// The same when each warp contributes one value that all its lanes already hold (a warp's
  /// own all-reduce result): the warp step is skipped, and warp w's value enters as the w-th
  /// operand. Same contract and storage rules as reduce().
  __device__ __forceinline__ static value_type reduce_warp_values(value_type v, storage& s,
                                                                  Reducer op = {}) {
    if constexpr (warps == 1) {
      return v;
    } else {
      const int lane = threadIdx.x % 32;
      const int warp = threadIdx.x / 32;
      if (lane == 0) s.warp_partial[warp] = v;
      __syncthreads();
      // Each aligned group of `pow2` lanes loads all warp partials (identity-padded) and reduces
      // them in the same order, so every lane of every warp ends with the same bits. The groups
      // hold the same values: a replicated warp (warp_all_reduce_replicated).
      constexpr int pow2 = warp_group_for(warps);
      const int slot = lane % pow2;
      const value_type w = slot < warps ? s.warp_partial[slot] : Reducer::identity();
      return warp_all_reduce_replicated<pow2>(w, op);
    }
  }
};

ROWWISE_NAMESPACE_END
