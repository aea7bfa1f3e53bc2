// rowwise/dispatch/policy.hpp — tuning as plain data: the kernel configurations that exist and
// the thresholds the plan uses to choose among them. Kernels and the plan read this; nothing
// here runs.
#pragma once

#include <cstdint>

namespace rowwise {
namespace dispatch {

/// One instantiation of kernels::registers_kernel: G threads per row, K packs per thread,
/// `block` threads per block. Ordered by capacity (g * k packs per row), smallest first, so the
/// plan takes the first that holds the row: the fewest threads that keep <= 8 packs each.
struct registers_config {
  int g;
  int k;
  int block;
};

/// Sub-warp groups keep 2 packs per thread so that short rows still have two 16-byte loads in
/// flight per thread; a warp per row takes up to 8 packs (32 fp32 / 64 fp16 values); a block per
/// row takes 8 packs per thread up to 512 threads (at most 128 registers each). There is no
/// 1024-thread config: its 64-register limit spills with 32 values per thread (ptxas -v), and
/// with 16 it holds no more than 512 x 8 packs.
inline constexpr registers_config registers_configs[] = {
    {2, 2, 128},   {4, 2, 128},   {8, 2, 128},   {16, 2, 128},  {32, 2, 128},  {32, 4, 128},
    {32, 8, 128},  {64, 8, 64},   {128, 8, 128}, {256, 8, 256}, {512, 8, 512},
};
inline constexpr int registers_config_count =
    static_cast<int>(sizeof(registers_configs) / sizeof(registers_configs[0]));

/// Packs per thread of a config for packs of `pack_elems` values: the table's k, capped at 32
/// values per thread. 64 bf16 values took 128-158 registers (ptxas -v), which left 12 warps
/// per SM; 32 values keep it near 64-80.
constexpr int registers_k(int config, int pack_elems) {
  const int cap = pack_elems >= 32 ? 1 : 32 / pack_elems;
  return registers_configs[config].k < cap ? registers_configs[config].k : cap;
}

/// kernels::chunked_kernel: threads per block and packs per thread in flight per chunk.
inline constexpr int chunked_block = 512;
inline constexpr int chunked_unroll = 4;

/// Split rows over a cluster only when each CTA of the split still gets this many packs (16 KiB):
/// below it one CTA's loads are all in flight at once anyway, and the split only adds the
/// cluster launch and barrier (about 0.3 us, H200-FACTS.md).
inline constexpr int64_t min_packs_per_cluster_cta = 1024;

/// Largest cluster the plan uses (16 is non-portable but available on H100/H200).
inline constexpr int max_cluster = 16;

}  // namespace dispatch
}  // namespace rowwise
