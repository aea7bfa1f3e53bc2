// rowwise/kernels/thread_packs.cuh — the packs of a row one thread moves, and moving them so that
// every load is in flight before the first one is used.
//
// A thread handles packs p0, p0 + G, ..., p0 + (K-1) G of a row (G: the stride in packs, i.e.
// the threads sharing the row segment), below p_end. Pack p covers the columns
// [p N - head, p N - head + N) (row_io.cuh). Most packs are "whole" — inside the row and the
// segment — and take one aligned access from one base pointer with a 32-bit offset; only the
// row's head pack and packs past its end take the general, element-wise path.
//
// Why the two phases (measured on the H200, bench/NOTES.md): a conversion or a use placed inside
// the per-pack branch waits for that pack's load before the next branch issues its own, which
// serialised the K loads (bf16 fell from 96 % to 65 % of the copy floor at 1024 columns). So
// loads go into raw registers first; conversions follow once all are issued. A thread whose
// packs are all whole (every thread but a row's edge threads) takes branch-free loops.
#pragma once

#include <cstdint>

#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"

namespace rowwise {
namespace kernels {

template <int K, int G, int N>
struct thread_packs {
  static constexpr int stride = G * N;  // columns between a thread's consecutive packs
  bool active;
  int64_t p0;     // first pack
  int64_t p_end;  // packs >= p_end belong to another segment (or are past the row)
  int64_t cols;
  int64_t c0;     // column of the first pack (negative for a row's head pack)
  int room;       // columns from c0 coverable by whole packs (< N: none)

  __device__ __forceinline__ thread_packs(bool active_, int64_t p0_, int64_t p_end_, int64_t cols_,
                                          int head)
      : active(active_), p0(p0_), p_end(p_end_), cols(cols_), c0(p0_ * N - head), room(-1) {
    if (active && c0 >= 0) {
      const int64_t to_row_end = cols - c0;
      const int64_t to_seg_end = (p_end - p0) * N;
      int64_t r = to_row_end < to_seg_end ? to_row_end : to_seg_end;
      if (r > static_cast<int64_t>(K) * stride) r = static_cast<int64_t>(K) * stride;
      if (r < -1) r = -1;
      room = static_cast<int>(r);
    }
  }
  /// Pack k lies inside the row and the segment: one aligned access.
  __device__ __forceinline__ bool whole(int k) const { return k * stride + N <= room; }
  /// Every pack of the thread is whole (the branch-free case).
  __device__ __forceinline__ bool all_whole() const { return (K - 1) * stride + N <= room; }
  /// Pack k has at least one element of the row and belongs to the segment.
  __device__ __forceinline__ bool touches(int k) const {
    const int64_t p = p0 + static_cast<int64_t>(k) * G;
    return active && p < p_end && col(k) < cols;
  }
  /// Offset of pack k from the first, in elements: a constant, so addresses are base + immediate.
  __device__ __forceinline__ static constexpr int offset(int k) { return k * stride; }
  __device__ __forceinline__ int64_t col(int k) const { return c0 + offset(k); }
};

/// Load the thread's packs of an op's input as fp32 into v (slots outside the row hold Op::pad;
/// ok says which slots are row elements). With Fuse (default: the op's fuses_residual) it reads
/// in + residual, rounds the sum once to T, stores it back to the residual row and keeps that
/// stored value.
template <class Op, load_policy P, bool streaming_store, bool Fuse = Op::fuses_residual, int K,
          int G, int N, class T>
__device__ __forceinline__ void load_op_packs(const thread_packs<K, G, N>& tp, const T* in_row,
                                              T* res_row, float (&v)[K * N], slot_mask<K * N>& ok) {
  constexpr bool fused = Fuse;
  aligned_array<T, N> raw[K];
  aligned_array<T, N> res[fused ? K : 1];
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
    // all in flight.
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (!tp.whole(k) && tp.touches(k)) {
        ok.set_pack(k * N, load_row_pack_raw<P>(in_row, tp.col(k), tp.cols, raw[k], pad));
        if constexpr (fused)
          load_row_pack_raw<P>(static_cast<const T*>(res_row), tp.col(k), tp.cols, res[k], from_float<T>(0.0f));
      }
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[k * N]);
    pack_to_float(raw[k], pv);
    if constexpr (fused) {
      float r[N];
      pack_to_float(res[k], r);
      float sum[N];
#pragma unroll
      for (int j = 0; j < N; ++j) sum[j] = pv[j] + r[j];
      aligned_array<T, N> stored;  // the sum rounded once to T, as stored; the op reduces that
      float_to_pack(sum, stored);
      pack_to_float(stored, pv);
      if (tp.whole(k)) {
        store_pack<streaming_store>(res_row + tp.col(k), stored);
      } else if (tp.touches(k)) {
        store_row_pack<streaming_store>(res_row, tp.col(k), tp.cols, stored);
      }
    }
  }
}

template <bool InPlace, class Op, int N, class State>
__device__ __forceinline__ void apply_op(const Op& op, float (&v)[N], int64_t col0, const State& st) {
  if constexpr (InPlace)
    op.apply_in_place(v, col0, st);
  else
    op.apply(v, col0, st);
}

/// Apply the op to the thread's packs and store them as T. InPlace: v holds what the op's
/// partial_in_place left there (apply_in_place), else the input values (apply).
template <bool streaming_store, bool InPlace, int K, int G, int N, class Op, class T, class State>
__device__ __forceinline__ void store_op_packs(const thread_packs<K, G, N>& tp, const Op& op,
                                               const State& st, T* out_row, float (&v)[K * N]) {
  if (tp.all_whole()) {
    // Branch-free: the compiler may issue every pack's parameter loads (weights) up front.
    T* out0 = out_row + tp.c0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[k * N]);
      apply_op<InPlace>(op, pv, tp.col(k), st);
      store_whole_pack<streaming_store>(out0 + tp.offset(k), pv);
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      float(&pv)[N] = *reinterpret_cast<float(*)[N]>(&v[k * N]);
      if (tp.whole(k)) {
        apply_op<InPlace>(op, pv, tp.col(k), st);
        store_whole_pack<streaming_store>(out_row + tp.col(k), pv);
      } else if (tp.touches(k)) {
        apply_op<InPlace>(op, pv, tp.col(k), st);
        store_row_pack<streaming_store>(out_row, tp.col(k), tp.cols, pv);
      }
    }
  }
}

}  // namespace kernels
}  // namespace rowwise
