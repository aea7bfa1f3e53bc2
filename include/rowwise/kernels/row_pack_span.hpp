// rowwise/kernels/row_pack_span.hpp — how many packs of memory a row spans, and which elements of
// its partial last pack a registers kernel wraps onto its head pack: one definition for the
// kernels that lay rows out (row_io.cuh, thread_pack_indices.cuh, stage_edge_pack.cuh) and the
// plan that sizes their configs (dispatch/plan.hpp). Host and device.
//
// Packs are aligned to memory (row_io.cuh): pack p of a row covers the columns
// [p n - head, p n - head + n), head being the elements before the row's first n-aligned one.
#pragma once

#include <cuda_runtime_api.h>  // __host__ / __device__ for a host compiler too

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Packs of n elements that a row of `cols` elements with this head (0..n-1) spans.
__host__ __device__ __forceinline__ constexpr int64_t row_pack_span(int64_t cols, int n, int head) {
  return (cols + head + n - 1) / n;
}

/// Whether rows of packs of n elements ever wrap (wrapped_row_tail): packs of 4 and 8 (16-byte
/// fp32 packs and 8- or 16-byte 16-bit ones). Instances of narrower widths compile without the
/// wrap's code. fp32 rows wrap again since session 49: without it, a row one element past a
/// 16-byte boundary spans one pack more than its aligned twin, so its plan moves to a config that
/// some threads fill only to K - 1 packs, and to fewer CTAs per SM (fp32 layer_norm 512 x 65536:
/// 160 threads x 8 packs, 4 CTAs per SM, 28 clusters of 16, against the aligned row's 128 x 8 and
/// 5 per SM; 64 % of the copy floor against 93 %, an H100, bench/NOTES.md 49). Measured with
/// it (the same H100): fp32 softmax rows of 32 / 128 columns offset by one 68 / 70 -> 92 / 98 %,
/// layer_norm 32768 x 1024 82 -> 96 %; rms_norm lost up to 4.5 points in grids of one row per CTA.
__host__ __device__ __forceinline__ constexpr bool packs_wrap(int n) { return n >= 4; }

/// The elements of a row's partial last pack that a registers kernel puts into the free slots
/// [0, tail) of the row's partial head pack, or 0: when the head pack is partial (head > 0), is
/// not the last pack, and has room for them (tail <= head: a row one element past a 16-byte
/// boundary whose length is a multiple of n). thread_packs.cuh says why. Packs of 4 and 8
/// (packs_wrap). (Session 41 measured fp32's wrapped rows slower than rows one pack longer on the
/// next config, an H100, bench/results/2026-12-05-h100-s41/experiment-wrap-rule: fp32 layer_norm /
/// rms_norm offset-by-one medians 66 / 85 % wrapped, 74 / 95 % not; that was before the
/// write-back's warp vote and the realigned stage, sessions 47-48.)
__host__ __device__ __forceinline__ constexpr int wrapped_row_tail(int64_t cols, int n, int head) {
  const int t = static_cast<int>((cols + head) % n);
  return packs_wrap(n) && head > 0 && t > 0 && t <= head && cols + head > n ? t : 0;
}

/// Packs a registers kernel's row spans: one fewer than row_pack_span when its last pack wraps.
__host__ __device__ __forceinline__ constexpr int64_t wrapped_row_pack_span(int64_t cols, int n, int head) {
  return row_pack_span(cols, n, head) - (wrapped_row_tail(cols, n, head) > 0 ? 1 : 0);
}

/// Whether a registers kernel's groups of `g` threads store the edge packs their rows share merged
/// (thread_packs.cuh: edge_merge): 16-bit rows of packs of 8 on groups of 2. Their instances with
/// the wrap's code only (registers_kernel.cuh), which plans of rows that start or end inside a pack
/// take for such groups (plan.hpp: registers_wrap_instance).
__host__ __device__ __forceinline__ constexpr bool merges_edge_packs(int elem_bytes, int n, int g) {
  return g == 2 && elem_bytes == 2 && n == 8;
}

/// Whether every whole pack of a row (inside it, not wrapped) has a column before it and one after
/// it inside the row: what 4-byte words at an odd 2-byte element read around a pack's n columns
/// (row_io.cuh: load_column_params_by_words). `ref` is the row's whole packs' column modulo n
/// (row_io.cuh: pack p starts at p n - head, so ref = -head mod n). Every whole pack starts at ref
/// modulo n and at or after ref, so one is before each of them when ref >= 1; and one is after
/// each unless a pack ends exactly at the row's end, which takes cols - ref to be a multiple of n
/// (a wrapped row's last whole pack ends `tail` columns before its end, and then it is not).
/// One test per row, the same in its threads. tests/host/test_words_around_packs.cpp checks it
/// against every whole pack.
__host__ __device__ __forceinline__ constexpr bool words_around_whole_packs(int ref, int64_t cols, int n) {
  return ref >= 1 && (cols - ref) % n != 0;
}

/// The slots [lo, N) (a suffix: a row's head pack) or [0, hi) (a prefix: its tail pack) of an
/// aligned pack in the fewest aligned accesses: the buddy blocks of the pack (size s, at a
/// multiple q of s) inside the range whose parent block (2s) is not. For a suffix those are right
/// children (q = s, 3s, ...; present where q - s < lo <= q), for a prefix left ones (present where
/// q + s <= hi < q + 2s): at most log2(N) accesses of up to 8 bytes each, where element by
/// element took up to N - 1 (a 16-bit head pack one element past a 16-byte boundary: 2, 4 and 8
/// bytes instead of seven 2-byte accesses). Every candidate is compiled, predicated on lo / hi
/// (one case per bound instead compiled to more instructions and three times the branches:
/// scripts/sass_counts.py, bench/NOTES.md 43).
/// Host and device (unrolled on the device only: a host compiler warns about the pragma):
/// tests/host/test_pack_pieces.cpp checks the cover.
template <int N, class F>
__host__ __device__ __forceinline__ void for_suffix_pieces(int lo, F&& f) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int s = N / 2; s >= 1; s /= 2)
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = s; q < N; q += 2 * s)
      if (q >= lo && q - s < lo) f(q, s);
}
template <int N, class F>
__host__ __device__ __forceinline__ void for_prefix_pieces(int hi, F&& f) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int s = N / 2; s >= 1; s /= 2)
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 0; q < N; q += 2 * s)
      if (q + s <= hi && hi < q + 2 * s) f(q, s);
}

/// Whether a row's partial edge packs may be read as whole aligned packs (thread_packs.cuh): the
/// head pack (it starts up to N - 1 elements before the row) when the row is not the matrix's
/// first, the tail pack (it ends up to N - 1 elements past the row) when the row is not its last,
/// given rows at least N - 1 elements apart (every matrix the launch reads). Those bytes are then
/// the neighbouring row's or the gap's, inside the matrix: read, never used (padded), never
/// written. One 16-byte load instead of up to N - 1 narrow ones, each its own L1 wavefront and L2
/// request. tests/host/test_edge_pack_reads.cpp checks that every pack read so lies inside.
struct edge_pack_reads {
  bool head = false;
  bool tail = false;
};
template <int N>
__host__ __device__ __forceinline__ constexpr edge_pack_reads edge_pack_reads_for(int64_t row, int64_t rows,
                                                                                  int64_t min_stride) {
  const bool apart = min_stride >= N - 1;
  return {apart && row >= 1, apart && row + 1 < rows};
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
