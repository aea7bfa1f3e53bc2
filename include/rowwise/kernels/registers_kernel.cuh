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
// for clusters, whose grid is persistent. Kernels that leave an SM few loads in flight prefetch
// the rows they (or the next wave of CTAs) take next into L2 (dispatch/policy.hpp).
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/grid_dependency.cuh"
#include "rowwise/kernels/row_all_reduce.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"
#include "rowwise/kernels/thread_packs.cuh"
#include "rowwise/primitives/l2_prefetch.cuh"
#include "rowwise/reduce/max_sum.cuh"
#include "rowwise/reduce/shifted_welford.cuh"
#include "rowwise/dispatch/policy.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Ops that declare `two_pass = true` (row_op.cuh) reduce by exact two-pass moments
/// (two_pass_moments, with or without a cluster); the others by their reducer.
template <class Op, class = void>
struct op_two_pass : std::false_type {};
template <class Op>
struct op_two_pass<Op, std::enable_if_t<Op::two_pass>> : std::true_type {};

/// Two-pass moments of a row held by G threads (of one CTA or of a cluster of CTAs), in two forms
/// (dispatch/policy.hpp: two_pass_thread_shifts says which, by element size, register budget and
/// column stage):
///  * warp shifts (`reduce`): each warp (group) takes the exact two-pass over its values with
///    shuffles only (its sum and count give its shift s_w, then the sums c_w of x - s_w and q_w
///    of (x - s_w)^2 over its values);
///  * thread shifts (`reduce_centred`): each thread takes the exact two-pass over its own values
///    around a shift of its own (Op::thread_centre, which leaves the values centred for a
///    one-fma write-back); the warp's shift s_w is its first lane's rounded mean, and one
///    butterfly adds the lanes' sums rebased to it (a pass and an all-reduce fewer in the row's
///    dependent chain).
/// A row of several warps combines the warps' sums after one barrier, every thread the same way:
/// lane w of every warp re-expresses warp w's sums relative to the first warp's shift S
/// (shifted_welford_reducer::rebase; with thread shifts, to the first warp's rounded mean), a
/// butterfly adds them, and from_two_pass(N, S, Q, C) gives M2 = Q - C^2 / N. Each shift is a
/// mean of part of the row, so (mean - S)^2 is at most (parts) times the variance and the
/// subtraction loses at most that factor of rounding (the argument of the shifted-data
/// algorithm; no sum of squares of raw values is ever formed). A row over a cluster merges the
/// CTAs' results: as raw sums rebased to the first CTA's shift when ClusterSums (fp32 rows: the
/// one division after the exchange, dispatch/policy.hpp: two_pass_cluster_sums), else as shifted
/// Welford summaries (each CTA divides before it sends).
/// This replaced a block all-reduce of the warps' Welford summaries (a butterfly of pairwise
/// merges, each with a division and tests for empty sides: ~120 instructions per warp of
/// layer_norm's ~900, bench/NOTES.md 21). Result in every thread of the row, bit-identical.
/// The row's shape rules and its cluster step are row_all_reduce's (`rows`); `storage` and `step`
/// follow its rules (start through `start`; finish is the row's cluster finish).
template <int G, int Block, bool ClusterSums>
struct two_pass_moments {
  using cluster_reducer = std::conditional_t<ClusterSums, shifted_two_pass_reducer, shifted_welford_reducer>;
  using rows = row_all_reduce<G, Block, cluster_reducer>;
  static constexpr int group = G < 32 ? G : 32;
  static constexpr bool whole_block = rows::whole_block;
  static constexpr int warps = Block / 32 > 0 ? Block / 32 : 1;
  static constexpr int lanes = warp_group_for(warps);

  struct storage {
    shifted_two_pass part[2][warps];  // alternating by step: one barrier per row (block_all_reduce)
    typename rows::cluster_storage cluster;
  };

  __device__ __forceinline__ static void start(storage& s) { rows::start_cluster(s.cluster); }

  /// Warp shifts; v is left as it is.
  template <class Op, int M>
  __device__ __forceinline__ static shifted_welford_value reduce(const Op& op, const float (&v)[M],
                                                                 slot_mask<M> ok, storage& s, int64_t step) {
    const float sum = op.first_partial(v, ok);
    const float_pair sum_n =
        warp_all_reduce<group>(float_pair{sum, static_cast<float>(ok.count())}, pair_sum_reducer{});
    // Any value near the mean serves as the shift (c corrects it): the fast division.
    const float shift = sum_n.b > 0.0f ? __fdividef(sum_n.a, sum_n.b) : 0.0f;
    const float_pair qc = warp_all_reduce<group>(op.second_partial(v, ok, shift), pair_sum_reducer{});
    return combine</*RoundedFirst=*/false>({sum_n.b, shift, qc.b, qc.a}, s, step);
  }

  /// Thread shifts; v is left centred on the thread's shift, which `mine` returns with its sums.
  template <class Op, int M>
  __device__ __forceinline__ static shifted_welford_value reduce_centred(const Op& op, float (&v)[M],
                                                                         slot_mask<M> ok, storage& s,
                                                                         int64_t step, shifted_two_pass& mine) {
    mine = op.thread_centre(v, ok);
    // The group's first lane holds values of the group whenever any lane does (packs ascend
    // with the lane), so its mean is a value of the data's scale.
    const float shift = __shfl_sync(0xffffffffu, shifted_welford_reducer::rounded_mean(mine), 0, group);
    const shifted_sums g = warp_all_reduce<group>(
        shifted_welford_reducer::rebase(mine.n, mine.s, mine.c, mine.q, shift), shifted_sums_reducer{});
    return combine</*RoundedFirst=*/true>({g.n, shift, g.c, g.q}, s, step);
  }

  /// The row's moments from each warp's (group's) sums around its shift. RoundedFirst: the
  /// shared shift is the first warp's rounded mean (its shift is one lane's mean), else its shift.
  /// RoundedFirst is the thread-shift form (fp32 rows; 16-bit rows of the 128-register staged
  /// instances), the other the warp-shift form (the other 16-bit rows), which keeps the IEEE
  /// reciprocal in from_two_pass: with __fdividef instead (no
  /// slow-path CALL) ptxas spilled more in 14 of the 16-bit layer_norm instances at their
  /// 64-96-register caps, and bf16 1024 / 12288 columns lost 5.5 / 1.6 points of the copy floor
  /// (H200, bench/NOTES.md session 22); the fp32 form gained 0.05-0.08 us per small call.
  template <bool RoundedFirst>
  __device__ __forceinline__ static shifted_welford_value combine(const shifted_two_pass& warp, storage& s,
                                                                  int64_t step) {
    shifted_two_pass cta = warp;  // the CTA's sums around its shift
    if constexpr (whole_block) {
      shifted_two_pass* part = s.part[step & 1];
      if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = warp;
      __syncthreads();
      // Lane w of each group of `lanes` takes warp w's terms and the groups sum them by the same
      // butterfly (bit-identical in every thread); a loop over the warps in every thread cost
      // ~7 instructions per warp per row (~85 of a 12-warp row's ~860, ncu, NOTES 22).
      const float first = RoundedFirst ? shifted_welford_reducer::rounded_mean(part[0]) : part[0].s;
      const int w = static_cast<int>(threadIdx.x) % lanes;
      shifted_sums mine = {0.0f, 0.0f, 0.0f};
      if (w < warps) {
        const shifted_two_pass m = part[w];
        mine = shifted_welford_reducer::rebase(m.n, m.s, m.c, m.q, first);
      }
      const shifted_sums all = warp_all_reduce<lanes>(mine, shifted_sums_reducer{});
      cta = {all.n, first, all.c, all.q};
    }
    if constexpr (ClusterSums) {
      const shifted_two_pass row = rows::reduce_cta_values(cta, s.cluster, step);  // over the cluster, if any
      return shifted_welford_reducer::from_two_pass<!RoundedFirst>(row.n, row.s, row.q, row.c);
    } else {
      return rows::reduce_cta_values(
          shifted_welford_reducer::from_two_pass<!RoundedFirst>(cta.n, cta.s, cta.q, cta.c), s.cluster, step);
    }
  }
};

/// The two_pass_moments of a registers kernel over rows of T.
template <class T, int G, int Block>
using two_pass_moments_for = two_pass_moments<G, Block, dispatch::two_pass_cluster_sums(static_cast<int>(sizeof(T)))>;

template <class Op, class T, int G, int Block, bool = op_two_pass<Op>::value>
struct two_pass_storage {
  using type = char;
};
template <class Op, class T, int G, int Block>
struct two_pass_storage<Op, T, G, Block, true> {
  using type = typename two_pass_moments_for<T, G, Block>::storage;
};

/// The kernel's register cap (dispatch/policy.hpp), the CTAs per SM it allows, and whether the
/// kernel prefetches its next rows (policy.hpp: row_kernel_prefetches).
/// Ops of two weight vectors (layer_norm): their staged instances get a budget of their own
/// (policy.hpp: staged_two_weights); the plan knows them as has_two_weights (launch.cuh checks
/// that the two agree).
template <class Op>
inline constexpr bool op_has_two_weights = op_column_params<Op>::count == 2;
template <class Op, class T, int G, int Block, int Values, bool Staged>
inline constexpr int registers_kernel_budget =
    dispatch::row_kernel_registers_for(Op::fuses_residual, Op::column_params, static_cast<int>(sizeof(T)), Block,
                                       Values, G, Staged && op_has_two_weights<Op>);
/// The cap the instance compiles under (policy.hpp: row_kernel_register_cap): the budget, or less
/// for the 16-bit fused rows with the wrap's code.
template <class Op, class T, int N, int G, int K, int Block, bool Staged, bool Wrap>
inline constexpr int registers_kernel_cap = dispatch::row_kernel_register_cap(
    registers_kernel_budget<Op, T, G, Block, K * N, Staged>, Op::fuses_residual, static_cast<int>(sizeof(T)),
    K * N, Wrap);
/// CTAs of the instance resident per SM at its cap, counted as the plan counts them
/// (dispatch/policy.hpp: ctas_per_sm): the prefetch's distance of one wave.
template <class Op, class T, int N, int G, int K, int Block, bool Staged, bool Wrap>
inline constexpr int registers_kernel_ctas =
    dispatch::ctas_per_sm(registers_kernel_cap<Op, T, N, G, K, Block, Staged, Wrap>, Block);
template <class Op, class T, int G, int Block, int Values, bool Staged>
inline constexpr bool registers_kernel_prefetches =
    dispatch::row_kernel_prefetches(Op::fuses_residual, Op::column_params, static_cast<int>(sizeof(T)), Block, Values,
                                    G, Staged && op_has_two_weights<Op>);

/// Whether the write-back reads the next pack's weights ahead (dispatch/policy.hpp:
/// write_back_params_ahead).
template <class Op, class T, int N, int G, int K, int Block, bool Staged>
inline constexpr bool registers_kernel_params_ahead = dispatch::write_back_params_ahead(
    op_column_params<Op>::count, static_cast<int>(sizeof(typename op_column_params<Op>::type)),
    static_cast<int>(sizeof(T)), N, K * N,
    registers_kernel_budget<Op, T, G, Block, K * N, Staged>);

/// Which form of two_pass_moments a row of T takes (dispatch/policy.hpp: two_pass_thread_shifts).
template <class T, int Regs, bool Staged>
inline constexpr bool two_pass_thread_shifts_v =
    dispatch::two_pass_thread_shifts(static_cast<int>(sizeof(T)), Regs, Staged);

/// Whether a staged instance copies its weights before its first row's loads (dispatch/policy.hpp:
/// stage_weights_before_rows; the kernel adds its run-time conditions).
template <class T, int Values, bool Staged>
inline constexpr bool stage_weights_first_v =
    Staged && dispatch::stage_weights_before_rows(static_cast<int>(sizeof(T)), Values);

/// SMs of this GPU (%nsmid: one more than the largest SM id; a hint's distance only).
__device__ __forceinline__ unsigned sm_id_count() {
  unsigned n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}

/// The columns of packs [p0, p1) of a row whose head (row_io.cuh) is `head`: [first, end).
template <int N>
__device__ __forceinline__ int64_t segment_first_col(int64_t p0, int head) {
  return p0 * N - head > 0 ? p0 * N - head : 0;
}
template <int N>
__device__ __forceinline__ int64_t segment_end_col(int64_t p1, int head, int64_t cols) {
  return p1 * N - head < cols ? p1 * N - head : cols;
}

/// segment_packs: packs of a row per CTA when rows are split over a cluster (<= K * G); the
/// CTA of rank r takes packs [r * segment_packs, (r + 1) * segment_packs). Without a cluster
/// it is K * G (the whole row fits one CTA).
/// Staged: the op's per-column weights are copied into the launch's dynamic shared memory
/// (column_stage.cuh). A separate instance, because the staged write-back changes the register
/// allocation of the whole kernel: compiled into every launch, it cost layer_norm 2-6 points of
/// the copy floor at shapes that never stage (bench/NOTES.md 21).
/// Wrap: rows whose partial last pack goes into their head pack (thread_packs.cuh) may come; an
/// instance of its own for the same reason (plan.hpp: registers_rows_wrap).
template <class Op, class T, int N, int G, int K, int Block, bool Staged = false, bool Wrap = false>
__global__ void __maxnreg__((registers_kernel_cap<Op, T, N, G, K, Block, Staged, Wrap>))
registers_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using row_reduce = row_all_reduce<G, Block, reducer>;
  constexpr int rows_per_step = Block / G;
  constexpr store_policy stores = dispatch::row_store_policy_v<false, Op::column_params, static_cast<int>(sizeof(T))>;

  // Two-pass ops reduce through smem_moments only.
  __shared__ std::conditional_t<op_two_pass<Op>::value, char, typename row_reduce::storage> smem;
  __shared__ typename two_pass_storage<Op, T, G, Block>::type smem_moments;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];  // the column stage, if planned

  const int lane = static_cast<int>(threadIdx.x) % G;
  const int group = static_cast<int>(threadIdx.x) / G;
  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int64_t step = static_cast<int64_t>(per_cluster(gridDim.x, csize)) * rows_per_step;

  if constexpr (op_two_pass<Op>::value)
    two_pass_moments_for<T, G, Block>::start(smem_moments);
  else
    row_reduce::start(smem);
  using stage = column_stage<Op, N, K, Block>;
  const int first_head = row_head<N>(io.in);
  const int64_t seg_begin = rank * segment_packs;
  const int64_t seg_end = seg_begin + segment_packs;
  // Unstaged instances (grids of more than one wave) read their weights from global memory at
  // each write-back: the first CTA (cluster) puts its columns' weights into L2 for the first wave
  // (column_stage.cuh: prefetch_column_params). Its thread 0 waits for the prior grid here, ahead
  // of the others; outside the row loop, so that the loop compiles as without it.
  if constexpr (!Staged && op_column_params<Op>::count > 0) {
    if (threadIdx.x == 0 && blockIdx.x < static_cast<unsigned>(csize)) {
      wait_for_prior_grids();
      prefetch_column_params(op, segment_first_col<N>(seg_begin, first_head),
                             segment_end_col<N>(seg_end, first_head, io.cols));
    }
  }
  // The CTAs of persistent cluster grids that take more than one row step copy both weight vectors
  // before their first row's loads in the instances policy.hpp's stage_weights_before_rows names
  // (the others after them, below). The test is repeated in the loop's first step (base is
  // first_base there), not carried through it as loop state: a live flag made the fp16 instance
  // spill (ptxas -v).
  constexpr bool weights_first_instance = stage_weights_first_v<T, K * N, Staged>;
  // Only weights aligned at the packs: a realigned copy waits for its loads (column_stage.cuh:
  // copy_realigned), so it goes after the first row's loads, where that row's latency hides it.
  const auto weights_first = [&](int64_t first_base) {
    return weights_first_instance && csize > 1 && present_column_params(op) == 2 && first_base + step < io.rows &&
           op.template columns_aligned<N>((N - first_head) & (N - 1));
  };
  // The column stage of this CTA's packs (the launch's first row's columns), started once.
  const auto start_stage = [&](bool via_l1) {
    stage::start(op,
                 thread_packs<K, G, N, Wrap>(true, rank * segment_packs + lane, (rank + 1) * segment_packs,
                                             io.cols, first_head),
                 dynamic_smem, via_l1, /*partial_packs=*/csize > 1);
  };
  if constexpr (weights_first_instance) {
    if (weights_first(static_cast<int64_t>(per_cluster(blockIdx.x, csize)) * rows_per_step)) {
      wait_for_prior_grids();  // the weights may be the prior grid's output
      start_stage(/*via_l1=*/false);
    }
  }
  // Sub-warp rows one after the other in `out` that start or end inside a pack store their shared
  // boundary packs whole (thread_packs.cuh: edge_merge, merges_edge_packs_v); aligned rows keep the
  // plain path. Not layer_norm's (two-pass): its 64-register sub-warp instances spilled 0 -> 84
  // bytes with it. Only in the Wrap instance, which the plan gives rows that start or end inside a
  // pack on such groups (plan.hpp: registers_wrap_instance): in the other, which then runs aligned
  // rows of whole packs only, it took bf16 softmax's 32-column kernel from 47 to 63 registers
  // (ptxas), 10 to 8 CTAs per SM. (The H200 sweeps since it came, session 46, read those rows at
  // 90-93 % of the copy floor; 98-100 % before. Without it an H100 read them 0.3-0.4 points lower,
  // at the floor either way, bench/NOTES.md 55; the H200 not yet measured.)
  constexpr bool merge_edges_instance = merges_edge_packs_v<T, N, G> && !op_two_pass<Op>::value && Wrap;
  const bool merges_edges = merge_edges_instance && csize == 1 && io.out_stride == io.cols &&
                            io.cols >= 2 * N && (first_head != 0 || io.cols % N != 0);
  int64_t it = 0;  // row steps taken (the cluster exchange's step index)
  // The loop bound depends only on the block (cluster), so whole warps and blocks iterate
  // together and every shuffle / barrier is reached by all threads; rows past the end are masked.
  for (int64_t base = static_cast<int64_t>(per_cluster(blockIdx.x, csize)) * rows_per_step; base < io.rows;
       base += step, ++it) {
    const int64_t row = base + group;
    const bool active = row < io.rows;
    const int64_t r = active ? row : 0;
    const T* in_row = io.in + r * io.in_stride;
    T* out_row = io.out + r * io.out_stride;
    T* res_row = Op::fuses_residual ? io.residual + r * io.residual_stride : nullptr;
    const int head = row_head<N>(in_row);

    // Wrapped (thread_packs.cuh) in Wrap instances: the plan counts such rows' packs so (plan.hpp:
    // registers_row_packs_for).
    const thread_packs<K, G, N, Wrap> tp(active, seg_begin + lane, seg_end, io.cols, head);
    // The set-up above, and the first row step's place, read no global memory, so they run
    // before the wait for the prior grid: in back-to-back calls they overlap that grid's tail
    // (bench/NOTES.md session 18 d). The wait sits in the loop, not before it, so that no
    // place is carried across steps as loop state (carried, it cost large shapes 5-18 points,
    // session 18 e) and the body is not compiled twice (peeled, 16-bit layer_norm's spills grew
    // from ~100 to ~450 bytes). A CTA without rows never waits: it touches no global memory.
    if (it == 0) {
      wait_for_prior_grids();  // before any global memory access (grid_dependency.cuh)
      allow_dependent_grids();
    }
    float v[K * N];
    slot_mask<K * N> ok;
    // Edge packs read whole where they lie inside the matrix (row_io.cuh: edge_pack_reads); not
    // layer_norm's, whose 64-register instances spilled 52 / 84 -> 134 / 200 bytes with it
    // (bf16 G 32 K 4, scripts/sass_counts.py) and whose offset rows lose to their weights' reads.
    // fp32 rows of a warp or less (G <= 32) neither: their kernels grew 450 -> 537 SASS
    // instructions with it and their offset rows measured slower (bench/NOTES.md 45).
    constexpr bool whole_edges = !op_two_pass<Op>::value && (sizeof(T) < 4 || G > 32);
    edge_pack_reads edges{};
    if constexpr (whole_edges)
      edges = edge_pack_reads_for<N>(
          r, io.rows,
          Op::fuses_residual && io.residual_stride < io.in_stride ? io.residual_stride : io.in_stride);
    load_op_packs<Op, dispatch::row_load_policy, stores, Op::fuses_residual, whole_edges>(tp, in_row, res_row, v,
                                                                                          ok, edges);
    // Few row loads in flight per SM (policy.hpp: prefetch_next_row): the segment of the row
    // this group takes next in a persistent cluster grid, or that a CTA one wave of resident
    // CTAs later takes in a grid of one CTA per row step, goes into L2 while this row is
    // reduced, exchanged and written. Only bytes of that row are touched.
    if constexpr (registers_kernel_prefetches<Op, T, G, Block, K * N, Staged>) {
      const int64_t ahead = csize > 1 ? step
                                      : static_cast<int64_t>(sm_id_count()) *
                                            registers_kernel_ctas<Op, T, N, G, K, Block, Staged, Wrap> * rows_per_step;
      if (lane == 0 && row + ahead < io.rows) {
        const int64_t next = row + ahead;
        const int64_t c0 = segment_first_col<N>(seg_begin, head);
        const int64_t c1 = segment_end_col<N>(seg_end, head, io.cols);
        if (c1 > c0) {
          const T* in_next = io.in + next * io.in_stride;
          prefetch_l2_bulk(in_next + c0, in_next + c1);
          if constexpr (Op::fuses_residual) {
            const T* res_next = io.residual + next * io.residual_stride;
            prefetch_l2_bulk(res_next + c0, res_next + c1);
          }
        }
      }
    }
    // The per-column weights of the thread's packs, copied once while the first row loads (rows
    // of another head, if any, read them from global memory: column_stage.cuh). Issued after
    // the row's loads, so that the row's requests do not queue behind them (128 CTAs copying
    // the same weights before their rows: bf16 layer_norm 128 x 4096 +0.4 us, NOTES 21).
    if constexpr (Staged) {
      if (it == 0 && !weights_first(base)) start_stage(/*via_l1=*/csize == 1);
    }

    const auto st = [&] {
      using moments = two_pass_moments_for<T, G, Block>;
      if constexpr (!op_two_pass<Op>::value) {
        const value mine = op.partial_in_place(v, ok);
        return op.finalize_in_place(row_reduce::reduce(mine, smem, it), mine);
      } else if constexpr (two_pass_thread_shifts_v<T, registers_kernel_budget<Op, T, G, Block, K * N, Staged>, Staged>) {
        shifted_two_pass mine;
        const shifted_welford_value row_moments = moments::reduce_centred(op, v, ok, smem_moments, it, mine);
        return op.finalize_centred(row_moments, mine);
      } else {
        return op.finalize_moments(moments::reduce(op, v, ok, smem_moments, it));
      }
    }();

    edge_merge merge{};
    if constexpr (merge_edges_instance) {
      constexpr int groups_per_warp = 32 / G;
      const int group_in_warp = group % groups_per_warp;
      merge.on = merges_edges;
      merge.prev_in_warp = group_in_warp > 0;
      merge.next_in_warp = group_in_warp < groups_per_warp - 1 && row + 1 < io.rows;
      // Row r - 1's head (the pointer is only measured: for row 0 no lane asks for it).
      merge.prev_tail_lane = row_tail_pack_lane<G, N, Wrap>(io.cols, row_head<N>(in_row - io.in_stride));
    }
    constexpr bool ahead = registers_kernel_params_ahead<Op, T, N, G, K, Block, Staged>;
    if constexpr (Staged)
      store_op_packs<stores, /*InPlace=*/true, merge_edges_instance, ahead>(
          tp, op, st, out_row, v, stage::for_row(op, dynamic_smem, head == first_head, csize > 1), merge);
    else
      store_op_packs<stores, /*InPlace=*/true, merge_edges_instance, ahead>(tp, op, st, out_row, v,
                                                                            no_column_stage{}, merge);
    if (active && lane == 0 && rank == 0) op.store_stats(row, st);
  }
  row_reduce::finish(it);
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
