// rowwise/kernels/column_stage.cuh — the per-column parameters (weights) of the packs a thread
// holds, copied into shared memory by cp.async while the kernel's first row loads.
//
// Why: a norm's write-back reads its weights once the row is reduced. From global memory (L2 at
// best) that is a round trip on the row's critical path, and one per pack: a plain load may not
// pass an earlier store that might alias it, so pack k's weights are requested only after pack
// k-1 is stored. Staged, the weights arrive while the row itself loads, and the write-back reads
// them with shared-memory loads, which the compiler may move past the row's global stores.
//
// Contract
// - A thread stages the parameters of its own packs and reads only those, so its own
//   cp.async wait makes them visible: no barrier. Sub-warp groups each stage their copy.
// - A stage is built for the columns of the launch's first row (its head, row_io.cuh): rows
//   whose head differs (row strides that are not a multiple of N) read global memory instead.
// - It holds the thread's whole packs' parameters (all of them, or in cluster grids all but the
//   row's head or tail pack and those past the row), when cp.async exists (sm_80+) and the
//   launch gave the dynamic shared memory for the present vectors (the plan decides:
//   dispatch/plan.hpp, column_stage_bytes); otherwise nothing is copied and the write-back reads
//   global memory. Parameters aligned at the packs (op.columns_aligned) are copied by cp.async;
//   misaligned ones on 4-byte words by 4-byte cp.async pieces (copy_realigned_by_words), the
//   others through registers (copy_realigned), into the same layout.
#pragma once

#include <cstdint>
#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/column_stage_size.hpp"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/primitives/async_copy.cuh"
#include "rowwise/primitives/l2_prefetch.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// What an op declares about its per-column parameter vectors: `column_param_count` vectors of
/// `column_param_type`, the i-th at `column_param(i)` (null: absent). Ops without: none.
template <class Op, class = void>
struct op_column_params {
  static constexpr int count = 0;
  using type = float;
};
template <class Op>
struct op_column_params<Op, std::void_t<decltype(Op::column_param_count)>> {
  static constexpr int count = Op::column_param_count;
  using type = typename Op::column_param_type;
};

/// Bytes of dynamic shared memory that do.
__device__ __forceinline__ unsigned dynamic_smem_size() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

/// Parameter vectors of `op` that are present (non-null): what a stage holds. Host and device.
template <class Op>
__host__ __device__ __forceinline__ int present_column_params(const Op& op) {
  int n = 0;
  if constexpr (op_column_params<Op>::count > 0)
    for (int i = 0; i < op_column_params<Op>::count; ++i) n += op.column_param(i) != nullptr ? 1 : 0;
  return n;
}

/// Columns [c0, c1) of every per-column parameter vector `op` has into L2 (one bulk prefetch
/// each; a hint: primitives/l2_prefetch.cuh). Why: a write-back reads its pack's weights only
/// after the previous pack is stored (a load may not pass a store that might alias it), so a
/// CTA whose weights are not in L2 waits one DRAM round trip per pack, and in a launch's first
/// wave every CTA does, all at once, while DRAM idles. One thread of the first CTA (cluster)
/// issues this as the kernel starts, so the first wave finds them in L2.
template <class Op>
__device__ __forceinline__ void prefetch_column_params(const Op& op, int64_t c0, int64_t c1) {
  if constexpr (op_column_params<Op>::count > 0) {
#pragma unroll
    for (int i = 0; i < op_column_params<Op>::count; ++i) {
      const auto* w = op.column_param(i);
      if (w != nullptr && c1 > c0) prefetch_l2_bulk(w + c0, w + c1);
    }
  }
}

/// The stage for a kernel whose threads hold K packs of N elements, Block threads per CTA.
/// Layout: slot ((j * K + k) * chunks + c) * Block + thread holds chunk c of the j-th present
/// parameter vector for pack k, so a warp's shared-memory loads of one chunk are consecutive
/// (no bank conflicts). The stage keeps no state of its own across the row loop (registers are
/// what the 16-bit norms are short of): its address comes from the shared-memory symbol, and
/// whether a row's packs are the staged ones from the launch's dynamic shared memory and the
/// row's head (`for_row`).
template <class Op, int N, int K, int Block>
struct column_stage {
  using params = op_column_params<Op>;
  using W = typename params::type;
  static constexpr int count = params::count;
  static constexpr int step = column_param_step<N, W>;  // elements per aligned access
  static constexpr int chunks = N / step;
  static constexpr int copy_bytes = step * static_cast<int>(sizeof(W));
  static constexpr bool possible =
      count > 0 && column_stage_copyable(N, static_cast<int>(sizeof(W))) && async_copy::available;
  using slot = aligned_array<W, step>;
  /// Shared memory per present parameter vector (column_stage_size.hpp: the plan reserves the
  /// same); the layout above fills exactly that.
  static constexpr unsigned bytes_per_param =
      static_cast<unsigned>(column_stage_bytes_per_param(K, N, static_cast<int>(sizeof(W)), Block));
  static_assert(bytes_per_param == K * chunks * Block * sizeof(slot), "the layout fills the stage");

  unsigned char* smem;
  bool usable;         // the row's packs are the staged ones
  bool partial_packs;  // threads holding a partial pack staged their whole ones too (start)

  /// Whether the launch gave this kernel a stage for op's parameters.
  __device__ __forceinline__ static bool planned(const Op& op) {
    if constexpr (possible)
      return dynamic_smem_size() >= bytes_per_param * static_cast<unsigned>(present_column_params(op));
    else
      return false;
  }

  /// Copy the parameters of the packs of `tp` (built with active = true for the launch's first
  /// row: the columns, not a row), when planned: all of them when all are whole, else, with
  /// partial_packs (cluster grids), the whole ones. Staging a row's head lane's whole packs
  /// in grids of one CTA per row lost 2-4 points on fp32 rms_norm rows one element past a
  /// boundary on the H200 while it won 6-11 points at the clusters' 65536 columns (bench/NOTES.md
  /// 51), so only clusters, whose every CTA waits for that lane, take it. via_l1: the
  /// copies allocate in L1 (cp.async.ca), else 16-byte ones go through L2 only (.cg). Measured on
  /// the H200 (bench/NOTES.md 25g): through L1, one wave of CTAs each copying the same weights
  /// finished 128 x 4096 rms_norm bf16 in 1.86 us per call instead of 2.06 (layer_norm fp32 2.88
  /// -> 2.63, fused_add_rms_norm bf16 2.36 -> 2.16); one-CTA launches lost up to 0.11 us (rms_norm
  /// bf16 1 x 8192; choosing by the grid's size at run time cost more, NOTES 25i); persistent
  /// cluster grids lost with it (layer_norm fp32 65536 81 -> 78 % of the copy floor), so they
  /// keep .cg.
  template <class TP>
  __device__ __forceinline__ static void start(const Op& op, const TP& tp, unsigned char* smem, bool via_l1,
                                               bool partial_packs) {
    if constexpr (possible) {
      const bool all = tp.all_whole();
      if (!planned(op) || (!all && !partial_packs)) return;
      slot* base = reinterpret_cast<slot*>(smem) + threadIdx.x;
      if (!op.template columns_aligned<N>(tp.c0)) {
        if (realigned_by_words(op, tp.c0))
          copy_realigned_by_words(op, tp, all, base);
        else
          copy_realigned(op, tp, all, base);
        return;
      }
      for_each_slot(op, base, [&](const W* w, int k, int c, slot* dst) {
        if (!all && !tp.whole(k))
          return;
        else if (via_l1)
          async_copy::copy_ca<copy_bytes>(dst, w + tp.col(k) + c * step);
        else
          async_copy::copy<copy_bytes>(dst, w + tp.col(k) + c * step);
      });
      async_copy::commit();
    }
  }

  /// body(w, k, c, dst) for every present parameter vector w, pack k and chunk c, dst being the
  /// thread's slot for them (the layout above), in that order.
  template <class Body>
  __device__ __forceinline__ static void for_each_slot(const Op& op, slot* base, Body&& body) {
    int j = 0;
#pragma unroll
    for (int i = 0; i < count; ++i) {
      const W* w = op.column_param(i);
      if (w == nullptr) continue;  // absent: the op never reads it
#pragma unroll
      for (int k = 0; k < K; ++k)
#pragma unroll
        for (int c = 0; c < chunks; ++c) body(w, k, c, base + ((j * K + k) * chunks + c) * Block);
      ++j;
    }
  }

  /// Whether every present parameter vector's packs start on a 4-byte word at the columns of c0
  /// (the packs' columns differ by multiples of N, so one test holds for all of them): always for
  /// 4-byte parameters, for 2-byte ones at an even element.
  __device__ __forceinline__ static bool realigned_by_words(const Op& op, int64_t c0) {
    bool words = true;
#pragma unroll
    for (int i = 0; i < count; ++i) {
      const W* w = op.column_param(i);
      if (w != nullptr) words = words && reinterpret_cast<uintptr_t>(w + c0) % 4 == 0;
    }
    return words;
  }

  /// Misaligned parameters whose packs start on 4-byte words (fp32 weights of rows one element
  /// past a 16-byte boundary) go into the slots by 4-byte cp.async pieces: like the aligned copy,
  /// nothing waits for them before the row's first write-back. Through registers instead
  /// (copy_realigned), a thread waited K round trips, one per pack, once per CTA: in grids of one
  /// row per CTA that is every row (ncu, H100, rms_norm fp32 16384 x 2048 offset by one: 22 % of
  /// the warps' samples at that copy's shared-memory store, instructions 14.3 -> 26.1 M against
  /// the aligned row, bench/NOTES.md 50); in persistent cluster grids it held the whole cluster at
  /// its first exchange.
  template <class TP>
  __device__ __forceinline__ static void copy_realigned_by_words(const Op& op, const TP& tp, bool all, slot* base) {
    constexpr int pieces = copy_bytes / 4;
    for_each_slot(op, base, [&](const W* w, int k, int c, slot* dst) {
      if (!all && !tp.whole(k)) return;
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      const unsigned char* src = reinterpret_cast<const unsigned char*>(w + tp.col(k) + c * step);
#pragma unroll
      for (int q = 0; q < pieces; ++q) async_copy::copy_ca<4>(d + 4 * q, src + 4 * q);
    });
    async_copy::commit();
  }

  /// Parameters misaligned at the packs and not on 4-byte words (2-byte parameters at an odd
  /// element: cp.async cannot copy them) go into the same slots through registers, read as the
  /// unstaged write-back would read them (by words or element by element), so that every row's
  /// write-back reads its weights from shared memory as the aligned rows' does, instead of one
  /// global round trip per pack behind the previous pack's stores. The thread waits for these
  /// loads, so the registers kernel issues this copy after its first row's loads (never before
  /// them: registers_kernel.cuh, weights_first) and takes one pack at a time, holding no more
  /// registers than one pack's weights beside the row.
  template <class TP>
  __device__ __forceinline__ static void copy_realigned(const Op& op, const TP& tp, bool all, slot* base) {
#pragma unroll 1
    for (int k = 0; k < K; ++k) {
      if (!all && !tp.whole(k)) continue;
      int j = 0;
#pragma unroll
      for (int i = 0; i < count; ++i) {
        const W* w = op.column_param(i);
        if (w == nullptr) continue;
#pragma unroll
        for (int c = 0; c < chunks; ++c) {
          slot a;
          load_whole_pack_params_raw<step>(w, tp.col(k) + c * step, tp.cols, a);
          base[((j * K + k) * chunks + c) * Block] = a;
        }
        ++j;
      }
    }
  }

  /// The stage as seen by one row: usable when planned and the row's head is the first row's
  /// (then its packs are the staged columns, and filled, aligned or realigned, wherever the
  /// caller finds the thread's packs all whole).
  __device__ __forceinline__ static column_stage for_row(const Op& op, unsigned char* smem, bool same_head,
                                                         bool partial_packs) {
    return {smem, same_head && planned(op), partial_packs};
  }

  /// Whether the thread's packs, when all whole, are staged.
  __device__ __forceinline__ bool holds() const { return usable; }
  /// Whether its whole packs are staged when some are not (a row's head or tail lane).
  __device__ __forceinline__ bool holds_partial() const { return usable && partial_packs; }
  /// Before the first read: the thread's copies have landed.
  __device__ __forceinline__ void wait() const { async_copy::wait<0>(); }

  __device__ __forceinline__ staged_columns<W, step, Block, count> columns(const Op& op, int k) const {
    staged_columns<W, step, Block, count> out{};
    if constexpr (count > 0) {
      const slot* base = reinterpret_cast<const slot*>(smem) + threadIdx.x;
      int j = 0;
#pragma unroll
      for (int i = 0; i < count; ++i) {
        out.first[i] = base + (j * K + k) * chunks * Block;
        j += op.column_param(i) != nullptr ? 1 : 0;
      }
    }
    return out;
  }
};

/// No stage: the write-back reads global memory.
struct no_column_stage {
  __device__ __forceinline__ bool holds() const { return false; }
  __device__ __forceinline__ bool holds_partial() const { return false; }
  __device__ __forceinline__ void wait() const {}
  template <class Op>
  __device__ __forceinline__ checked_columns columns(const Op&, int) const { return {}; }
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
