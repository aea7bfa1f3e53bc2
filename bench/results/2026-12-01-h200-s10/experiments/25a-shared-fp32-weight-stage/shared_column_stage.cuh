// rowwise/kernels/shared_column_stage.cuh — the per-column parameters (weights) of a row held in
// registers, converted to fp32 once per CTA into shared memory and read by every row the CTA
// takes (a persistent grid, Block / G rows per step).
//
// Why: column_stage.cuh keeps each thread's weights in their own type and is refilled by every
// CTA; with one CTA per row step every row pays the weights' loads (from L1, or L2 when the row
// data has evicted them) and, for 16-bit weights, their conversion: ~5 of layer_norm's ~19
// instructions per value on a 64-value row (ncu, bench/NOTES.md 24f), where the kernel issues
// in 70 % of its cycles. Converted once and shared by the CTA's rows, a row's weights cost two
// 16-byte shared-memory loads per 8 values and no conversion.
//
// Contract
// - Built by the CTA's first group of G threads (the first row of each step) for the columns of
//   the launch's first row, then one __syncthreads(): `fill` must be called by every thread of
//   the CTA at the same point (the kernel's first row step, which every thread reaches).
// - Lane l of every group reads the slots lane l of the first group wrote; rows whose head
//   differs from the first row's read global memory (`for_row`), as do threads whose packs are
//   not all whole or whose parameters are not aligned there (the same test the writer made,
//   store_op_packs: the columns are the same).
// - Layout: slot ((j * K + k) * chunks + c) * G + lane holds floats [4c, 4c + 4) of the j-th
//   present parameter vector for pack k: a warp's 16-byte loads of one slot are consecutive.
#pragma once

#include <cstdint>

#include "rowwise/kernels/column_stage.cuh"
#include "rowwise/kernels/column_stage_size.hpp"
#include "rowwise/kernels/row_io.cuh"

namespace rowwise {
namespace kernels {

template <class Op, int N, int K, int G>
struct shared_column_stage {
  using params = op_column_params<Op>;
  static constexpr int count = params::count;
  static constexpr int step = 4;  // floats per 16-byte slot
  static constexpr int chunks = N / step;
  static constexpr bool possible = count > 0 && N % step == 0;
  using slot = aligned_array<float, step>;
  static constexpr unsigned bytes_per_param = static_cast<unsigned>(shared_column_stage_bytes_per_param(K, N, G));
  static_assert(!possible || bytes_per_param == K * chunks * G * sizeof(slot), "the layout fills the stage");

  const unsigned char* smem;
  bool usable;

  __device__ __forceinline__ static bool planned(const Op& op) {
    if constexpr (possible)
      return dynamic_smem_size() >= bytes_per_param * static_cast<unsigned>(present_column_params(op));
    else
      return false;
  }

  /// Convert the parameters of the packs of `tp` (the first group's, built with active = true for
  /// the launch's first row) into the stage. Every thread of the CTA calls it (a barrier).
  template <class TP>
  __device__ __forceinline__ static void fill(const Op& op, const TP& tp, unsigned char* smem) {
    if constexpr (possible) {
      if (!planned(op)) return;  // uniform over the CTA
      if (threadIdx.x < G && tp.all_whole() && op.template columns_aligned<N>(tp.c0)) {
        slot* base = reinterpret_cast<slot*>(smem) + threadIdx.x;
        int j = 0;
#pragma unroll
        for (int i = 0; i < count; ++i) {
          const auto* w = op.column_param(i);
          if (w == nullptr) continue;  // absent: the op never reads it
#pragma unroll
          for (int k = 0; k < K; ++k) {
            float f[N];
            load_column_params<N>(w, tp.col(k), 0, f, aligned_columns{});
#pragma unroll
            for (int c = 0; c < chunks; ++c) {
              slot s;
#pragma unroll
              for (int e = 0; e < step; ++e) s.v[e] = f[c * step + e];
              base[((j * K + k) * chunks + c) * G] = s;
            }
          }
          ++j;
        }
      }
      __syncthreads();
    }
  }

  __device__ __forceinline__ static shared_column_stage for_row(const Op& op, const unsigned char* smem,
                                                                bool same_head) {
    return {smem, same_head && planned(op)};
  }

  __device__ __forceinline__ bool holds() const { return usable; }
  /// Filled before the barrier in fill: nothing to wait for.
  __device__ __forceinline__ void wait() const {}

  __device__ __forceinline__ staged_columns<float, step, G, count> columns(const Op& op, int k) const {
    staged_columns<float, step, G, count> out{};
    if constexpr (count > 0) {
      const slot* base = reinterpret_cast<const slot*>(smem) + static_cast<int>(threadIdx.x) % G;
      int j = 0;
#pragma unroll
      for (int i = 0; i < count; ++i) {
        out.first[i] = base + (j * K + k) * chunks * G;
        j += op.column_param(i) != nullptr ? 1 : 0;
      }
    }
    return out;
  }
};

}  // namespace kernels
}  // namespace rowwise
