// rowwise/kernels/cluster_rows_kernel.cuh — many rows, each split over a cluster of CTAs and held
// in registers, with each row's exchange overlapped by the next row's loads.
//
// The persistent cluster grids of registers_kernel (G == Block, a segment of every row per CTA)
// take a row step as: load the segment, reduce it, exchange the CTAs' partials, write back. A
// CTA then waits twice per row with nothing of its own in flight: for its loads, and for its
// peers' partials (the peers' skew: ~3.5 polling instructions per value for layer_norm bf16
// 65536, ncu, bench/NOTES.md 27e). Here a row step pushes its CTA's partial, then issues the
// next row's loads into the registers the current row's raw packs have left (its values are
// fp32 by then), and only then collects the partials and writes the row back: the exchange and
// the write-back proceed while the next row is on its way.
//
// Same contract as registers_kernel for a launch with clusters of rows split into segments of
// `segment_packs` packs (plan.hpp: a persistent grid, one row per cluster per step); a launch
// without clusters works too (a row per CTA, nothing to exchange). Not for ops that fuse a
// residual (their loads store the sum: they would write a row before its turn).
// Costs: a second row's raw packs live across the row's reduction (K * N * sizeof(T) / 4
// registers more than registers_kernel), so only plans that choose it (plan.hpp:
// overlaps_exchange) get this instance.
#pragma once

#include <type_traits>

#include "rowwise/kernels/registers_kernel.cuh"

namespace rowwise {
namespace kernels {

template <class Op, class T, int N, int K, int Block, bool Staged = false>
__global__ void __maxnreg__((registers_kernel_budget<Op, T, Block, Block, K * N, Staged>))
cluster_rows_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  static_assert(!Op::fuses_residual, "a residual-fusing op stores while it loads");
  constexpr int G = Block;
  using reducer = typename Op::reducer;
  using row_reduce = row_all_reduce<G, Block, reducer>;
  using moments = two_pass_moments<G, Block>;
  constexpr bool two_pass = op_two_pass<Op>::value;
  constexpr store_policy stores = dispatch::row_store_policy_v<false, Op::column_params, static_cast<int>(sizeof(T))>;
  constexpr load_policy loads = dispatch::row_load_policy;

  __shared__ std::conditional_t<two_pass, char, typename row_reduce::storage> smem;
  __shared__ typename two_pass_storage<Op, G, Block>::type smem_moments;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];  // the column stage, if planned

  const int lane = static_cast<int>(threadIdx.x);
  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int64_t step = per_cluster(gridDim.x, csize);

  if constexpr (two_pass)
    moments::start(smem_moments);
  else
    row_reduce::start(smem);
  using stage = column_stage<Op, N, K, Block>;
  const int first_head = row_head<N>(io.in);
  const int64_t seg_begin = rank * segment_packs;
  const int64_t seg_end = seg_begin + segment_packs;
  const auto packs_of = [&](int64_t row) {
    return thread_packs<K, G, N>(true, seg_begin + lane, seg_end, io.cols, row_head<N>(io.in + row * io.in_stride));
  };
  aligned_array<T, N> raw[K];  // the raw packs of the row the loop takes next
  aligned_array<T, N> no_residual[1];
  slot_mask<K * N> ok;

  int64_t row = per_cluster(blockIdx.x, csize);
  if (row < io.rows) {  // the same in every CTA of the cluster
    wait_for_prior_grids();  // before any global memory access (grid_dependency.cuh)
    allow_dependent_grids();
    if constexpr (!Staged && op_column_params<Op>::count > 0) {
      // As registers_kernel: the first cluster puts its columns' weights into L2 for the others.
      if (threadIdx.x == 0 && blockIdx.x < static_cast<unsigned>(csize))
        prefetch_column_params(op, segment_first_col<N>(seg_begin, first_head),
                               segment_end_col<N>(seg_end, first_head, io.cols));
    }
    issue_op_pack_loads<Op, loads, false>(packs_of(row), io.in + row * io.in_stride, static_cast<const T*>(nullptr), raw, no_residual, ok);
    if constexpr (Staged)
      stage::start(op,
                   thread_packs<K, G, N>(true, rank * segment_packs + lane, (rank + 1) * segment_packs, io.cols,
                                         first_head),
                   dynamic_smem, /*via_l1=*/csize == 1);
  }

  int64_t it = 0;  // row steps taken (the cluster exchange's step index)
  for (; row < io.rows; row += step, ++it) {
    const T* in_row = io.in + row * io.in_stride;
    T* out_row = io.out + row * io.out_stride;
    const int head = row_head<N>(in_row);
    const thread_packs<K, G, N> tp(true, seg_begin + lane, seg_end, io.cols, head);
    // The row's raw packs move out of `raw` (a register copy), which the next row's loads take.
    // Kept raw, not as fp32: the compiler converts again where it needs a value, as in
    // registers_kernel (16-bit rows of 64 values: 32 registers instead of 64).
    aligned_array<T, N> cur[K];
#pragma unroll
    for (int k = 0; k < K; ++k) cur[k] = raw[k];
    float v[K * N];
#pragma unroll
    for (int k = 0; k < K; ++k) pack_to_float(cur[k], *reinterpret_cast<float(*)[N]>(&v[k * N]));
    const slot_mask<K * N> row_ok = ok;

    // The CTA's partial, pushed to the peers; then the next row's loads; then the row's total.
    // Each form keeps what its finalize needs across the loads (a few registers).
    const auto finish_row = [&](auto&& total_of) {
      const int64_t next = row + step;
      if (next < io.rows) {
        issue_op_pack_loads<Op, loads, false>(packs_of(next), io.in + next * io.in_stride, static_cast<const T*>(nullptr), raw,
                                              no_residual, ok);
        // The row after it into L2 (the registers kernel's prefetch, one step further ahead).
        if constexpr (registers_kernel_prefetches<Op, T, G, Block, K * N, Staged>) {
          const int64_t later = next + step;
          if (lane == 0 && later < io.rows) {
            const int64_t c0 = segment_first_col<N>(seg_begin, head);
            const int64_t c1 = segment_end_col<N>(seg_end, head, io.cols);
            if (c1 > c0) prefetch_l2_bulk(io.in + later * io.in_stride + c0, io.in + later * io.in_stride + c1);
          }
        }
      }
      return total_of();
    };
    const auto st = [&] {
      if constexpr (!two_pass) {
        const typename Op::value mine = op.partial_in_place(v, row_ok);
        const typename Op::value cta = row_reduce::reduce_cta(mine, smem, it);
        row_reduce::push_cta_value(cta, smem.cluster, it);
        return finish_row([&] { return op.finalize_in_place(row_reduce::collect_cta_values(cta, smem.cluster, it), mine); });
      } else if constexpr (two_pass_thread_shifts_v<T>) {
        shifted_two_pass mine;
        const shifted_welford_value cta =
            moments::reduce_centred(op, v, row_ok, smem_moments, it, mine, std::false_type{});
        moments::rows::push_cta_value(cta, smem_moments.cluster, it);
        return finish_row([&] {
          return op.finalize_centred(moments::rows::collect_cta_values(cta, smem_moments.cluster, it), mine);
        });
      } else {
        const shifted_welford_value cta = moments::reduce(op, v, row_ok, smem_moments, it, std::false_type{});
        moments::rows::push_cta_value(cta, smem_moments.cluster, it);
        return finish_row([&] { return op.finalize_moments(moments::rows::collect_cta_values(cta, smem_moments.cluster, it)); });
      }
    }();

    if constexpr (Staged)
      store_op_packs<stores, /*InPlace=*/true>(tp, op, st, out_row, v,
                                               stage::for_row(op, dynamic_smem, head == first_head));
    else
      store_op_packs<stores, /*InPlace=*/true>(tp, op, st, out_row, v);
    if (lane == 0 && rank == 0) op.store_stats(row, st);
  }
  row_reduce::finish(it);
}

}  // namespace kernels
}  // namespace rowwise
