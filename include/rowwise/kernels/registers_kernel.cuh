// rowwise/kernels/registers_kernel.cuh — the row (or the block's segment of it) held in registers.
//
// One template covers three regimes of DESIGN.md by its G (threads per row):
//   G = 1..16  sub-warp groups, several rows per warp, shuffles only;
//   G = 32     one warp per row, no shared memory, no barrier;
//   G = Block  one block per row (optionally a cluster of blocks per row, each holding a
//              contiguous segment of K * G packs and merging partials through DSMEM).
// Each thread loads its K packs (all in flight at once), the op reduces them in registers,
// the row is all-reduced, and the same registers are rewritten: one read and one write per
// element. The grid is persistent: blocks (clusters) stride over row steps.
#pragma once

#include "rowwise/kernels/row_all_reduce.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"

namespace rowwise {
namespace kernels {

/// Load pack col0 of a row for op `Op`: the input, or for residual-fusing ops
/// round_T(in + residual), which is also stored back to the residual row.
template <class Op, load_policy P, bool streaming_store, class T, int N>
__device__ __forceinline__ unsigned load_op_input(const T* in_row, T* res_row, int64_t col0,
                                                  int64_t cols, float (&v)[N]) {
  const unsigned ok = load_row_pack<P>(in_row, col0, cols, v, Op::pad);
  if constexpr (Op::fuses_residual) {
    float r[N];
    load_row_pack<P>(static_cast<const T*>(res_row), col0, cols, r);
    // The fp32 sum is rounded once to T, exactly as it is stored; the op reduces that value.
    aligned_array<T, N> stored;
    float sum[N];
#pragma unroll
    for (int j = 0; j < N; ++j) sum[j] = v[j] + r[j];
    float_to_pack<T, N>(sum, stored);
    pack_to_float(stored, v);
    store_row_pack<streaming_store>(res_row, col0, cols, stored);
  }
  return ok;
}

/// segment_packs: packs of a row per CTA when rows are split over a cluster (<= K * G); the
/// CTA of rank r takes packs [r * segment_packs, (r + 1) * segment_packs). Without a cluster
/// it is K * G (the whole row fits one CTA).
template <class Op, class T, int N, int G, int K, int Block>
__global__ void __launch_bounds__(Block) registers_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using row_reduce = row_all_reduce<G, Block, reducer>;
  constexpr int rows_per_step = Block / G;

  __shared__ typename row_reduce::storage smem;

  const int lane = static_cast<int>(threadIdx.x) % G;
  const int group = static_cast<int>(threadIdx.x) / G;
  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int64_t step = static_cast<int64_t>(gridDim.x / csize) * rows_per_step;

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

    float v[K * N];
    slot_mask<K * N> ok;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int64_t p = seg_begin + k * G + lane;
      const int64_t col0 = p * N - head;
      float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[k * N]);
      if (active && p < seg_end && col0 < io.cols) {
        ok.set_pack(k * N, load_op_input<Op, load_policy::stream, true>(in_row, res_row, col0, io.cols, pv));
      } else {
#pragma unroll
        for (int j = 0; j < N; ++j) pv[j] = Op::pad;
      }
    }

    const value mine = op.partial_in_place(v, ok);
    const value total = row_reduce::reduce(mine, smem, parity, first);
    first = false;
    const auto st = op.finalize_in_place(total, mine);

    if (active) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int64_t p = seg_begin + k * G + lane;
        const int64_t col0 = p * N - head;
        if (p >= seg_end || col0 >= io.cols) continue;
        float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[k * N]);
        op.apply_in_place(pv, col0, st);
        store_row_pack<true>(out_row, col0, io.cols, pv);
      }
      if (lane == 0 && rank == 0) op.store_stats(row, st);
    }
  }
}

}  // namespace kernels
}  // namespace rowwise
