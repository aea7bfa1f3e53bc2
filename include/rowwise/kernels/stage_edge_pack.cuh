// rowwise/kernels/stage_edge_pack.cuh — a row's partial pack (its head or its last pack) copied
// into a shared-memory stage without reading outside the row.
//
// Why: the staged kernel copies whole 16-byte packs with cp.async. A row whose start is not
// 16-byte aligned (a base pointer one element past a boundary) or whose length is no multiple of
// N has up to two partial packs, and copying those whole would read elements outside the row
// (the previous row, the gap of a strided matrix, or memory past the allocation). Such a pack
// moves by 4-byte words instead:
//  - a word whose elements all lie in the row: cp.async of 4 bytes, asynchronous like the rest
//    of the row and visible after the same wait;
//  - a word with none: the op's pad, by an ordinary shared store;
//  - a 2-byte element whose word-mate lies outside the row (an odd head, an odd tail): cp.async
//    copies no less than 4 bytes, so it is loaded into a register and stored later by
//    store_edge_lone, once the caller knows the load has landed (the staged kernel: at its next
//    copy, one row step on), so that no thread waits for it. A pack that is the row's head and
//    its last pack at once may have two such elements; the second is stored at once (a short
//    row, which the staged plan never gives it).
// The word arithmetic is host and device, so that a host test checks it covers every element of
// the row exactly once and nothing outside it (tests/host/test_stage_edges.cpp).
#pragma once

#include <cuda_runtime_api.h>  // __host__ / __device__ for a host compiler too

#include <cstdint>
#include <cstring>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/row_pack_span.hpp"
#if defined(__CUDACC__)
#include "rowwise/primitives/async_copy.cuh"
#endif

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// How word w (4 bytes: one or two elements) of the pack at column col0 of a row of `cols`
/// elements is staged.
enum class edge_word : int {
  outside,   // no element of the row: the pad
  inside,    // every element in the row: cp.async
  lone_low,  // 2-byte elements: only the word's first (lower-address) element is in the row
  lone_high  // 2-byte elements: only the second is
};

template <int ElemBytes, int N>
struct edge_words {
  static_assert(ElemBytes == 2 || ElemBytes == 4, "staged rows move 2- or 4-byte elements");
  static constexpr int per_word = 4 / ElemBytes;
  static constexpr int count = N / per_word;  // words in the pack
  static_assert(N % per_word == 0, "a pack is whole words");

  __host__ __device__ __forceinline__ static constexpr bool in_row(int64_t c, int64_t cols) {
    return c >= 0 && c < cols;
  }
  __host__ __device__ __forceinline__ static constexpr edge_word kind(int64_t col0, int64_t cols, int w) {
    const int64_t c = col0 + static_cast<int64_t>(w) * per_word;
    if (per_word == 1) return in_row(c, cols) ? edge_word::inside : edge_word::outside;
    const bool first = in_row(c, cols);
    const bool second = in_row(c + 1, cols);
    return first && second ? edge_word::inside
           : first         ? edge_word::lone_low
           : second        ? edge_word::lone_high
                           : edge_word::outside;
  }
  /// The word whose lone element is left for store_edge_lone (the first such word), or -1.
  __host__ __device__ __forceinline__ static constexpr int deferred_lone(int64_t col0, int64_t cols) {
    for (int w = 0; w < count; ++w) {
      const edge_word k = kind(col0, cols, w);
      if (k == edge_word::lone_low || k == edge_word::lone_high) return w;
    }
    return -1;
  }
};

/// One CTA's segment of a staged row: packs [begin, end) of the row's packs (whole packs of
/// memory, row_io.cuh), and which of them are partial. Host and device: the staged kernel's
/// arithmetic, which the host test checks over plans (tests/host/test_stage_edges.cpp).
/// Edges: rows may start or end inside a pack (else head is 0 and cols a multiple of N).
template <int N, bool Edges>
struct staged_segment {
  int64_t col;     // the row column of the segment's first slot (negative: the row's head pack)
  int len;         // packs
  int edge_first;  // the row's head pack, when partial and this segment's (always its pack 0), or -1
  int edge_last;   // the row's last pack, when partial and this segment's (its pack len - 1), or -1

  __host__ __device__ __forceinline__ staged_segment(int64_t cols, int head, int64_t segment_packs, unsigned rank) {
    const int64_t row_packs = Edges ? row_pack_span(cols, N, head) : cols / N;
    const int64_t begin = static_cast<int64_t>(rank) * segment_packs;
    const int64_t end0 = begin + segment_packs;
    const int64_t end = end0 < row_packs ? end0 : row_packs;
    len = end > begin ? static_cast<int>(end - begin) : 0;
    col = begin * N - (Edges ? head : 0);
    edge_first = Edges && begin == 0 && head > 0 && len > 0 ? 0 : -1;
    edge_last = Edges && (cols + head) % N != 0 && end == row_packs && len > 0 ? len - 1 : -1;
  }
  /// Pack p of the segment is partial: staged by stage_edge_pack, stored element by element.
  __host__ __device__ __forceinline__ bool edge(int p) const { return Edges && (p == edge_first || p == edge_last); }
  /// The row column of pack p's first slot.
  __host__ __device__ __forceinline__ int64_t col_of(int p) const { return col + static_cast<int64_t>(p) * N; }
};

#if defined(__CUDACC__)

/// Two elements' bits as one word, the lower-address element in the low half.
template <class T>
__device__ __forceinline__ uint32_t pair_bits(T lo, T hi) {
  static_assert(sizeof(T) == 2, "pairs of 2-byte elements");
  uint16_t a, b;
  memcpy(&a, &lo, 2);
  memcpy(&b, &hi, 2);
  return static_cast<uint32_t>(a) | (static_cast<uint32_t>(b) << 16);
}

/// The pad word of a 4-byte element, or of two 2-byte ones.
template <class T>
__device__ __forceinline__ uint32_t pad_word(T pad) {
  if constexpr (sizeof(T) == 2) {
    return pair_bits(pad, pad);
  } else {
    uint32_t w;
    memcpy(&w, &pad, 4);
    return w;
  }
}

/// Stage the partial pack at column col0 of `row` into `dst` (N elements of shared memory, 16-byte
/// aligned): cp.async for the words inside the row (the caller commits and waits for them with
/// the row's other copies), `pad` for the words outside. Returns the element of
/// edge_words::deferred_lone's word, loaded but not yet staged (store_edge_lone stores it); any
/// other lone element is stored before returning.
template <class T, int N>
__device__ __forceinline__ T stage_edge_pack(T* dst, const T* row, int64_t col0, int64_t cols, T pad) {
  using words = edge_words<static_cast<int>(sizeof(T)), N>;
  uint32_t* const dst_words = reinterpret_cast<uint32_t*>(dst);
  const int deferred = words::deferred_lone(col0, cols);
  T lone = pad;
#pragma unroll
  for (int w = 0; w < words::count; ++w) {
    const T* const src = row + col0 + w * words::per_word;
    switch (words::kind(col0, cols, w)) {
      case edge_word::inside:
        async_copy::copy<4>(dst_words + w, src);
        break;
      case edge_word::outside:
        dst_words[w] = pad_word(pad);
        break;
      case edge_word::lone_low:
      case edge_word::lone_high:
        if constexpr (sizeof(T) == 2) {
          const bool low = words::kind(col0, cols, w) == edge_word::lone_low;
          const T x = low ? src[0] : src[1];
          if (w == deferred) {
            lone = x;
          } else {
            dst_words[w] = low ? pair_bits(x, pad) : pair_bits(pad, x);  // the short-row case
          }
        }
        break;
    }
  }
  return lone;
}

/// Store the element stage_edge_pack left for later into the same pack of the stage (its word
/// mate: the pad). Nothing when the pack has none. The caller makes sure the load has landed
/// in time (else this waits for it) and that the stage is not read before.
template <class T, int N>
__device__ __forceinline__ void store_edge_lone(T* dst, int64_t col0, int64_t cols, T lone, T pad) {
  if constexpr (sizeof(T) == 2) {
    using words = edge_words<2, N>;
    const int w = words::deferred_lone(col0, cols);
    if (w >= 0) {
      const bool low = words::kind(col0, cols, w) == edge_word::lone_low;
      reinterpret_cast<uint32_t*>(dst)[w] = low ? pair_bits(lone, pad) : pair_bits(pad, lone);
    }
  }
}

#endif  // __CUDACC__

}  // namespace kernels
ROWWISE_NAMESPACE_END
