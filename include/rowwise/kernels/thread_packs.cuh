// rowwise/kernels/thread_packs.cuh — the packs of a row one thread moves, and moving them so that
// every load is in flight before the first one is used.
//
// A thread handles packs p0, p0 + G, ..., p0 + (K-1) G of a row (G: the stride in packs, i.e.
// the threads sharing the row segment), below p_end. Pack p covers the columns
// [p N - head, p N - head + N) (row_io.cuh). Most packs are "whole" — inside the row and the
// segment — and take one aligned access from one base pointer with a 32-bit offset; only the
// row's head pack and packs past its end take the general, element-wise path.
// Wrapped rows (`wrap`, registers_kernel): when the row's partial last pack holds no more
// elements than its head pack leaves free (tail <= head: a row one element past a 16-byte
// boundary whose length is a multiple of N), those `tail` elements go into the head pack's free
// slots and the last pack is nobody's. Such a row spans as many packs as an aligned one
// (dispatch/plan.hpp: registers_row_packs_for), so it runs on the same config: a 4096-column
// fp32 row needs 1024 packs, not 1025, which had taken a block of 160 threads for 128.
//
// Why the two phases (measured on the H200, bench/NOTES.md): a conversion or a use placed inside
// the per-pack branch waits for that pack's load before the next branch issues its own, which
// serialised the K loads (bf16 fell from 96 % to 65 % of the copy floor at 1024 columns). So
// loads go into raw registers first; conversions follow once all are issued. A thread whose
// packs are all whole (every thread but a row's edge threads) takes branch-free loops.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/column_stage.cuh"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

template <int K, int G, int N>
struct thread_packs {
  static constexpr int stride = G * N;  // columns between a thread's consecutive packs
  bool active;
  int64_t p0;     // first pack
  int64_t p_end;  // packs >= p_end belong to another segment (or are past the row)
  int64_t cols;
  int64_t c0;     // column of the first pack (negative for a row's head pack)
  int room;       // columns from c0 to the row's or the segment's end (capped; < N: no pack)
  int tail;       // wrapped rows: the row's last elements that its head pack holds (0: none)

  __device__ __forceinline__ thread_packs(bool active_, int64_t p0_, int64_t p_end_, int64_t cols_,
                                          int head, bool wrap = false)
      : active(active_), p0(p0_), p_end(p_end_), cols(cols_), c0(p0_ * N - head), room(-1), tail(0) {
    if (wrap && N > 1 && active_) tail = wrapped_tail(cols_, head);
    if (active) {
      const int64_t to_row_end = cols - tail - c0;  // the wrapped tail is the head pack's
      const int64_t to_seg_end = (p_end - p0) * N;
      int64_t r = to_row_end < to_seg_end ? to_row_end : to_seg_end;
      if (r > static_cast<int64_t>(K) * stride) r = static_cast<int64_t>(K) * stride;
      if (r < -1) r = -1;
      room = static_cast<int>(r);
    }
  }
  /// The elements of a row's partial last pack that wrap onto its head pack (slots [0, tail)),
  /// or 0: when the head pack is partial (head > 0), is not the last pack, and has room for them.
  __device__ __forceinline__ static int wrapped_tail(int64_t cols, int head) {
    const int t = static_cast<int>((cols + head) % N);
    return head > 0 && t > 0 && t <= head && cols + head > N ? t : 0;
  }
  /// Pack 0 is a row's head pack holding its wrapped tail too.
  __device__ __forceinline__ bool wrapped_head() const { return tail > 0 && c0 < 0; }
  /// Pack k lies inside the row and the segment: one aligned access. (Only pack 0 of the
  /// thread that starts the row can begin before column 0.)
  __device__ __forceinline__ bool whole(int k) const {
    return (k > 0 || c0 >= 0) && k * stride + N <= room;
  }
  /// Every pack of the thread is whole (the branch-free case).
  __device__ __forceinline__ bool all_whole() const { return c0 >= 0 && (K - 1) * stride + N <= room; }
  /// The pack k > 0 that holds the row's last column when it is this thread's and partial, else
  /// -1. A row has at most two partial packs: its head (pack 0 of the thread with c0 < 0) and
  /// this tail. From room alone (32-bit; stride is a constant): the row ends inside pack
  /// k = room / stride exactly when 0 < room - k * stride < N (a segment's end never does:
  /// segments are whole packs).
  __device__ __forceinline__ int partial_tail() const {
    const int k = room / stride;
    const int rest = room - k * stride;
    return (k >= 1 && k < K && rest > 0 && rest < N) ? k : -1;
  }
  /// Pack k has at least one element of the row and belongs to the segment: p0 + k G < p_end
  /// and col(k) < cols, i.e. k * stride below both distances that room is the minimum of (room
  /// is -1 for an inactive thread). One 32-bit compare: the 64-bit form cost ~10 instructions
  /// per pack in every partial chunk of the streaming kernel (ncu, bench/NOTES.md 22).
  __device__ __forceinline__ bool touches(int k) const { return k * stride < room; }
  /// Offset of pack k from the first, in elements: a constant, so addresses are base + immediate.
  __device__ __forceinline__ static constexpr int offset(int k) { return k * stride; }
  __device__ __forceinline__ int64_t col(int k) const { return c0 + offset(k); }
};

/// Load the thread's packs of an op's input as fp32 into v (slots outside the row hold Op::pad;
/// ok says which slots are row elements). With Fuse (default: the op's fuses_residual) it reads
/// in + residual, rounds the sum once to T, stores it back to the residual row and keeps that
/// stored value.
template <class Op, load_policy P, store_policy S, bool Fuse = Op::fuses_residual, int K,
          int G, int N, class T>
__device__ __forceinline__ void load_op_packs(const thread_packs<K, G, N>& tp, const T* in_row,
                                              T* res_row, float (&v)[K * N], slot_mask<K * N>& ok) {
  constexpr bool fused = Fuse;
  aligned_array<T, N> res[fused ? K : 1];
  aligned_array<T, N> raw[K];
  const T pad = from_float<T>(Op::pad);
  if (tp.all_whole()) {
    const T* in0 = in_row + tp.c0;
    const T* res0 = res_row + tp.c0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      load_pack<P>(raw[k], in0 + tp.offset(k));
      if constexpr (fused) load_pack<P>(res[k], res0 + tp.offset(k));
    }
    ok = slot_mask<K * N>::full();
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
    // Edge packs (a row's head and tail) last, element by element, once the whole packs are
    // all in flight. (Selecting the tail by its run-time index instead, as the store does, cost
    // 16-bit sub-warp rows two registers: 48 -> 50, one CTA per SM less; ptxas -v.)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k == 0 && tp.wrapped_head()) {
        ok.set_pack(0, load_wrapped_head_raw<P>(in_row, tp.c0, tp.cols, tp.tail, raw[0], pad));
        if constexpr (fused)
          load_wrapped_head_raw<P>(static_cast<const T*>(res_row), tp.c0, tp.cols, tp.tail, res[0],
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
      } else if (k == 0 && tp.wrapped_head()) {
        store_wrapped_head(res_row, tp.c0, tp.cols, tp.tail, raw[0]);
      } else if (tp.touches(k)) {
        store_row_pack<S>(res_row, tp.col(k), tp.cols, raw[k]);
      }
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) pack_to_float(raw[k], *reinterpret_cast<float(*)[N]>(&v[k * N]));
}

template <bool InPlace, class Op, int N, class State, class Columns>
__device__ __forceinline__ void apply_op(const Op& op, float (&v)[N], int64_t col0, const State& st,
                                         Columns columns) {
  if constexpr (InPlace)
    op.apply_in_place(v, col0, st, columns);
  else
    op.apply(v, col0, st, columns);
}

/// Apply the op to the thread's packs and store them as T. InPlace: v holds what the op's
/// partial_in_place left there (apply_in_place), else the input values (apply). `stage`: where
/// the op's column parameters may already be (column_stage.cuh), else global memory.
template <store_policy S, bool InPlace, int K, int G, int N, class Op, class T, class State,
          class Stage = no_column_stage>
__device__ __forceinline__ void store_op_packs(const thread_packs<K, G, N>& tp, const Op& op,
                                               const State& st, T* out_row, float (&v)[K * N],
                                               const Stage& stage = {}) {
  const auto pack = [&](int k) -> float(&)[N] { return *reinterpret_cast<float(*)[N]>(&v[k * N]); };
  if (tp.all_whole()) {
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
    if (!op.template columns_aligned<N>(tp.c0)) {
      store_all([](int) { return checked_columns{}; });
    } else if (stage.holds()) {
      stage.wait();
      store_all([&](int k) { return stage.columns(op, k); });
    } else {
      store_all([](int) { return aligned_columns{}; });
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (tp.whole(k)) {
        apply_op<InPlace>(op, pack(k), tp.col(k), st, checked_columns{});
        store_whole_pack<S>(out_row + tp.col(k), pack(k));
      }
    }
    // The (at most two) partial packs last, element by element: the head (k = 0) and the tail.
    if (tp.wrapped_head()) {
      apply_op<InPlace>(op, pack(0), tp.c0, st, wrapped_columns{tp.tail, tp.cols - tp.tail});
      store_wrapped_head<T>(out_row, tp.c0, tp.cols, tp.tail, pack(0));
    } else if (!tp.whole(0) && tp.touches(0)) {
      apply_op<InPlace>(op, pack(0), tp.col(0), st, checked_columns{});
      store_row_pack<S>(out_row, tp.col(0), tp.cols, pack(0));
    }
    if constexpr (K > 1) {
      const int kt = tp.partial_tail();
      if (kt > 0) {
        // Its index is a run-time value: a copy selected by compile-time compares, so that v
        // is never indexed dynamically (which would move it to local memory).
        float pv[N];
#pragma unroll
        for (int k = 1; k < K; ++k)
          if (k == kt) {
#pragma unroll
            for (int j = 0; j < N; ++j) pv[j] = v[k * N + j];
          }
        const int64_t col = tp.c0 + static_cast<int64_t>(kt) * thread_packs<K, G, N>::stride;
        apply_op<InPlace>(op, pv, col, st, checked_columns{});
        store_row_pack<S>(out_row, col, tp.cols, pv);
      }
    }
  }
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
