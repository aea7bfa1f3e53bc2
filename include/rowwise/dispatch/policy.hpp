// rowwise/dispatch/policy.hpp — tuning as plain data: the kernel configurations that exist and
// the thresholds the plan uses to choose among them. Kernels and the plan read this; nothing
// here runs.
#pragma once

#include <cstdint>

#include "rowwise/numeric/pack.cuh"

namespace rowwise {
namespace dispatch {

/// One instantiation of kernels::registers_kernel: G threads per row, K packs per thread,
/// `block` threads per block. Ordered by capacity (g * k packs per row), smallest first, so the
/// plan takes the first that holds the row: the fewest threads that keep <= K packs each.
struct registers_config {
  int g;
  int k;
  int block;
};

/// Sub-warp groups keep 2 packs per thread so that short rows still have two 16-byte loads in
/// flight per thread; a warp per row takes up to 8 packs (32 fp32 / 64 fp16 values); block rows
/// take 8 packs per thread (capped at 32 values, registers_k) in steps of 64 threads up to 512,
/// so that a row of any length leaves at most one warp of its block idle (5120 bf16 columns:
/// 192 threads, not 256 with 96 of them half empty; bench/NOTES.md). The thread count is a
/// template parameter, not a launch-time value: with it, every pack's address is the base plus
/// an immediate; a launch-time count cost a register pair per pack and spilled (ptxas -v).
/// No 1024-thread rows: at the register budgets below they could not share an SM.
inline constexpr registers_config registers_configs[] = {
    {2, 2, 128},   {4, 2, 128},   {8, 2, 128},   {16, 2, 128},  {32, 2, 128},
    {32, 4, 128},  {32, 8, 128},  {64, 8, 64},   {128, 8, 128}, {192, 8, 192},
    {256, 8, 256}, {320, 8, 320}, {384, 8, 384}, {448, 8, 448}, {512, 8, 512},
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

/// Cache policy of the row data (read once, written once). Measured on the H200 (bench/NOTES.md):
/// plain loads and stores were as fast or faster than evict-first (ld/st.global.cs) at every
/// shape of the sweep, by up to 20 % of the copy floor for bf16 at 16384 columns.
inline constexpr load_policy row_load_policy = load_policy::keep;
inline constexpr bool streaming_stores = false;

/// Registers per thread the row kernels may use (__maxnreg__), by kind of op. A CTA that owns
/// whole rows has no loads in flight while it waits in its reduction barrier, so an SM needs
/// several of them to overlap; left alone, ptxas gave 128-thread softmax rows 127 registers (4
/// CTAs per SM, 63 % of the DRAM bandwidth in ncu) and 512-thread rows ~117 (one CTA per SM).
/// Each budget is the smallest at which ptxas (-v) reports no spills of consequence for that
/// kind (bench/NOTES.md): ops with per-column parameters hold them for every pack before the
/// stores; residual-fusing ops hold two rows' raw packs.
struct register_budget {
  int plain;           // softmax, log_softmax
  int with_params;     // layer_norm, rms_norm (weights loaded per pack)
  int fused_residual;  // fused_add_rms_norm
};
inline constexpr register_budget row_kernel_registers = {64, 80, 128};
constexpr int max_registers(bool fuses_residual, bool with_params) {
  return fuses_residual ? row_kernel_registers.fused_residual
                        : (with_params ? row_kernel_registers.with_params : row_kernel_registers.plain);
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
