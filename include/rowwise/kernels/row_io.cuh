// rowwise/kernels/row_io.cuh — where a kernel's rows are, and how one pack of a row is moved.
//
// Packs are aligned to memory, not to the row: pack p of a row covers the columns
// [p*N - head, p*N - head + N), where head = (row start address in elements) mod N. So a row
// whose start is misaligned by one element (or whose stride is odd) still moves through
// 16-byte accesses, except for its first and last pack, which go element by element.
// This only needs in, out (and residual) to share the same misalignment in every row; the
// dispatch checks that and otherwise picks a narrower N (down to 1) — never a misaligned access.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/column_stage_size.hpp"
#include "rowwise/kernels/row_pack_span.hpp"
#include "rowwise/numeric/pack.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// The matrices one launch works on. `residual` is only used by ops that fuse a residual add.
template <class T>
struct row_io {
  const T* in;
  T* out;
  T* residual;
  int64_t rows;
  int64_t cols;
  int64_t in_stride;
  int64_t out_stride;
  int64_t residual_stride;
};

/// Elements before the first N-aligned address of a row: the row's head (0..N-1).
template <int N, class T>
__device__ __forceinline__ int row_head(const T* row_start) {
  return static_cast<int>((reinterpret_cast<uintptr_t>(row_start) / sizeof(T)) % N);
}

/// The slots of the pack at column col0 that hold row elements (inside [0, cols)), as bits.
template <int N>
__device__ __forceinline__ unsigned row_pack_slots(int64_t col0, int64_t cols) {
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) bits |= static_cast<unsigned>(col0 + j >= 0 && col0 + j < cols) << j;
  return bits;
}

/// A part of an aligned pack moved as one access: `s` slots from slot `q`, q a multiple of s (so the
/// address is aligned to the piece's size), s * sizeof(T) a power of two up to 8 bytes.
template <class T, int N>
__device__ __forceinline__ void load_piece(aligned_array<T, N>& a, const T* pack, int q, int s) {
  switch (s * static_cast<int>(sizeof(T))) {
    case 8: *reinterpret_cast<uint2*>(&a.v[q]) = *reinterpret_cast<const uint2*>(pack + q); break;
    case 4: *reinterpret_cast<uint32_t*>(&a.v[q]) = *reinterpret_cast<const uint32_t*>(pack + q); break;
    case 2: *reinterpret_cast<uint16_t*>(&a.v[q]) = *reinterpret_cast<const uint16_t*>(pack + q); break;
    default: a.v[q] = pack[q]; break;
  }
}
template <class T, int N>
__device__ __forceinline__ void store_piece(T* pack, const aligned_array<T, N>& a, int q, int s) {
  switch (s * static_cast<int>(sizeof(T))) {
    case 8: *reinterpret_cast<uint2*>(pack + q) = *reinterpret_cast<const uint2*>(&a.v[q]); break;
    case 4: *reinterpret_cast<uint32_t*>(pack + q) = *reinterpret_cast<const uint32_t*>(&a.v[q]); break;
    case 2: *reinterpret_cast<uint16_t*>(pack + q) = *reinterpret_cast<const uint16_t*>(&a.v[q]); break;
    default: pack[q] = a.v[q]; break;
  }
}

/// Slots [lo, hi) of the aligned pack at `pack` (0 <= lo < hi <= N, not the whole pack) into a:
/// by pieces when the range is a suffix or a prefix, else (a row inside one pack) element by
/// element.
template <class T, int N>
__device__ __forceinline__ void load_pack_range(aligned_array<T, N>& a, const T* pack, int lo, int hi) {
  if (hi == N) {
    for_suffix_pieces<N>(lo, [&](int q, int s) { load_piece(a, pack, q, s); });
  } else if (lo == 0) {
    for_prefix_pieces<N>(hi, [&](int q, int s) { load_piece(a, pack, q, s); });
  } else {
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j >= lo && j < hi) a.v[j] = pack[j];
  }
}
template <class T, int N>
__device__ __forceinline__ void store_pack_range(T* pack, const aligned_array<T, N>& a, int lo, int hi) {
  if (hi == N) {
    for_suffix_pieces<N>(lo, [&](int q, int s) { store_piece(pack, a, q, s); });
  } else if (lo == 0) {
    for_prefix_pieces<N>(hi, [&](int q, int s) { store_piece(pack, a, q, s); });
  } else {
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j >= lo && j < hi) pack[j] = a.v[j];
  }
}

/// The slots of the pack at column col0 inside [0, cols): [lo, hi) (empty when lo >= hi).
template <int N>
__device__ __forceinline__ int pack_range_lo(int64_t col0) {
  return col0 >= 0 ? 0 : col0 <= -N ? N : static_cast<int>(-col0);
}
template <int N>
__device__ __forceinline__ int pack_range_hi(int64_t col0, int64_t cols) {
  const int64_t in = cols - col0;
  return in >= N ? N : in <= 0 ? 0 : static_cast<int>(in);
}

/// Load the pack starting at column col0 (may be negative for the head pack) as raw T. Returns
/// the slots inside [0, cols) as bits (bit j: slot j); the others read nothing and hold `pad`
/// (an op's neutral value, so that most ops reduce without looking at the mask).
/// Whole packs are one aligned access.
template <load_policy P, class T, int N>
__device__ __forceinline__ unsigned load_row_pack_raw(const T* row, int64_t col0, int64_t cols,
                                                      aligned_array<T, N>& a, T pad) {
  if (col0 >= 0 && col0 + N <= cols) {
    load_pack<P>(a, row + col0);
    return (1u << N) - 1u;
  }
  // Pad first, then predicated loads: a select between a loaded value and the pad would wait
  // for each element's load before issuing the next.
#pragma unroll
  for (int j = 0; j < N; ++j) a.v[j] = pad;
  if constexpr (sizeof(T) >= 4) {
    // 4-byte T element by element: by pieces its pack of 4 saves one access at most (3 -> 2),
    // for code that took its short-row softmax kernels from 450 to 552-658 SASS instructions and
    // its offset rows 1-7 points lower on an H100 (scripts/sass_counts.py, bench/NOTES.md 45).
    unsigned ok = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const int64_t c = col0 + j;
      const bool inside = c >= 0 && c < cols;
      if (inside) a.v[j] = row[c];
      ok |= static_cast<unsigned>(inside) << j;
    }
    return ok;
  } else {
    const int lo = pack_range_lo<N>(col0), hi = pack_range_hi<N>(col0, cols);
    if (lo >= hi) return 0;  // a pack wholly outside the row: nothing read
    load_pack_range(a, row + col0, lo, hi);
    return ((1u << hi) - 1u) & ~((1u << lo) - 1u);
  }
}

/// Store fp32 values, each rounded once to T, as a whole aligned pack: one access.
template <store_policy S, class T, int N>
__device__ __forceinline__ void store_whole_pack(T* p, const float (&v)[N]) {
  aligned_array<T, N> a;
  float_to_pack(v, a);
  store_pack<S>(p, a);
}

/// Store the pack of T starting at column col0; slots outside [0, cols) are not touched (the gap
/// between strided rows stays as it was).
template <store_policy S, class T, int N>
__device__ __forceinline__ void store_row_pack(T* row, int64_t col0, int64_t cols,
                                               const aligned_array<T, N>& a) {
  if (col0 >= 0 && col0 + N <= cols) {
    store_pack<S>(row + col0, a);
  } else if constexpr (sizeof(T) >= 4) {  // element by element (load_row_pack_raw says why)
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const int64_t c = col0 + j;
      if (c >= 0 && c < cols) row[c] = a.v[j];
    }
  } else {
    const int lo = pack_range_lo<N>(col0), hi = pack_range_hi<N>(col0, cols);
    if (lo < hi) store_pack_range(row + col0, a, lo, hi);
  }
}

/// Store fp32 values as the pack at col0, each rounded once to T.
template <store_policy S, class T, int N>
__device__ __forceinline__ void store_row_pack(T* row, int64_t col0, int64_t cols,
                                               const float (&v)[N]) {
  aligned_array<T, N> a;
  float_to_pack(v, a);
  store_row_pack<S>(row, col0, cols, a);
}

/// A row's head pack (the aligned pack the row starts in, `head` of its slots before the row) that
/// also holds the row's last `tail` (<= head) elements in those free slots [0, tail)
/// (thread_packs: the partial last pack wrapped onto the head pack): slot j is column
/// cols - tail + j for j < tail, j - head for j >= head. Loads those slots (the others hold
/// `pad`) and returns them as bits. Two base pointers and immediate offsets, no per-slot index.
template <load_policy P, class T, int N>
__device__ __forceinline__ unsigned load_wrapped_head_raw(const T* row, int head, int64_t cols, int tail,
                                                          aligned_array<T, N>& a, T pad) {
  const T* const head_pack = row - head;
  const T* const tail_part = row + (cols - tail);  // aligned: the row's last, partial pack
#pragma unroll
  for (int j = 0; j < N; ++j) a.v[j] = pad;
  for_prefix_pieces<N>(tail, [&](int q, int s) { load_piece(a, tail_part, q, s); });
  for_suffix_pieces<N>(head, [&](int q, int s) { load_piece(a, head_pack, q, s); });
  return ((1u << tail) - 1u) | (((1u << N) - 1u) & ~((1u << head) - 1u));
}

/// Store a wrapped head pack (load_wrapped_head_raw's slots) element by element.
template <class T, int N>
__device__ __forceinline__ void store_wrapped_head(T* row, int head, int64_t cols, int tail,
                                                   const aligned_array<T, N>& a) {
  T* const head_pack = row - head;
  T* const tail_part = row + (cols - tail);  // aligned: the row's last, partial pack
  for_prefix_pieces<N>(tail, [&](int q, int s) { store_piece(tail_part, a, q, s); });
  for_suffix_pieces<N>(head, [&](int q, int s) { store_piece(head_pack, a, q, s); });
}

template <class T, int N>
__device__ __forceinline__ void store_wrapped_head(T* row, int head, int64_t cols, int tail,
                                                   const float (&v)[N]) {
  aligned_array<T, N> a;
  float_to_pack(v, a);
  store_wrapped_head(row, head, cols, tail, a);
}

/// How an op's apply() may read the per-column parameters (weights) of a pack. The op asks for
/// parameter vector i by `columns.param(i)` (i: its index in the op's column_param(i) list) and
/// passes that to load_column_params:
/// checked_columns: the pack may be partial, the parameters misaligned: tested per pack;
/// aligned_columns: the caller established that the pack lies inside the row and that every
/// parameter vector is aligned at it (the op's columns_aligned<N>(col)): plain aligned loads;
/// staged_columns: the pack's parameters were copied into shared memory (column_stage.cuh).
struct checked_columns {
  __device__ __forceinline__ checked_columns param(int) const { return *this; }
};
struct aligned_columns {
  __device__ __forceinline__ aligned_columns param(int) const { return *this; }
};
/// word_columns: the caller established that the pack lies inside the row and that every
/// parameter vector may be read by 4-byte words at it (column_params_word_readable; thread_packs.cuh
/// column_params_by_words_in_row): load_column_params_by_words without a test per pack.
struct word_columns {
  __device__ __forceinline__ word_columns param(int) const { return *this; }
};
/// word_then_pack_columns: the caller established that the pack lies inside the row with a column
/// before and after it, and that every present parameter vector stands one element before an
/// aligned access of its widest size there (thread_packs.cuh: column_params_word_then_pack_in_row;
/// rows one element past a 16-byte boundary, weights aligned): the pack's parameters are one
/// element (for 2-byte ones the 4-byte word holding it) and the first N - 1 of the aligned accesses
/// after it.
struct word_then_pack_columns {
  __device__ __forceinline__ word_then_pack_columns param(int) const { return *this; }
};
/// element_columns: the caller established that the pack lies inside the row, the parameters
/// neither aligned nor readable by words at it: N loads without a bounds test per element.
struct element_columns {
  __device__ __forceinline__ element_columns param(int) const { return *this; }
};

/// wrapped_columns: a wrapped head pack (load_wrapped_head_raw): slots [0, tail) are the columns
/// from cols - tail, slots [head, N) columns j - head; element by element.
struct wrapped_columns {
  int head;
  int tail;
  __device__ __forceinline__ wrapped_columns param(int) const { return *this; }
};

/// One parameter vector's values for one pack, in shared memory: N / Step aligned slots of Step
/// elements, Stride slots apart.
template <class W, int Step, int Stride>
struct staged_param {
  const aligned_array<W, Step>* first;
};
template <class W, int Step, int Stride, int Params>
struct staged_columns {
  const aligned_array<W, Step>* first[Params > 0 ? Params : 1];
  __device__ __forceinline__ staged_param<W, Step, Stride> param(int i) const { return {first[i]}; }
};

/// Elements of W per aligned parameter access for packs of N.
template <int N, class W>
inline constexpr int column_param_step = column_param_step_for(N, static_cast<int>(sizeof(W)));

/// Whether load_column_params<N> may take aligned accesses at col0 and at every column a
/// multiple of N * (threads) further (absent parameters: yes).
template <int N, class W>
__device__ __forceinline__ bool column_params_aligned(const W* w, int64_t col0) {
  return w == nullptr ||
         reinterpret_cast<uintptr_t>(w + col0) % (sizeof(W) * column_param_step<N, W>) == 0;
}

/// N per-column parameters (weights) of one pack as stored (W), in registers: what a write-back
/// reads for a pack before the previous pack is stored (thread_packs.cuh: preload_columns).
/// 2-byte values are kept two to a 32-bit word: held across a store as single elements, each took
/// a register of its own and layer_norm bf16 spilled (ptxas -v, bench/NOTES.md 51).
template <class W, int N>
struct column_param_values {
  static constexpr bool paired = sizeof(W) == 2 && N % 2 == 0;
  std::conditional_t<paired, unsigned[paired ? N / 2 : 1], W[N]> held;

  /// Elements [at, at + M) from a (M even when paired).
  template <int M>
  __device__ __forceinline__ void put(int at, const aligned_array<W, M>& a) {
    if constexpr (paired) {
      static_assert(M % 2 == 0, "2-byte values go in by words");
      const unsigned* w = reinterpret_cast<const unsigned*>(&a);
#pragma unroll
      for (int i = 0; i < M / 2; ++i) held[at / 2 + i] = w[i];
    } else {
#pragma unroll
      for (int j = 0; j < M; ++j) held[at + j] = a.v[j];
    }
  }

  __device__ __forceinline__ void to_floats(float (&out)[N]) const {
    if constexpr (paired) {
      aligned_array<W, N> a;
      unsigned* w = reinterpret_cast<unsigned*>(&a);
#pragma unroll
      for (int i = 0; i < N / 2; ++i) w[i] = held[i];
      pack_to_float(a, out);
    } else {
#pragma unroll
      for (int j = 0; j < N; ++j) out[j] = to_float(held[j]);
    }
  }
};

/// Every parameter vector's values for one whole pack, read ahead of the previous pack's store
/// (thread_packs.cuh: preload_columns); param(i) as the other column kinds.
template <class W, int N, int Params>
struct preloaded_columns {
  column_param_values<W, N> values[Params > 0 ? Params : 1];
  __device__ __forceinline__ const column_param_values<W, N>& param(int i) const { return values[i]; }
};

/// The pack's N parameters at col0 as stored, read the way `Columns` says (aligned_columns,
/// word_columns, word_then_pack_columns, element_columns below); load_column_params converts them.
/// Weights are re-read for every row, so they use the default (keep) cache policy.
template <int N, class W>
__device__ __forceinline__ void load_column_params_raw(const W* w, int64_t col0, int64_t,
                                                       column_param_values<W, N>& out, aligned_columns) {
  constexpr int step = column_param_step<N, W>;
#pragma unroll
  for (int s = 0; s < N; s += step) {
    aligned_array<W, step> a;
    load_pack(a, w + col0 + s);
    out.put(s, a);
  }
}

/// Values read ahead (preloaded_columns): converted only.
template <int N, class W>
__device__ __forceinline__ void load_column_params(const W*, int64_t, int64_t, float (&out)[N],
                                                   const column_param_values<W, N>& values) {
  values.to_floats(out);
}

/// Load N per-column parameters as fp32 for a whole pack at col0 read the way `Columns` says
/// (aligned accesses, by words, element by element).
template <int N, class W, class Columns,
          class = decltype(load_column_params_raw<N>(static_cast<const W*>(nullptr), int64_t{}, int64_t{},
                                                     std::declval<column_param_values<W, N>&>(), Columns{}))>
__device__ __forceinline__ void load_column_params(const W* w, int64_t col0, int64_t cols, float (&out)[N],
                                                   Columns columns) {
  column_param_values<W, N> values;
  load_column_params_raw<N>(w, col0, cols, values, columns);
  load_column_params<N>(w, col0, cols, out, values);
}

template <int N, class W, int Step, int Stride>
__device__ __forceinline__ void load_column_params(const W*, int64_t, int64_t, float (&out)[N],
                                                   staged_param<W, Step, Stride> staged) {
#pragma unroll
  for (int s = 0; s < N; s += Step) {
    const aligned_array<W, Step> a = staged.first[(s / Step) * Stride];
#pragma unroll
    for (int j = 0; j < Step; ++j) out[s + j] = to_float(a.v[j]);
  }
}

/// Packs whose misaligned parameters load_column_params reads by 4-byte words: 2-byte parameters
/// of packs of 4 or 8. Not 4-byte parameters (element by element is as many loads) nor one-element
/// packs: compiled into every kernel, the path cost registers there (ptxas -v: layer_norm's
/// one-element instances spilled up to 140 bytes with it, bench/NOTES.md session 38).
template <int N, class W>
inline constexpr bool column_params_by_words = sizeof(W) == 2 && N % 4 == 0;

/// Whether load_column_params_by_words may read the whole pack at col0 (whose N columns lie inside
/// the row): at an even address, or at an odd one when the columns just before and after the pack
/// are inside the row too (the outer words hold them).
template <int N, class W>
__device__ __forceinline__ bool column_params_word_readable(const W* w, int64_t col0, int64_t cols) {
  return reinterpret_cast<uintptr_t>(w + col0) % 4 == 0 || (col0 >= 1 && col0 + N < cols);
}

/// N 2-byte parameters from p, raw, for a whole pack whose parameters are not aligned like the
/// row's pack (rows one element past a 16-byte boundary, weights aligned;
/// column_params_word_readable): 4-byte loads and, at an odd element, one funnel shift per word.
/// Element by element, a 16-bit row's pack took eight 2-byte loads and bounds tests per weight
/// vector; this takes five loads and four shifts.
template <int N, class W>
__device__ __forceinline__ void load_column_params_raw_by_words(const W* p, aligned_array<W, N>& v) {
  constexpr int words = N * static_cast<int>(sizeof(W)) / 4;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  static_assert(column_params_by_words<N, W>, "2-byte parameters, packs of 4 or 8");
  // Stepped back from p, not rebuilt from the integer: the compiler then keeps the global space
  // of the kernel's pointer (LDG); a pointer made from an integer is generic (LD, bench/NOTES.md 46).
  const unsigned* q = reinterpret_cast<const unsigned*>(p - (a & 3u) / sizeof(W));
  const unsigned shift = static_cast<unsigned>(a & 3u) * 8u;  // 0, or 16 at an odd element
  unsigned raw[words + 1];
#pragma unroll
  for (int i = 0; i < words; ++i) raw[i] = q[i];
  raw[words] = shift != 0 ? q[words] : 0u;  // holds the pack's last element only when shifted
  unsigned* vw = reinterpret_cast<unsigned*>(&v);
#pragma unroll
  for (int i = 0; i < words; ++i) vw[i] = __funnelshift_r(raw[i], raw[i + 1], shift);
}

/// The same as fp32.
template <int N, class W>
__device__ __forceinline__ void load_column_params_by_words(const W* p, float (&out)[N]) {
  aligned_array<W, N> v;
  load_column_params_raw_by_words<N>(p, v);
#pragma unroll
  for (int j = 0; j < N; ++j) out[j] = to_float(v.v[j]);
}

/// The N raw parameters of a whole pack at col0 (its columns inside the row), at any alignment:
/// one aligned access, by words, or element by element, chosen per pack. For copies made once
/// per CTA (column_stage.cuh: the realigned stage), where a test per pack costs nothing.
template <int N, class W>
__device__ __forceinline__ void load_whole_pack_params_raw(const W* w, int64_t col0, int64_t cols,
                                                           aligned_array<W, N>& v) {
  if (reinterpret_cast<uintptr_t>(w + col0) % sizeof(aligned_array<W, N>) == 0) {
    load_pack(v, w + col0);
    return;
  }
  if constexpr (column_params_by_words<N, W>) {
    if (column_params_word_readable<N>(w, col0, cols)) {
      load_column_params_raw_by_words<N>(w + col0, v);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) v.v[j] = w[col0 + j];
}

template <int N, class W>
__device__ __forceinline__ void load_column_params(const W* w, int64_t col0, int64_t cols,
                                                   float (&out)[N], checked_columns = {}) {
  const bool whole = col0 >= 0 && col0 + N <= cols;
  if (whole && column_params_aligned<N>(w, col0)) {
    load_column_params<N>(w, col0, cols, out, aligned_columns{});
    return;
  }
  if constexpr (column_params_by_words<N, W>) {
    if (whole && column_params_word_readable<N>(w, col0, cols)) {
      load_column_params_by_words<N>(w + col0, out);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int64_t c = col0 + j;
    out[j] = (c >= 0 && c < cols) ? to_float(w[c]) : 0.0f;
  }
}

template <int N, class W>
__device__ __forceinline__ void load_column_params_raw(const W* w, int64_t col0, int64_t,
                                                       column_param_values<W, N>& out, element_columns) {
  if constexpr (column_param_values<W, N>::paired) {
    aligned_array<W, N> a;
#pragma unroll
    for (int j = 0; j < N; ++j) a.v[j] = w[col0 + j];
    out.put(0, a);
  } else {
#pragma unroll
    for (int j = 0; j < N; ++j) out.held[j] = w[col0 + j];
  }
}

template <int N, class W>
__device__ __forceinline__ void load_column_params_raw(const W* w, int64_t col0, int64_t cols,
                                                       column_param_values<W, N>& out, word_columns) {
  if constexpr (column_params_by_words<N, W>) {
    aligned_array<W, N> v;
    load_column_params_raw_by_words<N>(w + col0, v);
    out.put(0, v);
  } else {
    load_column_params_raw<N>(w, col0, cols, out, element_columns{});  // never chosen for such W
  }
}

/// Packs whose parameters word_then_pack_columns may read: packs of 4 or 8 of 2- or 4-byte
/// parameters (for fewer columns, element by element is as few loads).
template <int N, class W>
inline constexpr bool column_params_word_then_pack = (sizeof(W) == 2 || sizeof(W) == 4) && N % 4 == 0;

/// The element before an aligned block of the parameters (as the 4-byte word holding it for 2-byte
/// ones), then the aligned accesses after it: N / step + 1 loads, and for 2-byte parameters one byte
/// permute per word of the pack. Read word by word (five 4-byte loads for a 16-bit pack of 8) or
/// element by element (four for fp32), a warp's lanes 16 bytes apart made a request of 16-17
/// sectors per load, where the row's own pack takes one request of 16: 16-bit layer_norm (two
/// vectors) moved about as many bytes per second on an H200 as on an H100 at such rows, so the SM's
/// load path, not memory, is the likelier limit (bench/NOTES.md 53). Reads the parameter after the
/// pack too (with_whole_pack_columns checks that it is inside the row).
template <int N, class W>
__device__ __forceinline__ void load_column_params_raw(const W* w, int64_t col0, int64_t cols,
                                                       column_param_values<W, N>& out, word_then_pack_columns) {
  if constexpr (!column_params_word_then_pack<N, W>) {
    load_column_params_raw<N>(w, col0, cols, out, element_columns{});  // never chosen for such packs
  } else if constexpr (sizeof(W) == 2) {
    constexpr int words = N / 2;
    unsigned raw[words + 1];
    raw[0] = *reinterpret_cast<const unsigned*>(w + col0 - 1);  // 4-byte aligned
    aligned_array<W, N> after;
    load_pack(after, w + col0 + 1);  // aligned: word_then_pack_columns' contract
    const unsigned* aw = reinterpret_cast<const unsigned*>(&after);
#pragma unroll
    for (int i = 0; i < words; ++i) raw[i + 1] = aw[i];
    aligned_array<W, N> v;
    unsigned* vw = reinterpret_cast<unsigned*>(&v);
#pragma unroll
    for (int i = 0; i < words; ++i) vw[i] = __byte_perm(raw[i], raw[i + 1], 0x5432);  // high half, next low half
    out.put(0, v);
  } else {
    constexpr int step = column_param_step<N, W>;
    out.held[0] = w[col0];
#pragma unroll
    for (int s = 0; s < N; s += step) {
      aligned_array<W, step> after;
      load_pack(after, w + col0 + 1 + s);  // aligned: word_then_pack_columns' contract
#pragma unroll
      for (int j = 0; j < step; ++j)
        if (1 + s + j < N) out.held[1 + s + j] = after.v[j];
    }
  }
}

template <int N, class W>
__device__ __forceinline__ void load_column_params(const W* w, int64_t, int64_t cols, float (&out)[N],
                                                   wrapped_columns wrap) {
  const W* const head_pack = w - wrap.head;
  const W* const tail_part = w + (cols - wrap.tail);
#pragma unroll
  for (int j = 0; j < N; ++j)
    out[j] = j < wrap.tail ? to_float(tail_part[j]) : j >= wrap.head ? to_float(head_pack[j]) : 0.0f;
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
