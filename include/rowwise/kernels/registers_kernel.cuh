// rowwise/kernels/registers_kernel.cuh — the row (or the block's segment of it) held in registers.
//
// One template covers three regimes of DESIGN.md by its G (threads per row):
//   G = 1..16  sub-warp groups, several rows per warp, shuffles only;
//   G = 32     one warp per row, no shared memory, no barrier;
//   G = Block  one block per row (optionally a cluster of blocks per row, each holding a
//              contiguous segment of K * G packs and merging partials through DSMEM).
// Each thread loads its K packs (all in flight at once), the op reduces them in registers,
// the row is all-reduced, and the same registers are rewritten: one read and one write per
// element. Blocks (clusters) loop over row steps; the launcher gives one CTA per step except
// for clusters, whose grid is persistent.
#pragma once

#include <type_traits>

#include "rowwise/kernels/grid_dependency.cuh"
#include "rowwise/kernels/row_all_reduce.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"
#include "rowwise/kernels/thread_packs.cuh"
#include "rowwise/dispatch/policy.hpp"

namespace rowwise {
namespace kernels {

/// Ops that declare `two_pass = true` (row_op.cuh) reduce in two all-reduces when a CTA holds
/// the whole row; the others (and every op split over a cluster) in one.
template <class Op, class = void>
struct op_two_pass : std::false_type {};
template <class Op>
struct op_two_pass<Op, std::enable_if_t<Op::two_pass>> : std::true_type {};

/// Shared memory of the two all-reduces of a two-pass op (an empty byte otherwise).
template <class Op, int G, int Block, bool = op_two_pass<Op>::value>
struct two_pass_storage {
  using first = char;
  using second = char;
};
template <class Op, int G, int Block>
struct two_pass_storage<Op, G, Block, true> {
  using first = typename row_all_reduce<G, Block, typename Op::first_reducer>::storage;
  using second = typename row_all_reduce<G, Block, typename Op::second_reducer>::storage;
};

/// segment_packs: packs of a row per CTA when rows are split over a cluster (<= K * G); the
/// CTA of rank r takes packs [r * segment_packs, (r + 1) * segment_packs). Without a cluster
/// it is K * G (the whole row fits one CTA).
template <class Op, class T, int N, int G, int K, int Block>
__global__ void __maxnreg__(dispatch::max_registers(Op::fuses_residual, Op::column_params, static_cast<int>(sizeof(T))))
registers_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using row_reduce = row_all_reduce<G, Block, reducer>;
  constexpr int rows_per_step = Block / G;

  __shared__ typename row_reduce::storage smem;
  __shared__ typename two_pass_storage<Op, G, Block>::first smem_first;
  __shared__ typename two_pass_storage<Op, G, Block>::second smem_second;

  const int lane = static_cast<int>(threadIdx.x) % G;
  const int group = static_cast<int>(threadIdx.x) / G;
  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int64_t step = static_cast<int64_t>(gridDim.x / csize) * rows_per_step;

  wait_for_prior_grids();  // before any global memory access (grid_dependency.cuh)
  allow_dependent_grids();
  row_reduce::announce_start();
  int parity = 0;
  bool first = true;
  // The loop bound depends only on the block (cluster), so whole warps and blocks iterate
  // together and every shuffle / barrier is reached by all threads; rows past the end are masked.
  for (int64_t base = static_cast<int64_t>(blockIdx.x / csize) * rows_per_step; base < io.rows;
       base += step, parity ^= 1) {
    const int64_t row = base + group;
    const bool active = row < io.rows;
    const int64_t r = active ? row : 0;
    const T* in_row = io.in + r * io.in_stride;
    T* out_row = io.out + r * io.out_stride;
    T* res_row = Op::fuses_residual ? io.residual + r * io.residual_stride : nullptr;
    const int head = row_head<N>(in_row);
    const int64_t seg_begin = rank * segment_packs;
    const int64_t seg_end = seg_begin + segment_packs;

    const thread_packs<K, G, N> tp(active, seg_begin + lane, seg_end, io.cols, head);
    float v[K * N];
    slot_mask<K * N> ok;
    load_op_packs<Op, dispatch::row_load_policy, dispatch::streaming_stores>(tp, in_row, res_row, v, ok);

    typename Op::state st;
    if constexpr (op_two_pass<Op>::value) {
      if (csize == 1) {
        // The whole row is in this CTA: exact two-pass moments (layer_norm_op.cuh says why).
        using first_reduce = row_all_reduce<G, Block, typename Op::first_reducer>;
        using second_reduce = row_all_reduce<G, Block, typename Op::second_reducer>;
        const float shift = op.shift_of(first_reduce::reduce_in_cta(op.first_partial(v, ok), smem_first, parity));
        st = op.finalize_two_pass(shift, second_reduce::reduce_in_cta(op.second_partial(v, ok, shift), smem_second, parity));
      } else {
        const value mine = op.partial_in_place(v, ok);
        st = op.finalize_in_place(row_reduce::reduce(mine, smem, parity, first), mine);
        first = false;
      }
    } else {
      const value mine = op.partial_in_place(v, ok);
      st = op.finalize_in_place(row_reduce::reduce(mine, smem, parity, first), mine);
      first = false;
    }

    store_op_packs<dispatch::streaming_stores, /*InPlace=*/true>(tp, op, st, out_row, v);
    if (active && lane == 0 && rank == 0) op.store_stats(row, st);
  }
}

}  // namespace kernels
}  // namespace rowwise
