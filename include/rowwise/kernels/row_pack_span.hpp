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

/// Whether rows of packs of n elements ever wrap (wrapped_row_tail): packs of 8 (16-bit rows)
/// only. Instances of other widths compile without the wrap's code.
__host__ __device__ __forceinline__ constexpr bool packs_wrap(int n) { return n > 4; }

/// The elements of a row's partial last pack that a registers kernel puts into the free slots
/// [0, tail) of the row's partial head pack, or 0: when the head pack is partial (head > 0), is
/// not the last pack, and has room for them (tail <= head: a row one element past a 16-byte
/// boundary whose length is a multiple of n). thread_packs.cuh says why. Packs of 8 only (16-bit
/// rows): with packs of 4 (fp32) the wrapped rows measured slower than rows one pack longer on
/// the next config at most widths (an H100, bench/results/2026-12-05-h100-s41/
/// experiment-wrap-rule: fp32 layer_norm / rms_norm offset-by-one medians 66 / 85 % wrapped, 74 /
/// 95 % not).
__host__ __device__ __forceinline__ constexpr int wrapped_row_tail(int64_t cols, int n, int head) {
  const int t = static_cast<int>((cols + head) % n);
  return packs_wrap(n) && head > 0 && t > 0 && t <= head && cols + head > n ? t : 0;
}

/// Packs a registers kernel's row spans: one fewer than row_pack_span when its last pack wraps.
__host__ __device__ __forceinline__ constexpr int64_t wrapped_row_pack_span(int64_t cols, int n, int head) {
  return row_pack_span(cols, n, head) - (wrapped_row_tail(cols, n, head) > 0 ? 1 : 0);
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
