// rowwise/kernels/thread_pack_indices.cuh — which packs (and so which columns) of a row one thread
// of a registers or chunked kernel moves: index arithmetic only, host and device, so that the host
// tests can check that a plan's threads cover every column of a row exactly once
// (tests/host/test_thread_packs.cpp). Moving the packs is thread_packs.cuh's.
#pragma once

#include <cuda_runtime_api.h>  // __host__ / __device__ for a host compiler too

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/row_pack_span.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Wrap: the row's partial last pack goes into its partial head pack when it fits (thread_packs.cuh);
/// a template parameter, so that no register carries it.
template <int K, int G, int N, bool Wrap = false>
struct thread_packs {
  static constexpr int stride = G * N;  // columns between a thread's consecutive packs
  bool active;
  int64_t p0;     // first pack
  int64_t p_end;  // packs >= p_end belong to another segment (or are past the row)
  int64_t cols;
  int64_t c0;     // column of the first pack (negative for a row's head pack)
  int room;       // columns from c0 to the row's or the segment's end (capped; < N: no pack)

  __host__ __device__ __forceinline__ thread_packs(bool active_, int64_t p0_, int64_t p_end_, int64_t cols_,
                                                   int head)
      : active(active_), p0(p0_), p_end(p_end_), cols(cols_), c0(p0_ * N - head), room(-1) {
    if (active) {
      // A wrapped tail is the head pack's: the row ends, for every other pack, before it.
      const int64_t to_row_end = cols - (Wrap ? wrapped_row_tail(cols_, N, head) : 0) - c0;
      const int64_t to_seg_end = (p_end - p0) * N;
      int64_t r = to_row_end < to_seg_end ? to_row_end : to_seg_end;
      if (r > static_cast<int64_t>(K) * stride) r = static_cast<int64_t>(K) * stride;
      if (r < -1) r = -1;
      room = static_cast<int>(r);
    }
  }
  /// The row's head (pack 0's columns before the row) when this thread's pack 0 is the row's head
  /// pack, from c0 (live anyway) rather than a register of its own.
  __host__ __device__ __forceinline__ int head() const { return static_cast<int>(-c0); }
  /// The row's last elements that this thread's pack 0, the row's head pack, holds too (slots
  /// [0, tail)); 0 when it holds none (no wrap, another thread, or an inactive one).
  __host__ __device__ __forceinline__ int head_pack_tail() const {
    return Wrap && c0 < 0 && room >= 0 ? wrapped_row_tail(cols, N, head()) : 0;
  }
  /// Pack k lies inside the row and the segment: one aligned access. (Only pack 0 of the
  /// thread that starts the row can begin before column 0.)
  __host__ __device__ __forceinline__ bool whole(int k) const {
    return (k > 0 || c0 >= 0) && k * stride + N <= room;
  }
  /// Every pack of the thread is whole (the branch-free case).
  __host__ __device__ __forceinline__ bool all_whole() const { return c0 >= 0 && (K - 1) * stride + N <= room; }
  /// The pack k > 0 that holds the row's last column when it is this thread's and partial, else
  /// -1. A row has at most two partial packs: its head (pack 0 of the thread with c0 < 0) and
  /// this tail. From room alone (32-bit; stride is a constant): the row ends inside pack
  /// k = room / stride exactly when 0 < room - k * stride < N (a segment's end never does:
  /// segments are whole packs).
  __host__ __device__ __forceinline__ int partial_tail() const {
    const int k = room / stride;
    const int rest = room - k * stride;
    return (k >= 1 && k < K && rest > 0 && rest < N) ? k : -1;
  }
  /// Pack k has at least one element of the row and belongs to the segment: p0 + k G < p_end
  /// and col(k) < cols, i.e. k * stride below both distances that room is the minimum of (room
  /// is -1 for an inactive thread). One 32-bit compare: the 64-bit form cost ~10 instructions
  /// per pack in every partial chunk of the streaming kernel (ncu, bench/NOTES.md 22).
  __host__ __device__ __forceinline__ bool touches(int k) const { return k * stride < room; }
  /// Offset of pack k from the first, in elements: a constant, so addresses are base + immediate.
  __host__ __device__ __forceinline__ static constexpr int offset(int k) { return k * stride; }
  __host__ __device__ __forceinline__ int64_t col(int k) const { return c0 + offset(k); }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
