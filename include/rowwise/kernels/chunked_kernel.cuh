// rowwise/kernels/chunked_kernel.cuh — rows too long for registers: the block (or each block of a
// cluster) walks its segment of the row in chunks of Unroll packs per thread.
//
// Cached = true : pass 1 keeps the segment in (opt-in, dynamic) shared memory as it loads it;
//                 pass 2 rewrites it from there. One read and one write of every element.
// Cached = false: streaming. Pass 2 reads the row again from global memory; the row segment
//                 of a launch wave is far smaller than L2, so the second read is served by L2.
// The segment of a CTA is [rank * segment_packs, (rank + 1) * segment_packs) of the row's packs;
// partials merge across the block, then across the cluster through DSMEM. Each thread touches
// the same packs in both passes, so the cache needs no barrier of its own.
#pragma once

#include "rowwise/kernels/registers_kernel.cuh"

namespace rowwise {
namespace kernels {

template <class Op, class T, int N, int Block, int Unroll, bool Cached>
__global__ void __launch_bounds__(Block) chunked_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using row_reduce = row_all_reduce<Block, Block, reducer>;
  using pack = aligned_array<T, N>;
  // Pass 2 of the streaming variant reads the row again: keep it in L2 on the first read.
  constexpr load_policy first_read = Cached ? load_policy::stream : load_policy::keep;

  __shared__ typename row_reduce::storage smem;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  pack* cache = reinterpret_cast<pack*>(dynamic_smem);

  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int tid = static_cast<int>(threadIdx.x);

  row_reduce::announce_start();
  int parity = 0;
  bool first = true;
  for (int64_t row = blockIdx.x / csize; row < io.rows; row += gridDim.x / csize, parity ^= 1) {
    const T* in_row = io.in + row * io.in_stride;
    T* out_row = io.out + row * io.out_stride;
    T* res_row = Op::fuses_residual ? io.residual + row * io.residual_stride : nullptr;
    const int head = row_head<N>(in_row);
    const int64_t packs = row_packs<N>(io.cols, head);
    const int64_t seg_begin = rank * segment_packs;
    const int64_t seg_end = seg_begin + segment_packs < packs ? seg_begin + segment_packs : packs;

    value acc = reducer::identity();
    for (int64_t chunk = seg_begin; chunk < seg_end; chunk += Block * Unroll) {
      float v[Unroll * N];
      slot_mask<Unroll * N> ok;
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const int64_t p = chunk + u * Block + tid;
        float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[u * N]);
        if (p < seg_end) {
          ok.set_pack(u * N, load_op_input<Op, first_read, !Cached>(in_row, res_row, p * N - head, io.cols, pv));
          if constexpr (Cached) {
            pack a;
            float_to_pack(pv, a);  // exact: the values came from T (or were rounded to T)
            cache[p - seg_begin] = a;
          }
        } else {
#pragma unroll
          for (int j = 0; j < N; ++j) pv[j] = Op::pad;
        }
      }
      acc = reducer{}(acc, op.partial(v, ok));
    }

    const value total = row_reduce::reduce(acc, smem, parity, first);
    first = false;
    const auto st = op.finalize(total);

    // Residual-fusing ops normalise the residual as stored; the streaming pass reads it back.
    const T* src_row = Op::fuses_residual ? static_cast<const T*>(res_row) : in_row;
    for (int64_t chunk = seg_begin; chunk < seg_end; chunk += Block * Unroll) {
      float v[Unroll][N];
      // All of a chunk's loads are issued before its first store (the row may be rewritten in
      // place, so the compiler could not reorder them itself).
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const int64_t p = chunk + u * Block + tid;
        if (p >= seg_end) continue;
        if constexpr (Cached) {
          pack_to_float(cache[p - seg_begin], v[u]);
        } else {
          load_row_pack<load_policy::stream>(src_row, p * N - head, io.cols, v[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const int64_t p = chunk + u * Block + tid;
        if (p >= seg_end) continue;
        op.apply(v[u], p * N - head, st);
        store_row_pack<true>(out_row, p * N - head, io.cols, v[u]);
      }
    }
    if (tid == 0 && rank == 0) op.store_stats(row, st);
  }
}

}  // namespace kernels
}  // namespace rowwise
