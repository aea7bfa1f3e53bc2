// rowwise/kernels/row_all_reduce.cuh — all-reduce over the threads that share one row.
//
// A strategy gives each row to G threads: an aligned group of a warp (G <= 32, several rows per
// block), or the whole block (G == Block), and then possibly the whole cluster of blocks. This
// picks the primitive for each case, so kernels only say "reduce over my row".
#pragma once

#include <cstdint>
#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/primitives/block_all_reduce.cuh"
#include "rowwise/primitives/cluster_all_reduce.cuh"
#include "rowwise/primitives/warp_all_reduce.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Largest cluster a strategy may be launched with (16 needs the non-portable attribute).
inline constexpr int max_cluster_size = 16;

/// Every thread of the block calls start(s) once at kernel entry, reduce(...) for row steps
/// 0, 1, 2, ... (the same steps in every CTA of a cluster), and finish(steps) once before exit
/// (cluster_all_reduce's contract; without a cluster, start and finish do nothing).
template <int G, int Block, class Reducer>
struct row_all_reduce {
  static_assert(G <= 32 ? Block % G == 0 : G == Block, "a row is a warp group or the whole block");
  static constexpr bool whole_block = G == Block && G > 32;
  static constexpr bool clustered = G == Block;  // only whole-block rows are split over clusters
  using value_type = typename Reducer::value_type;
  using block_reduce = block_all_reduce<(Block > 32 ? Block : 32), Reducer>;
  using cluster_reduce = cluster_all_reduce<clustered ? max_cluster_size : 1, Reducer>;
  static_assert(!clustered || Block >= max_cluster_size, "a clustered row has a thread per peer CTA");

  using cluster_storage = std::conditional_t<clustered, typename cluster_reduce::storage, char>;
  struct storage {
    typename block_reduce::storage block[2];
    cluster_storage cluster;
  };

  __device__ __forceinline__ static void start(storage& s) { start_cluster(s.cluster); }
  __device__ __forceinline__ static void start_cluster(cluster_storage& c) {
    if constexpr (clustered) cluster_reduce::start(c);
  }

  /// The cluster step alone, for rows whose CTA reduces its threads by other means
  /// (two_pass_moments): v is the CTA's value (the same in every thread); returns the row's,
  /// bit-identical in every thread (v itself when rows are not split over clusters).
  __device__ __forceinline__ static value_type reduce_cta_values(value_type v, cluster_storage& c, int64_t step,
                                                                 Reducer op = {}) {
    if constexpr (clustered)
      return cluster_reduce::reduce(v, c, step, op);
    else
      return v;
  }

  /// Result in every thread, bit-identical across the row. The block storages alternate by
  /// step, so one block barrier per step suffices.
  __device__ __forceinline__ static value_type reduce(value_type v, storage& s, int64_t step,
                                                      Reducer op = {}) {
    if constexpr (G <= 32 && !clustered) {
      return warp_all_reduce<G>(v, op);
    } else {
      if constexpr (whole_block)
        v = block_reduce::reduce(v, s.block[step & 1], op);
      else
        v = warp_all_reduce<32>(v, op);
      return reduce_cta_values(v, s.cluster, step, op);
    }
  }

  __device__ __forceinline__ static void finish(int64_t steps) {
    if constexpr (clustered) cluster_reduce::finish(steps);
  }

  __device__ __forceinline__ static int cluster_size() { return static_cast<int>(cluster_reduce::size()); }
  __device__ __forceinline__ static int cluster_rank() { return static_cast<int>(cluster_reduce::rank()); }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
