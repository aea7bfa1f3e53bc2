// rowwise/kernels/chunked_kernel.cuh — rows too long for registers: the block (or each block of a
// cluster) walks its segment of the row in chunks of Unroll packs per thread.
//
// Cached = true : pass 1 keeps the segment in (opt-in, dynamic) shared memory as it loads it;
//                 pass 2 rewrites it from there. One read and one write of every element.
// Cached = false: streaming. Pass 2 reads the row again from global memory: from L2 while the
//                 rows resident on the GPU fit it, else from DRAM again (bench/NOTES.md 17).
// The segment of a CTA is [rank * segment_packs, (rank + 1) * segment_packs) of the row's packs;
// partials merge across the block, then across the cluster through DSMEM. Each thread touches
// the same packs in both passes, so the cache needs no barrier of its own. Every chunk's loads
// are issued before any is used (thread_packs.cuh).
#pragma once

#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/registers_kernel.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

template <class Op, class T, int N, int Block, int Unroll, bool Cached>
// Two streaming CTAs per SM (64 registers) overlap one's reduction with the other's loads; a
// CTA caching its row segment in shared memory is alone on its SM by design.
__global__ void __launch_bounds__(Block, (Cached || Op::fuses_residual) ? 1 : 2)
chunked_kernel(row_io<T> io, Op op, int64_t segment_packs) {
  using reducer = typename Op::reducer;
  using value = typename Op::value;
  using row_reduce = row_all_reduce<Block, Block, reducer>;
  using pack = aligned_array<T, N>;
  constexpr store_policy stores = dispatch::row_store_policy_v<false, Op::column_params, static_cast<int>(sizeof(T))>;
  // Pass 2 of the streaming variant reads the row again: it must stay cacheable in L2, and so
  // must the residual a fusing op stores in pass 1 and reads back in pass 2.
  constexpr load_policy first_read = Cached ? dispatch::row_load_policy : load_policy::keep;
  static_assert(Cached || stores != store_policy::stream, "the streaming pass re-reads what pass 1 stored");

  __shared__ typename row_reduce::storage smem;
  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  pack* cache = reinterpret_cast<pack*>(dynamic_smem);

  const int csize = row_reduce::cluster_size();
  const int rank = row_reduce::cluster_rank();
  const int tid = static_cast<int>(threadIdx.x);

  wait_for_prior_grids();  // before any global memory access (grid_dependency.cuh)
  allow_dependent_grids();
  row_reduce::start(smem);
  int64_t it = 0;  // row steps taken (the cluster exchange's step index)
  for (int64_t row = per_cluster(blockIdx.x, csize); row < io.rows; row += per_cluster(gridDim.x, csize), ++it) {
    const T* in_row = io.in + row * io.in_stride;
    T* out_row = io.out + row * io.out_stride;
    T* res_row = Op::fuses_residual ? io.residual + row * io.residual_stride : nullptr;
    const int head = row_head<N>(in_row);
    const int64_t packs_in_row = row_pack_span(io.cols, N, head);
    const int64_t seg_begin = rank * segment_packs;
    const int64_t seg_end = seg_begin + segment_packs < packs_in_row ? seg_begin + segment_packs : packs_in_row;

    // Whole chunks of Unroll packs per thread; a last chunk of at most 2 packs per thread (the
    // tail of a segment that is not a multiple of the chunk) takes a 2-pack body instead: the
    // unrolled body costs the same for a chunk whatever its fill, and a tail of ~1 pack per
    // thread through the Unroll-pack body doubled the instructions of a row step (softmax fp32
    // 152064 columns over 8 CTAs: ncu, bench/NOTES.md 22). Both passes chunk the segment the
    // same way, so each thread still touches the same packs in both.
    // (One call of each body: with the Unroll body called for whole chunks and again for a
    // partial one, NVVM merged the two and split the whole-pack stores of the partial path into
    // 4-byte ones, PTX; 64 x 32000 fp32 took twice as long.)
    const auto for_chunks = [&](auto body) {
      constexpr int tail_unroll = Unroll < 2 ? Unroll : 2;
      int64_t chunk = seg_begin;
      for (; seg_end - chunk > static_cast<int64_t>(Block) * tail_unroll; chunk += static_cast<int64_t>(Block) * Unroll)
        body(std::integral_constant<int, Unroll>{}, chunk);
      if (chunk < seg_end) body(std::integral_constant<int, tail_unroll>{}, chunk);
    };

    value acc = reducer::identity();
    for_chunks([&](auto unroll, int64_t chunk) {
      constexpr int U = decltype(unroll)::value;
      const thread_packs<U, Block, N> tp(true, chunk + tid, seg_end, io.cols, head);
      float v[U * N];
      slot_mask<U * N> ok;
      load_op_packs<Op, first_read, stores>(tp, in_row, res_row, v, ok);
      if constexpr (Cached) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (!tp.touches(u)) continue;
          pack a;
          float_to_pack(*reinterpret_cast<float(*)[N]>(&v[u * N]), a);  // exact: values are T
          cache[tp.p0 + u * Block - seg_begin] = a;
        }
      }
      acc = reducer{}(acc, op.partial(v, ok));
    });

    const value total = row_reduce::reduce(acc, smem, it);
    const auto st = op.finalize(total);

    // Residual-fusing ops normalise the residual as stored; the streaming pass reads it back.
    const T* src_row = Op::fuses_residual ? static_cast<const T*>(res_row) : in_row;
    for_chunks([&](auto unroll, int64_t chunk) {
      constexpr int U = decltype(unroll)::value;
      const thread_packs<U, Block, N> tp(true, chunk + tid, seg_end, io.cols, head);
      float v[U * N];
      if constexpr (Cached) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (tp.touches(u)) pack_to_float(cache[tp.p0 + u * Block - seg_begin], *reinterpret_cast<float(*)[N]>(&v[u * N]));
        }
      } else {
        slot_mask<U * N> unused;
        load_op_packs<Op, load_policy::keep, stores, /*Fuse=*/false>(tp, src_row, static_cast<T*>(nullptr), v, unused);
      }
      // The row may be rewritten in place: all of this chunk's loads precede its first store.
      store_op_packs<stores, /*InPlace=*/false>(tp, op, st, out_row, v);
    });
    if (tid == 0 && rank == 0) op.store_stats(row, st);
  }
  row_reduce::finish(it);
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
