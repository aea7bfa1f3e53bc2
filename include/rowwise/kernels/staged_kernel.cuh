// rowwise/kernels/staged_kernel.cuh — long rows staged in shared memory: one row segment per CTA
// (a cluster of CTAs per row), the next rows' loads in flight while this one is reduced and
// written. Every element is read from DRAM once and written once.
//
// Why: a long row cannot stay in registers, and re-reading it (chunked_kernel's streaming form)
// goes back to DRAM once the resident rows outgrow L2 — 3 units of traffic for 2 (ncu,
// bench/NOTES.md 17). Here each thread copies its packs of a row segment into a shared-memory
// stage with cp.async (no registers held while the bytes are in flight), Stages - 2 rows ahead.
//
// Per step k (this CTA's rows first_row + k * clusters, row k in stage k % Stages):
//   refill the stage of row k - 1 with row k + Stages - 1;
//   pass 1 of row k + 1: partial over its stage, block all-reduce, push to the cluster;
//   collect row k's cluster partials (pushed one step earlier: the exchange's latency is hidden
//   behind pass 1 of the next row), finalize, pass 2: outputs to global memory with ordinary
//   stores (they hold no stage once issued).
// A thread reads only the packs it copied itself, so the stages need no barrier; the block
// all-reduce and the cluster exchange (cluster_push_reduce.cuh: no cluster barrier per row) are
// the only synchronisation.
// Residual-fusing ops stage x and the residual side by side; pass 1 forms round(x + r), stores
// it to the residual row and keeps it in the stage for pass 2.
//
// Why not the bulk-copy engine (TMA): measured on the H200 (bench/NOTES.md 18b/c against 18e),
// bulk loads and stores driven by a producer warp ran no faster than cp.async in the same kernel
// structure. (That comparison predates the register cap of 18j; TMA was not re-measured with it.)
//
// Packs are aligned to memory, not to the row (row_io.cuh): pack p covers the columns
// [p N - head, p N - head + N). Rows that start inside a pack (head > 0: a base pointer one
// element past a 16-byte boundary) or end inside one (cols % N != 0) have partial packs at their
// two ends, which the `Edges` instance stages by 4-byte words and stores element by element
// (stage_edge_pack.cuh); every other pack is one 16-byte copy, load and store. Without Edges the
// kernel has none of that code.
//
// Requirements (checked by the plan): 16-byte packs (N = 16 / sizeof(T)); every row has the same
// head (row strides a multiple of N), the head of `io.in`, which every other matrix shares
// (dispatch/alignment.hpp); Edges unless head == 0 and cols % N == 0; rows of at least two packs.
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/policy.hpp"
#include "rowwise/kernels/grid_dependency.cuh"
#include "rowwise/kernels/row_all_reduce.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"
#include "rowwise/kernels/stage_edge_pack.cuh"
#include "rowwise/primitives/async_copy.cuh"
#include "rowwise/primitives/block_all_reduce.cuh"
#include "rowwise/primitives/cluster_push_reduce.cuh"
#include "rowwise/primitives/cluster_shape.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Ops that declare `staged_long_rows = true` (row_op.cuh) run rows too long for registers on
/// this kernel; the others keep chunked_kernel.
template <class Op, class = void>
struct op_staged_long_rows : std::false_type {};
template <class Op>
struct op_staged_long_rows<Op, std::enable_if_t<Op::staged_long_rows>> : std::true_type {};

/// Ops that declare `sweeps = true` (row_op.cuh) form pass 1's partial in two sweeps over the
/// stage.
template <class Op, class = void>
struct op_sweeps : std::false_type {};
template <class Op>
struct op_sweeps<Op, std::enable_if_t<Op::sweeps>> : std::true_type {};

template <class Op, class T, int N, int Block, int Stages, int Unroll, int MinBlocks, bool Edges>
__global__ void __launch_bounds__(Block, MinBlocks)
staged_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using block_reduce = block_all_reduce<Block, reducer>;
  using cluster_reduce = cluster_push_reduce<Block, max_cluster_size, reducer>;
  using pack = aligned_array<T, N>;
  constexpr bool fused = Op::fuses_residual;
  constexpr int regions = fused ? 2 : 1;  // x (and the residual) per stage
  static_assert(sizeof(pack) == 16, "staged rows move in 16-byte packs");
  static_assert(Stages >= 3, "two rows in use (pass 2 of one, pass 1 of the next), one loading");
  constexpr store_policy stores = dispatch::row_store_policy_v<true, Op::column_params, static_cast<int>(sizeof(T))>;

  __shared__ typename block_reduce::storage red[2];
  __shared__ typename cluster_reduce::storage exchange;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  pack* const stages = reinterpret_cast<pack*>(dynamic_smem);

  const int tid = static_cast<int>(threadIdx.x);
  const unsigned csize = cluster_ctas();
  const unsigned rank = cluster_cta_rank();
  const int64_t clusters = per_cluster(gridDim.x, csize);
  const int64_t first_row = per_cluster(blockIdx.x, csize);
  // Every row's head is io.in's (see the requirements).
  const staged_segment<N, Edges> seg(io.cols, Edges ? row_head<N>(io.in) : 0, segment_packs, rank);
  const int seg_len = seg.len;
  const int64_t seg_col = seg.col;
  const int edge_first = seg.edge_first;
  const int edge_last = seg.edge_last;
  auto region = [&](int stage, int which) { return stages + (stage * regions + which) * segment_packs; };
  auto is_edge = [&](int p) { return seg.edge(p); };
  auto owns = [&](int p) { return p >= 0 && p % Block == tid; };
  auto row_of = [&](int which, int64_t row) -> const T* {
    return which == 0 ? io.in + row * io.in_stride : io.residual + row * io.residual_stride;
  };
  auto pad_of = [](int which) { return from_float<T>(which == 0 ? Op::pad : 0.0f); };
  // 2-byte elements of the last copied row's partial packs whose word-mates lie outside the row
  // (stage_edge_pack.cuh): loaded by that copy, stored by the next one, a row step later (before
  // the row's pass 1: Stages >= 3). [input][first / last partial pack]
  T lone[regions][2];
  int lone_stage = -1;
  auto store_lones = [&]() {
    if constexpr (Edges && sizeof(T) == 2) {
      if (lone_stage >= 0) {
#pragma unroll
        for (int r = 0; r < regions; ++r) {
          if (owns(edge_first))
            store_edge_lone<T, N>(region(lone_stage, r)[edge_first].v, seg_col + edge_first * N, io.cols,
                                  lone[r][0], pad_of(r));
          if (owns(edge_last) && edge_last != edge_first)
            store_edge_lone<T, N>(region(lone_stage, r)[edge_last].v, seg.col_of(edge_last),
                                  io.cols, lone[r][1], pad_of(r));
        }
      }
      lone_stage = -1;
    }
  };
  // A thread copies, and later reads, only its own packs p = tid + i * Block of the segment: its
  // own cp.async.wait_group makes them visible to it, no barrier needed.
  auto copy_row = [&](int stage, int64_t row) {
    store_lones();
    if (row < io.rows) {
      const T* in_seg = io.in + row * io.in_stride + seg_col;
      const T* res_seg = fused ? io.residual + row * io.residual_stride + seg_col : nullptr;
      pack* xs = region(stage, 0);
      pack* rs = region(stage, regions - 1);
      for (int p = tid; p < seg_len; p += Block) {
        if (is_edge(p)) continue;
        async_copy::copy16(xs + p, in_seg + static_cast<int64_t>(p) * N);
        if constexpr (fused) async_copy::copy16(rs + p, res_seg + static_cast<int64_t>(p) * N);
      }
      if constexpr (Edges) {
        // The partial packs once the whole ones are in flight.
#pragma unroll
        for (int r = 0; r < regions; ++r) {
          if (owns(edge_first))
            lone[r][0] = stage_edge_pack<T, N>(region(stage, r)[edge_first].v, row_of(r, row),
                                               seg_col + edge_first * N, io.cols, pad_of(r));
          if (owns(edge_last) && edge_last != edge_first)
            lone[r][1] = stage_edge_pack<T, N>(region(stage, r)[edge_last].v, row_of(r, row),
                                               seg.col_of(edge_last), io.cols, pad_of(r));
        }
        lone_stage = stage;
      }
    }
    async_copy::commit();  // one group per row step, empty or not, so the counts below hold
  };

  if (tid == 0) {
    cluster_reduce::init(exchange);
    mbarrier::init_fence();
  }
  __syncthreads();
  wait_for_prior_grids();  // before any global memory access (grid_dependency.cuh)
  allow_dependent_grids();
  cluster_reduce::start_arrive(csize);
  for (int s = 0; s < Stages - 1; ++s) copy_row(s, first_row + s * clusters);
  cluster_reduce::start_wait(csize);

  // Two forms of the passes, each where it measured best (bench/NOTES.md 26):
  // * ops with sweeps (softmax, log_softmax; row_op.cuh): pass 1 reads the thread's packs twice
  //   (a max on the stored values, then the exponentials with one shift); whole steps of
  //   Block * Unroll packs test no pack, one guarded step follows; stage reads are 16-byte words
  //   (a copy of a 16-bit pack struct compiled to four 4-byte loads), output stores explicit
  //   16-byte ones. bf16 softmax 152064 / 262144 columns: 75 / 73 -> 85 / 84 % of the floor.
  // * the others (the rms_norm family): one guarded loop per pass, merging a partial per step;
  //   with the form above fused_add_rms_norm fp32 65536 ran 2-3 points slower (92 against 95 %,
  //   cause not found), and its residual store, left to the compiler, became four 4-byte
  //   stores (16384: 95 -> 77 %).
  constexpr int step_packs = Block * Unroll;

  // Sweeping ops: this thread's packs of the step at `base` in a stage; guarded, packs past the
  // segment hold Op::pad.
  auto load_step = [&](int stage, int base, pack(&x)[Unroll], auto guarded) {
    const pack* const xs = region(stage, 0);
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      const int p = base + u * Block + tid;
      if (!decltype(guarded)::value || p < seg_len) {
        load_pack(x[u], xs[p].v);
      } else {
#pragma unroll
        for (int j = 0; j < N; ++j) x[u].v[j] = from_float<T>(Op::pad);
      }
    }
  };
  // fp32 values of packs (bf16 by their bits: this kernel has registers to spare, pack.cuh).
  auto to_values = [](const pack(&x)[Unroll], float(&v)[Unroll * N]) {
#pragma unroll
    for (int u = 0; u < Unroll; ++u) pack_to_float_by_bits(x[u], *reinterpret_cast<float(*)[N]>(&v[u * N]));
  };
  // Every step of a stage, whole steps then the guarded one: f(packs, base, guarded).
  const int full_end = seg_len - seg_len % step_packs;
  auto each_step = [&](int stage, auto&& f) {
    for (int base = 0; base < full_end; base += step_packs) {
      pack x[Unroll];
      load_step(stage, base, x, std::false_type{});
      f(x, base, std::false_type{});
    }
    if (full_end < seg_len) {
      pack x[Unroll];
      load_step(stage, full_end, x, std::true_type{});
      f(x, full_end, std::true_type{});
    }
  };

  // Pass 1 of a row: its segment's partial, all-reduced over the block and pushed to the
  // cluster. The others: Unroll packs per thread per step, all read before use; fused ops round
  // x + r, store it to the residual row and keep it in the stage for pass 2.
  auto pass1 = [&](int stage, int64_t row, int64_t step) {
    value acc = reducer::identity();
    if constexpr (op_sweeps<Op>::value) {
      static_assert(!fused, "a sweeping op reads its stage twice: nothing to store in between");
      typename Op::template sweep<T, N> w;
      each_step(stage, [&](const pack(&x)[Unroll], int, auto) {
#pragma unroll
        for (int u = 0; u < Unroll; ++u) op.sweep_first(x[u], w);
      });
      op.sweep_turn(w);
      each_step(stage, [&](const pack(&x)[Unroll], int, auto) {
        float v[Unroll * N];
        to_values(x, v);
        op.sweep_second(v, w);
      });
      acc = op.sweep_value(w);
    } else {
      pack* const xs = region(stage, 0);
      T* const res_row = fused ? io.residual + row * io.residual_stride + seg_col : nullptr;
      for (int base = 0; base < seg_len; base += step_packs) {
        float v[Unroll * N];
        slot_mask<Unroll * N> ok;
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          const int p = base + u * Block + tid;
          float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[u * N]);
          if (p < seg_len) {
            if constexpr (fused) {
              const pack stored = rounded_sum(xs[p], region(stage, 1)[p]);  // the op reduces that
              xs[p] = stored;
              if (is_edge(p))
                store_row_pack<stores>(res_row - seg_col, seg.col_of(p), io.cols, stored);
              else
                store_pack<stores>(res_row + static_cast<int64_t>(p) * N, stored);
              pack_to_float(stored, pv);
            } else {
              pack_to_float(xs[p], pv);
            }
            ok.set_pack(u * N, is_edge(p) ? row_pack_slots<N>(seg.col_of(p), io.cols)
                                          : (1u << N) - 1u);
          } else {
#pragma unroll
            for (int j = 0; j < N; ++j) pv[j] = Op::pad;
          }
        }
        acc = reducer{}(acc, op.partial(v, ok));
      }
    }
    const value block_total = block_reduce::reduce(acc, red[step & 1]);
    cluster_reduce::push(block_total, exchange, csize, rank, step);
    return block_total;
  };

  // Pass 2: outputs straight to global memory (ordinary stores hold no stage once issued).
  auto pass2 = [&](int stage, int64_t row, const typename Op::state& st) {
    T* const out_row = io.out + row * io.out_stride + seg_col;
    if constexpr (op_sweeps<Op>::value) {
      each_step(stage, [&](const pack(&x)[Unroll], int base, auto guarded) {
        float v[Unroll * N];
        to_values(x, v);
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          const int p = base + u * Block + tid;
          if (!decltype(guarded)::value || p < seg_len) {
            float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[u * N]);
            op.apply(pv, seg.col_of(p), st);
            if (is_edge(p))
              store_row_pack<store_policy::vector>(out_row - seg_col, seg.col_of(p), io.cols, pv);
            else
              store_whole_pack<store_policy::vector>(out_row + static_cast<int64_t>(p) * N, pv);
          }
        }
      });
    } else {
      const pack* const xs = region(stage, 0);
      for (int base = 0; base < seg_len; base += step_packs) {
        float v[Unroll * N];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          const int p = base + u * Block + tid;
          if (p < seg_len) pack_to_float(xs[p], *reinterpret_cast<float(*)[N]>(&v[u * N]));
        }
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          const int p = base + u * Block + tid;
          if (p < seg_len) {
            float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[u * N]);
            op.apply(pv, seg.col_of(p), st);
            if (is_edge(p))
              store_row_pack<stores>(out_row - seg_col, seg.col_of(p), io.cols, pv);
            else
              store_whole_pack<stores>(out_row + static_cast<int64_t>(p) * N, pv);
          }
        }
      }
    }
  };

  // Row k is this CTA's row first_row + k * clusters, in stage k % Stages. Step k overlaps pass 1
  // of row k + 1 with the cluster exchange of row k, then finishes row k; rows k + 2 ...
  // k + Stages - 1 are loading meanwhile.
  // The loop compares row numbers instead of counting this CTA's rows: that count is a 64-bit
  // division, which compiles to a CALL of its slow path (bench/NOTES.md session 22).
  if (first_row < io.rows) {
    async_copy::wait<Stages - 2>();  // row 0 (of the Stages - 1 rows in flight) has landed
    value current = pass1(0, first_row, 0);
    int64_t row = first_row;
    for (int64_t k = 0; row < io.rows; ++k, row += clusters) {
      // The stage of row k - 1 was read out by this thread last step: refill it.
      copy_row(static_cast<int>((k + Stages - 1) % Stages), row + (Stages - 1) * clusters);
      value next = current;
      if (row + clusters < io.rows) {
        async_copy::wait<Stages - 2>();  // row k + 1 has landed
        next = pass1(static_cast<int>((k + 1) % Stages), row + clusters, k + 1);
      }
      const value total = cluster_reduce::collect(current, exchange, csize, k);
      const auto st = op.finalize(total);
      pass2(static_cast<int>(k % Stages), row, st);
      if (tid == 0 && rank == 0) op.store_stats(row, st);
      current = next;
    }
  }
  async_copy::wait<0>();
  cluster_reduce::finish(csize);
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
