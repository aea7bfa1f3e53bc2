// rowwise/kernels/thread_packs.cuh — the packs of a row one thread moves, and moving them so that
// every load is in flight before the first one is used.
//
// A thread handles packs p0, p0 + G, ..., p0 + (K-1) G of a row (G: the stride in packs, i.e.
// the threads sharing the row segment), below p_end. Pack p covers the columns
// [p N - head, p N - head + N) (row_io.cuh). Most packs are "whole" — inside the row and the
// segment — and take one aligned access from one base pointer with a 32-bit offset; only the
// row's head pack and packs past its end take the general, element-wise path.
// Wrapped rows (`Wrap`, registers_kernel): when the row's partial last pack holds no more
// elements than its head pack leaves free (tail <= head: a row one element past a 16-byte
// boundary whose length is a multiple of N), those `tail` elements go into the head pack's free
// slots and the last pack is nobody's. Such a row spans as many packs as an aligned one
// (dispatch/plan.hpp: registers_row_packs_for), so it runs on the same config: a 4096-column
// bf16 row needs 512 packs, not 513. Packs of 4 and 8 (row_pack_span.hpp: packs_wrap).
//
// Why the two phases (measured on the H200, bench/NOTES.md): a conversion or a use placed inside
// the per-pack branch waits for that pack's load before the next branch issues its own, which
// serialised the K loads (bf16 fell from 96 % to 65 % of the copy floor at 1024 columns). So
// loads go into raw registers first; conversions follow once all are issued. A warp whose lanes'
// packs are all whole takes branch-free loops; in any other warp every lane takes the per-pack
// path (warp_all says why).
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/column_stage.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"
#include "rowwise/kernels/thread_pack_indices.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Whether `pred` holds in every lane of the warp taking this call (one vote). The loads and the
/// write-back take their branch-free path only when it holds for all of them: a warp whose lanes
/// chose by their own tests ran both paths one after the other (a row's first thread, holding its
/// partial head pack, took the tested path alone while the other 31 lanes waited: 16-bit
/// layer_norm rows offset by one ran at 21 of 32 active lanes on average, ncu, bench/NOTES.md 47).
/// Only a thread for which it holds takes that path, so any set of lanes voting is correct.
__device__ __forceinline__ bool warp_all(bool pred) { return __all_sync(__activemask(), pred) != 0; }

/// Load the thread's packs of an op's input as fp32 into v (slots outside the row hold Op::pad;
/// ok says which slots are row elements). With Fuse (default: the op's fuses_residual) it reads
/// in + residual, rounds the sum once to T, stores it back to the residual row and keeps that
/// stored value.
template <class Op, load_policy P, store_policy S, bool Fuse = Op::fuses_residual, bool WholeEdges = false,
          int K, int G, int N, bool Wrap, class T>
__device__ __forceinline__ void load_op_packs(const thread_packs<K, G, N, Wrap>& tp, const T* in_row,
                                              T* res_row, float (&v)[K * N], slot_mask<K * N>& ok,
                                              edge_pack_reads edges = {}) {
  constexpr bool fused = Fuse;
  aligned_array<T, N> res[fused ? K : 1];
  aligned_array<T, N> raw[K];
  const T pad = from_float<T>(Op::pad);
  if (warp_all(tp.all_whole())) {
    const T* in0 = in_row + tp.c0;
    const T* res0 = res_row + tp.c0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      load_pack<P>(raw[k], in0 + tp.offset(k));
      if constexpr (fused) load_pack<P>(res[k], res0 + tp.offset(k));
    }
    ok = slot_mask<K * N>::full();
    if constexpr (fused) {
      // Branch-free here too: the vote does not tell the compiler that every pack is whole, and
      // with the tested stores below compiled into this path too, bf16 16384-column rows offset
      // by one took 214 -> 271 us, their warps stalled at the row's barrier (ncu, H100,
      // bench/NOTES.md 47); with these, 208 us.
#pragma unroll
      for (int k = 0; k < K; ++k) {
        raw[k] = rounded_sum(raw[k], res[k]);  // as stored; the op reduces that
        store_pack<S>(res_row + tp.col(k), raw[k]);
      }
    }
  } else {
    // Every slot gets its pad value first and the loads overwrite it: had the pad been written
    // in an else branch, ptxas predicates both sides and the pad move of pack k waits for the
    // load of pack k (a write-after-write on the same registers), one load at a time.
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int j = 0; j < N; ++j) {
        raw[k].v[j] = pad;
        if constexpr (fused) res[k].v[j] = from_float<T>(0.0f);
      }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (tp.whole(k)) {
        load_pack<P>(raw[k], in_row + tp.col(k));
        if constexpr (fused) load_pack<P>(res[k], static_cast<const T*>(res_row) + tp.col(k));
        ok.set_pack(k * N, (1u << N) - 1u);
      }
    }
    if constexpr (WholeEdges) {
      // Edge packs (a row's head and tail) last, once the whole packs are all in flight. Where the
      // edge pack's 16 bytes lie inside the matrix (edge_pack_reads: a neighbouring row's or the
      // gap's elements fill the rest), one aligned load, its foreign slots padded after every load
      // is issued; else element by element (or by pieces). (Selecting the tail by its run-time
      // index instead, as the store does, cost 16-bit sub-warp rows two registers: 48 -> 50, one
      // CTA per SM less; ptxas -v.)
      const int tail = tp.head_pack_tail();
      aligned_array<T, N> wrap_raw, wrap_res;  // a wrapped head's tail pack, read whole
      unsigned read_whole = 0;                 // bit k: pack k was read whole and needs its pads
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k == 0 && tail > 0) {
          if (edges.head && edges.tail) {
            load_pack<P>(raw[0], in_row - tp.head());
            load_pack<P>(wrap_raw, in_row + (tp.cols - tail));
            if constexpr (fused) {
              load_pack<P>(res[0], static_cast<const T*>(res_row) - tp.head());
              load_pack<P>(wrap_res, static_cast<const T*>(res_row) + (tp.cols - tail));
            }
            read_whole |= 1u;
          } else {
            ok.set_pack(0, load_wrapped_head_raw<P>(in_row, tp.head(), tp.cols, tail, raw[0], pad));
            if constexpr (fused)
              load_wrapped_head_raw<P>(static_cast<const T*>(res_row), tp.head(), tp.cols, tail, res[0],
                                       from_float<T>(0.0f));
          }
        } else if (!tp.whole(k) && tp.touches(k)) {
          const bool readable = (tp.col(k) >= 0 || edges.head) && (tp.col(k) + N <= tp.cols || edges.tail);
          if (readable) {
            load_pack<P>(raw[k], in_row + tp.col(k));
            if constexpr (fused) load_pack<P>(res[k], static_cast<const T*>(res_row) + tp.col(k));
            read_whole |= 1u << k;
          } else {
            ok.set_pack(k * N, load_row_pack_raw<P>(in_row, tp.col(k), tp.cols, raw[k], pad));
            if constexpr (fused)
              load_row_pack_raw<P>(static_cast<const T*>(res_row), tp.col(k), tp.cols, res[k], from_float<T>(0.0f));
          }
        }
      }
      // The pads of the packs read whole: slots outside the row take the op's neutral value (the
      // residual's 0), a wrapped head's slots [0, tail) the row's last elements.
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (!(read_whole & (1u << k))) continue;
        const unsigned slots = (k == 0 && tail > 0)
                                   ? (((1u << tail) - 1u) | (((1u << N) - 1u) & ~((1u << tp.head()) - 1u)))
                                   : row_pack_slots<N>(tp.col(k), tp.cols);
#pragma unroll
        for (int j = 0; j < N; ++j) {
          const bool from_tail = k == 0 && j < tail;
          raw[k].v[j] = from_tail ? wrap_raw.v[j] : (slots >> j) & 1u ? raw[k].v[j] : pad;
          if constexpr (fused)
            res[k].v[j] = from_tail ? wrap_res.v[j] : (slots >> j) & 1u ? res[k].v[j] : from_float<T>(0.0f);
        }
        ok.set_pack(k * N, slots);
      }
    } else {
      // Edge packs (a row's head and tail) last, element by element, once the whole packs are
      // all in flight. (Selecting the tail by its run-time index instead, as the store does, cost
      // 16-bit sub-warp rows two registers: 48 -> 50, one CTA per SM less; ptxas -v.)
      const int tail = tp.head_pack_tail();
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k == 0 && tail > 0) {
          ok.set_pack(0, load_wrapped_head_raw<P>(in_row, tp.head(), tp.cols, tail, raw[0], pad));
          if constexpr (fused)
            load_wrapped_head_raw<P>(static_cast<const T*>(res_row), tp.head(), tp.cols, tail, res[0],
                                     from_float<T>(0.0f));
        } else if (!tp.whole(k) && tp.touches(k)) {
          ok.set_pack(k * N, load_row_pack_raw<P>(in_row, tp.col(k), tp.cols, raw[k], pad));
          if constexpr (fused)
            load_row_pack_raw<P>(static_cast<const T*>(res_row), tp.col(k), tp.cols, res[k], from_float<T>(0.0f));
        }
      }
    }
    if constexpr (fused) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        raw[k] = rounded_sum(raw[k], res[k]);  // as stored; the op reduces that
        if (tp.whole(k)) {
          store_pack<S>(res_row + tp.col(k), raw[k]);
        } else if (k == 0 && tp.head_pack_tail() > 0) {
          store_wrapped_head(res_row, tp.head(), tp.cols, tp.head_pack_tail(), raw[0]);
        } else if (tp.touches(k)) {
          store_row_pack<S>(res_row, tp.col(k), tp.cols, raw[k]);
        }
      }
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) pack_to_float(raw[k], *reinterpret_cast<float(*)[N]>(&v[k * N]));
}

/// Whether every present parameter vector of the op may be read by 4-byte words at every whole
/// pack of a row (2-byte parameters of packs of 4 or 8): `ref` is the row's whole packs' column
/// modulo N (tp.c0 mod N, the same in every thread of the row). At an even element the words are
/// the pack's own; at an odd one they hold a column before and one after it
/// (row_pack_span.hpp: words_around_whole_packs). One test per row, the same in the row's threads,
/// so that a warp takes one write-back.
template <class Op, int N>
__device__ __forceinline__ bool column_params_by_words_in_row(const Op& op, int ref, int64_t cols) {
  using params = op_column_params<Op>;
  using W = typename params::type;
  if constexpr (params::count == 0 || !column_params_by_words<N, W>) {
    return false;
  } else {
    const bool room_around = words_around_whole_packs(ref, cols, N);
    bool ok = true;
#pragma unroll
    for (int i = 0; i < params::count; ++i) {
      const W* w = op.column_param(i);
      if (w != nullptr) ok = ok && ((reinterpret_cast<uintptr_t>(w) + ref * sizeof(W)) % 4 == 0 || room_around);
    }
    return ok;
  }
}

/// Whether every present parameter vector of the op stands one element before an aligned access of
/// its widest size at the row's whole packs, and the row has a column before and after each of them
/// (ref as above): the row one element past a 16-byte boundary and the weights aligned, as in the
/// issues' offset rows (word_then_pack_columns). Other offsets read 2-byte weights by words with a
/// shift chosen at run time (word_columns), 4-byte ones element by element.
template <class Op, int N>
__device__ __forceinline__ bool column_params_word_then_pack_in_row(const Op& op, int ref, int64_t cols) {
  using params = op_column_params<Op>;
  using W = typename params::type;
  if constexpr (params::count == 0 || !column_params_word_then_pack<N, W>) {
    return false;
  } else {
    constexpr uintptr_t access = sizeof(W) * column_param_step<N, W>;
    bool before_access = words_around_whole_packs(ref, cols, N);
#pragma unroll
    for (int i = 0; i < params::count; ++i) {
      const W* w = op.column_param(i);
      if (w != nullptr)
        before_access = before_access && (reinterpret_cast<uintptr_t>(w) + (ref + 1) * sizeof(W)) % access == 0;
    }
    return before_access;
  }
}

/// Call body(columns) with the way the whole packs of a row read the op's column parameters: one
/// choice per row (ref: column_params_by_words_in_row), so that a warp's lanes take one path.
/// Aligned at the packs: aligned accesses; else one element before aligned accesses where
/// column_params_word_then_pack_in_row allows; else by words where column_params_by_words_in_row
/// allows; else element by element without tests.
template <int N, class Op, class Body>
__device__ __forceinline__ void with_whole_pack_columns(const Op& op, int ref, int64_t cols, Body&& body) {
  if (op.template columns_aligned<N>(ref))
    body(aligned_columns{});
  else if (column_params_word_then_pack_in_row<Op, N>(op, ref, cols))
    body(word_then_pack_columns{});
  else if (column_params_by_words_in_row<Op, N>(op, ref, cols))
    body(word_columns{});
  else
    body(element_columns{});
}

template <bool InPlace, class Op, int N, class State, class Columns>
__device__ __forceinline__ void apply_op(const Op& op, float (&v)[N], int64_t col0, const State& st,
                                         Columns columns) {
  if constexpr (InPlace)
    op.apply_in_place(v, col0, st, columns);
  else
    op.apply(v, col0, st, columns);
}

/// The column parameters of the whole pack at col0, every present vector, read the way `columns`
/// says (with_whole_pack_columns) but not yet converted.
template <int N, class Op, class Columns>
__device__ __forceinline__ auto preload_columns(const Op& op, int64_t col0, int64_t cols, Columns columns) {
  using params = op_column_params<Op>;
  // Absent vectors read as zeros, not left undefined: a value defined on one path only was kept
  // live through local memory across the packs (ptxas -v: hundreds of bytes of spill).
  preloaded_columns<typename params::type, N, params::count> p{};
#pragma unroll
  for (int i = 0; i < params::count; ++i)
    if (const auto* w = op.column_param(i); w != nullptr)
      load_column_params_raw<N>(w, col0, cols, p.values[i], columns.param(i));
  return p;
}

/// Apply the op to the packs k for which whole(k) holds, reading their column parameters from
/// global memory the way `columns` says, and store them (store(k)). Pack k + 1's parameters are
/// requested before pack k is stored: a load may not pass a store that might alias it, so in
/// program order each pack's weights were requested only after the previous pack's store and the
/// thread waited K round trips per row (ncu source sampling, bench/NOTES.md 50: 16-bit
/// layer_norm rows one element past a boundary spent 36 % of their samples there). Ahead: one
/// pack ahead, else in program order (registers it cannot spare). One pack, not all: every pack's weights read before the first store spilled fp32 instances (NOTES 20 h,
/// 50 f).
template <bool InPlace, bool Ahead, int K, int N, class Op, class State, class Columns, class ColOf, class Whole,
          class Store>
__device__ __forceinline__ void apply_store_params_ahead(const Op& op, const State& st, float (&v)[K * N],
                                                         int64_t cols, Columns columns, ColOf col_of,
                                                         Whole whole, Store store) {
  const auto pack = [&](int k) -> float(&)[N] { return *reinterpret_cast<float(*)[N]>(&v[k * N]); };
  if constexpr (!Ahead || op_column_params<Op>::count == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (whole(k)) {
        apply_op<InPlace>(op, pack(k), col_of(k), st, columns);
        store(k);
      }
  } else {
    using preloaded = decltype(preload_columns<N>(op, col_of(0), cols, columns));
    preloaded cur{};
    if (whole(0)) cur = preload_columns<N>(op, col_of(0), cols, columns);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      preloaded next{};
      if (k + 1 < K && whole(k + 1)) next = preload_columns<N>(op, col_of(k + 1), cols, columns);
      if (whole(k)) {
        apply_op<InPlace>(op, pack(k), col_of(k), st, cur);
        store(k);
      }
      cur = next;
    }
  }
}

/// Pack kt (1 <= kt < K, thread_packs::partial_tail) of v into pv. Its index is a run-time value:
/// a copy selected by compile-time compares, so that v is never indexed dynamically (which would
/// move it to local memory).
template <int K, int N>
__device__ __forceinline__ void copy_partial_tail_pack(const float (&v)[K * N], int kt, float (&pv)[N]) {
#pragma unroll
  for (int k = 1; k < K; ++k)
    if (k == kt) {
#pragma unroll
      for (int j = 0; j < N; ++j) pv[j] = v[k * N + j];
    }
}

/// Rows of a sub-warp group whose output rows follow each other in memory (out stride ==
/// cols) share their boundary pack: row r's partial tail pack is the aligned pack that row r + 1's
/// partial head pack is, row r's last `head` elements in its slots [0, head) where head is row
/// r + 1's. Two groups of one warp hold those two halves; merged through shuffles, the pack is one
/// 16-byte store instead of each half stored in pieces (2 + 4 + 8 bytes for a 16-bit head one
/// element in, element by element for fp32). The warp's first row stores its head and its last
/// row its tail in pieces, as do rows next to the matrix's ends. Uniform per launch (`on`), so
/// every lane of a warp reaches the shuffles.
struct edge_merge {
  bool on;              // this launch merges (registers_kernel: merges_edge_packs)
  bool prev_in_warp;    // row r - 1 is the previous group of this warp (its tail comes here)
  bool next_in_warp;    // row r + 1 is the next group of this warp and is a row (it takes the tail)
  int prev_tail_lane;   // the lane of row r - 1's group that holds its last, partial pack
};

/// Groups whose edge packs are stored merged: 16-bit rows of packs of 8 (16 bytes: the shuffled
/// words) on groups of 2 threads, 16 rows per warp. Measured on an H100 (bench/NOTES.md 46 c), the
/// form for every sub-warp group took 16-bit 32-column rows at offset 1 from 55 to 69 % of the copy
/// floor but 128-column ones (groups of 8) from 86 to 71 % and fp32 32-column ones from 69 to 54:
/// those rows are issue-bound, and the merge adds instructions to every lane of the warp.
/// (row_pack_span.hpp: merges_edge_packs, which the plan reads too.)
template <class T, int N, int G>
inline constexpr bool merges_edge_packs_v = merges_edge_packs(static_cast<int>(sizeof(T)), N, G);

/// The lane (within its group) that holds the last pack of a row of `cols` columns and head `head`:
/// pack 0's when the row wraps (its tail is in the head pack), else the row's last pack's.
template <int G, int N, bool Wrap>
__device__ __forceinline__ int row_tail_pack_lane(int64_t cols, int head) {
  if (Wrap && wrapped_row_tail(cols, N, head) > 0) return 0;
  return static_cast<int>(((cols + head - 1) / N) % G);
}

/// store_op_packs' edge packs (a row's partial head and tail) with merge.on: see edge_merge.
/// Called by every lane of the warp (the shuffles); rows at least 2 N long (the head and the
/// tail are different packs unless the row wraps).
template <store_policy S, bool InPlace, int K, int G, int N, bool Wrap, class Op, class T, class State>
__device__ __forceinline__ void store_merged_edge_packs(const thread_packs<K, G, N, Wrap>& tp, const Op& op,
                                                        const State& st, T* out_row, float (&v)[K * N],
                                                        const edge_merge& merge) {
  static_assert(N * sizeof(T) == 16, "16-byte packs: four shuffled words");
  const int tail = tp.head_pack_tail();               // > 0: pack 0 holds the row's tail too
  const bool holds_head = tp.c0 < 0 && tp.touches(0);  // the row's partial head pack is pack 0
  const int kt = tp.partial_tail();                     // k >= 1: the row's partial tail pack
  // Pack 0 is partial (the row's head, or its tail when the row has at most G packs).
  const bool edge0 = tp.touches(0) && !tp.whole(0);
  aligned_array<T, N> a0, at;
  if (edge0) {
    float p0[N];
#pragma unroll
    for (int j = 0; j < N; ++j) p0[j] = v[j];
    if (tail > 0)
      apply_op<InPlace>(op, p0, tp.c0, st, wrapped_columns{tp.head(), tail});
    else
      apply_op<InPlace>(op, p0, tp.col(0), st, checked_columns{});
    float_to_pack(p0, a0);
  }
  if constexpr (K > 1) {
    if (kt > 0) {
      float pv[N];
      copy_partial_tail_pack<K>(v, kt, pv);
      apply_op<InPlace>(op, pv, tp.col(kt), st, checked_columns{});
      float_to_pack(pv, at);
    }
  }
  // The row's partial tail pack, if this thread holds it: pack 0 (wrapped, or the row's last
  // when it has at most G packs) or pack kt.
  const bool tail_in_0 = tail > 0 || (edge0 && !holds_head);
  const bool holds_tail = tail_in_0 || kt > 0;
  // Row r - 1's tail to the lane holding row r's head pack (lane 0 of the group). Word by word
  // selected, not through a reference to either pack (that put them in local memory).
  const int warp_lane = static_cast<int>(threadIdx.x) % 32;
  const int src = holds_head && merge.prev_in_warp ? warp_lane - G + merge.prev_tail_lane : warp_lane;
  const uint4 w0 = *reinterpret_cast<const uint4*>(&a0);
  const uint4 wt = *reinterpret_cast<const uint4*>(&at);
  uint4 pw;
  pw.x = __shfl_sync(0xffffffffu, tail_in_0 ? w0.x : wt.x, src);
  pw.y = __shfl_sync(0xffffffffu, tail_in_0 ? w0.y : wt.y, src);
  pw.z = __shfl_sync(0xffffffffu, tail_in_0 ? w0.z : wt.z, src);
  pw.w = __shfl_sync(0xffffffffu, tail_in_0 ? w0.w : wt.w, src);
  const aligned_array<T, N> prev = *reinterpret_cast<const aligned_array<T, N>*>(&pw);
  if (holds_head) {
    const int head = tp.head();
    if (merge.prev_in_warp) {
      aligned_array<T, N> whole;
#pragma unroll
      for (int j = 0; j < N; ++j) whole.v[j] = j < head ? prev.v[j] : a0.v[j];
      store_pack<S>(out_row - head, whole);
    } else {
      store_row_pack<S>(out_row, tp.c0, tp.cols, a0);  // slots [head, N); a wrapped tail's are not the row's here
    }
  }
  if (holds_tail && !merge.next_in_warp) {
    if (tail > 0)
      store_row_pack<S>(out_row, tp.cols - tail, tp.cols, a0);  // slots [0, tail) at the row's end
    else if (tail_in_0)
      store_row_pack<S>(out_row, tp.col(0), tp.cols, a0);
    else
      store_row_pack<S>(out_row, tp.col(kt), tp.cols, at);
  }
}

/// Apply the op to the thread's packs and store them as T. InPlace: v holds what the op's
/// partial_in_place left there (apply_in_place), else the input values (apply). `stage`: where
/// the op's column parameters may already be (column_stage.cuh), else global memory.
/// MergeEdges (merges_edge_packs_v): the edge packs may be stored merged with the neighbouring
/// rows' when `merge.on` (edge_merge; registers kernel). ParamsAhead: the whole packs' column
/// parameters from global memory are requested a pack ahead (apply_store_params_ahead;
/// dispatch/policy.hpp: write_back_params_ahead).
template <store_policy S, bool InPlace, bool MergeEdges = false, bool ParamsAhead = false, int K, int G, int N,
          bool Wrap, class Op, class T, class State, class Stage = no_column_stage>
__device__ __forceinline__ void store_op_packs(const thread_packs<K, G, N, Wrap>& tp, const Op& op,
                                               const State& st, T* out_row, float (&v)[K * N],
                                               const Stage& stage = {}, const edge_merge& merge = {}) {
  constexpr bool can_merge = MergeEdges;
  static_assert(!MergeEdges || merges_edge_packs_v<T, N, G>, "merges_edge_packs_v");
  const auto pack = [&](int k) -> float(&)[N] { return *reinterpret_cast<float(*)[N]>(&v[k * N]); };
  // The row's whole packs' columns modulo N: where its column parameters stand against them.
  const int ref = static_cast<int>(tp.c0 & (N - 1));
  // The branch-free path when every lane of the warp may take it (warp_all); with a stage, the
  // threads that hold one take it as before (the tested path has no stage to read).
  // (The vote alone, not `whole && vote`: a test the load's branch already made let the compiler
  // thread that branch into this one, compiling the row's reduction twice; ptxas -v.)
  const bool whole = tp.all_whole();
  if (warp_all(whole) || (stage.holds() && whole)) {
    // Branch-free: the compiler may issue every pack's parameter loads (weights) up front. The
    // thread's packs are stride * N elements apart, so the op's column parameters are aligned
    // at all of them if at the first: one test per row instead of a bounds and an alignment
    // test per pack and parameter (which, with two weights, made layer_norm's write-back
    // several times longer than its arithmetic: SASS on the H200, bench/NOTES.md 19).
    T* out0 = out_row + tp.c0;
    const auto store_all = [&](auto columns_of) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        apply_op<InPlace>(op, pack(k), tp.col(k), st, columns_of(k));
        store_whole_pack<S>(out0 + tp.offset(k), pack(k));
      }
    };
    if (stage.holds()) {  // filled, aligned or realigned, since this row's packs are whole
      stage.wait();
      store_all([&](int k) { return stage.columns(op, k); });
    } else {
      // Aligned weights from global memory; misaligned ones (a row one element past a boundary,
      // weights aligned) by words or element by element, without a bounds and alignment test per
      // pack and weight (those tests and the selects they feed are what such rows execute beyond
      // the aligned ones: bench/NOTES.md 46 b).
      with_whole_pack_columns<N>(op, ref, tp.cols, [&](auto columns) {
        apply_store_params_ahead<InPlace, ParamsAhead, K, N>(
            op, st, v, tp.cols, columns, [&](int k) { return tp.col(k); }, [](int) { return true; },
            [&](int k) { store_whole_pack<S>(out0 + tp.offset(k), pack(k)); });
      });
    }
  } else {
    // Every lane of the warp, whole packs first: the same instructions in every lane but where a
    // lane's pack is partial (its row's head or tail) or past the row, so the warp runs one
    // write-back, not the branch-free one and then this one for its edge lanes alone.
    // The stage holds this thread's whole packs too in cluster grids (column_stage.cuh: start).
    // From global memory, each pack's weights were requested only after the previous pack was
    // stored: the row's head lane waited K round trips in every row while the rest of its cluster
    // waited for it (ncu, H100, layer_norm fp32 512 x 65536 offset by one: the cluster exchange's
    // wait 3x the aligned row's, bench/NOTES.md 50).
    if (stage.holds_partial()) {
      stage.wait();
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (tp.whole(k)) {
          apply_op<InPlace>(op, pack(k), tp.col(k), st, stage.columns(op, k));
          store_whole_pack<S>(out_row + tp.col(k), pack(k));
        }
      }
    } else {
      with_whole_pack_columns<N>(op, ref, tp.cols, [&](auto columns) {
        apply_store_params_ahead<InPlace, ParamsAhead, K, N>(
            op, st, v, tp.cols, columns, [&](int k) { return tp.col(k); }, [&](int k) { return tp.whole(k); },
            [&](int k) { store_whole_pack<S>(out_row + tp.col(k), pack(k)); });
      });
    }
    // The (at most two) partial packs last, element by element: the head (k = 0) and the tail.
    if (can_merge && merge.on) {
      // below, with every lane of the warp
    } else if (const int tail = tp.head_pack_tail(); tail > 0) {
      apply_op<InPlace>(op, pack(0), tp.c0, st, wrapped_columns{tp.head(), tail});
      store_wrapped_head<T>(out_row, tp.head(), tp.cols, tail, pack(0));
    } else if (!tp.whole(0) && tp.touches(0)) {
      apply_op<InPlace>(op, pack(0), tp.col(0), st, checked_columns{});
      store_row_pack<S>(out_row, tp.col(0), tp.cols, pack(0));
    }
    if constexpr (K > 1) {
      const int kt = (can_merge && merge.on) ? -1 : tp.partial_tail();
      if (kt > 0) {
        float pv[N];
        copy_partial_tail_pack<K>(v, kt, pv);
        const int64_t col = tp.c0 + static_cast<int64_t>(kt) * thread_packs<K, G, N, Wrap>::stride;
        apply_op<InPlace>(op, pv, col, st, checked_columns{});
        store_row_pack<S>(out_row, col, tp.cols, pv);
      }
    }
  }
  if constexpr (can_merge) {
    if (merge.on) store_merged_edge_packs<S, InPlace>(tp, op, st, out_row, v, merge);
  }
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
