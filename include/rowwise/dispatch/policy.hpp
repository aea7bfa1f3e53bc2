// rowwise/dispatch/policy.hpp — tuning as plain data: the kernel configurations that exist and
// the thresholds the plan uses to choose among them. Kernels and the plan read this; nothing
// here runs.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/numeric/load_policy.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

/// One instantiation of kernels::registers_kernel: G threads per row, K packs per thread,
/// `block` threads per block. Ordered by capacity (g * k packs per row), smallest first, so the
/// plan takes the first that holds the row: the fewest threads that keep <= K packs each.
struct registers_config {
  int g;
  int k;
  int block;
  int values = 32;  // most values one thread holds (caps k for narrow elements: registers_k)
};

/// Sub-warp groups keep 2 packs per thread so that short rows still have two 16-byte loads in
/// flight per thread; a warp per row takes 2, 3, 4, 6 or 8 packs; block rows take 8 packs per
/// thread (capped at 32 values, registers_k) in steps of one warp up to 384 threads. So common
/// widths fill every thread's packs exactly (768 bf16 columns: 32 x 3 packs; 5120 bf16:
/// 160 x 4; 12288 fp32: 384 x 8), and every thread takes the branch-free path of
/// thread_packs.cuh: with one partial pack per thread, 5120 bf16 columns ran at ~60 % of the
/// copy floor against ~94 % at 4096 (bench/NOTES.md). The thread count is a
/// template parameter, not a launch-time value: with it, every pack's address is the base plus
/// an immediate; a launch-time count cost a register pair per pack and spilled (ptxas -v).
/// Nothing above 384 threads: at the register budgets below two such CTAs fit an SM, and a
/// 512-thread row at 64 registers (2 CTAs) measured 62-84 % of the copy floor where the
/// streaming strategy (chunked_kernel) reached 84-94 % at 16384 columns (rms, layer_norm,
/// softmax fp32; bench/NOTES.md). Longer rows stream. (One exception: few rows spread over a
/// cluster, one CTA per SM, whose segments need 512 threads: few_rows_block below.)
inline constexpr registers_config registers_configs[] = {
    {2, 2, 128},   {4, 2, 128},   {8, 2, 128},   {16, 2, 128},  {32, 2, 128},  {32, 3, 128},
    {32, 4, 128},  {32, 6, 128},  {32, 8, 128},  {64, 8, 64},   {96, 8, 96},   {128, 8, 128},
    {160, 8, 160}, {192, 8, 192}, {224, 8, 224}, {256, 8, 256}, {288, 8, 288}, {320, 8, 320},
    {352, 8, 352}, {384, 8, 384},
    // Wide rows (wide_rows_rules below; never chosen by capacity, only where a row or a
    // cluster segment fills one exactly): 8 packs of 16-bit elements (64 values) per thread for
    // 2048 x k columns up to 16384, 5-7 packs on 32, 64 or 128 threads for 1280-1792, 2560-3584
    // and 5120-7168 columns, and 6 packs on 96 / 192 threads (4608, 9216). The first that fits
    // wins. The last holds 16 packs of 4 fp32 values (fp32 layer_norm's 16384 columns); for
    // 16-bit packs it is the 256 x 8 one before it.
    {32, 8, 128, 64},  {64, 8, 64, 64},   {96, 8, 96, 64},   {128, 8, 128, 64},
    {160, 8, 160, 64}, {192, 8, 192, 64}, {224, 8, 224, 64}, {256, 8, 256, 64},
    {32, 5, 128, 40},  {32, 6, 128, 48},  {32, 7, 128, 56},  {64, 5, 64, 40},
    {64, 6, 64, 48},   {64, 7, 64, 56},   {128, 5, 128, 40}, {128, 6, 128, 48}, {128, 7, 128, 56},
    {96, 6, 96, 48},   {192, 6, 192, 48}, {256, 16, 256, 64},
    // Few rows only (few_rows_block below): 32 values on 512 threads, one CTA per SM.
    {512, 8, 512},
};
inline constexpr int registers_config_count =
    static_cast<int>(sizeof(registers_configs) / sizeof(registers_configs[0]));
/// The configs of 32 values per thread, which the plan chooses by capacity, come first.
inline constexpr int narrow_registers_config_count = 20;
static_assert(registers_configs[narrow_registers_config_count - 1].values == 32 &&
                  registers_configs[narrow_registers_config_count].values > 32,
              "narrow configs first, then the wide ones");
/// The wide configs end where the few-rows config closes the table.
inline constexpr int few_rows_block_config = registers_config_count - 1;
inline constexpr int wide_registers_config_end = few_rows_block_config;
static_assert(registers_configs[few_rows_block_config].values == 32 &&
                  registers_configs[few_rows_block_config].block == 512 &&
                  registers_configs[wide_registers_config_end - 1].values > 32,
              "the wide configs, then the few-rows one");
/// Whether registers config `config` is a wide one (40-64 values per thread: wide_rows_rules).
constexpr bool is_wide_config(int config) {
  return config >= narrow_registers_config_count && config < wide_registers_config_end;
}

/// Packs per thread of a config for packs of `pack_elems` values: the table's k, capped at the
/// config's values per thread. 32 in general: 64 bf16 values took 128-158 registers (ptxas -v) in
/// the first kernels, which left 12 warps per SM; 32 values keep it near 64-80. The wide configs
/// hold 40-64 (wide_rows_rules, at their own register budget).
constexpr int registers_k(int config, int pack_elems) {
  const int values = registers_configs[config].values;
  const int cap = pack_elems >= values ? 1 : values / pack_elems;
  return registers_configs[config].k < cap ? registers_configs[config].k : cap;
}

/// Cache policy of the row data (read once, written once). Measured on the H200 (bench/NOTES.md):
/// plain loads and stores were as fast or faster than evict-first (ld/st.global.cs) at every
/// shape of the sweep, by up to 20 % of the copy floor for bf16 at 16384 columns.
inline constexpr load_policy row_load_policy = load_policy::keep;

/// How the row kernels store packs (numeric/load_policy.hpp): never evict-first (above); an
/// explicit vector store where it measured faster, else the compiler's choice. Measured on the
/// H200 (bench/NOTES.md 22): the compiler split some 16-byte stores into four 4-byte ones (the
/// streaming kernel's 2-pack tail body: softmax fp32 64 x 32000 took twice as long; 16-bit
/// softmax registers rows: bf16 1000 columns 84 -> 91 %, 1 x 8192 2.21 -> 2.09 us with vector
/// stores); but a vector store needs the pack in consecutive registers, and 16-bit ops with
/// weights, at their 64-register cap, then spilled more (rms_norm bf16 1 x 4096 1.49 -> 1.67 us,
/// 16384 85.5 -> 80.8 %; layer_norm bf16 65536 62.5 -> 58.9 %), as did the staged kernel
/// (fused_add_rms_norm fp32 65536 91.7 -> 89.9 %).
constexpr store_policy row_store_policy(bool staged_kernel, bool with_params, int elem_bytes) {
  if (staged_kernel || (with_params && elem_bytes < 4)) return store_policy::keep;
  return store_policy::vector;
}
/// The same as a constant the kernels can name.
template <bool StagedKernel, bool WithParams, int ElemBytes>
inline constexpr store_policy row_store_policy_v = row_store_policy(StagedKernel, WithParams, ElemBytes);

/// layer_norm fp32 rows of 64 KiB and more with both weights present go over clusters of CTAs of
/// this many threads (clustered_rows_rules), whose staged instances (`staged_two_weights`: an op
/// of two weight vectors, kernel with a column stage) get register_budget::two_weights_fp32_128:
/// five CTAs per SM, each staging 32 KiB of gamma + beta. With the generic rule's 256-thread CTAs
/// (three per SM at 80 registers, 64 KiB of stage each) the shared memory left ~23 KiB of L1 for
/// 96 KiB of row loads in flight, and any 64 KiB stage cost the same 11 points (bench/NOTES.md
/// s16 b). Measured (s16 e, % of the probe's floor, two runs; 4x the rows in brackets): 16384
/// 84.9 -> 87.2-88.0 (91 -> 94.5), 32768 81.8 -> 87.8-88.3 (87 -> 96.5), 65536 79.0 -> 83.3-83.9
/// (84 -> 92.6). Gamma-only layer_norm lost at 65536 (90-92 -> 86.6) and rms_norm gained nothing:
/// not theirs. The unstaged instance (many rows of 4096: no cluster, weights from L1) keeps 80:
/// at 96 it read 92.2-92.3 % against 93.1-94.1 at 80 in the session's other runs.
inline constexpr int two_weights_cluster_block = 128;

/// Registers per thread the row kernels may use (__maxnreg__), by kind of op and element size.
/// A CTA that owns whole rows has no loads in flight while it waits in its reduction barrier,
/// so an SM needs several of them to overlap; left alone, ptxas gave 128-thread softmax rows
/// 127 registers (4 CTAs per SM; ncu: 63 % of the DRAM bandwidth). Measured on the H200
/// (bench/NOTES.md): fp32 softmax rows (32 values and an accurate exp per thread) spill at 64
/// and reach 96 % at 80 against 82 %; 16-bit softmax rows fit 64 and lose ~10 points at 80 (fewer
/// CTAs); fp32 ops with per-column parameters spill below 80; 16-bit ones hold half the bytes
/// per thread, so they need the CTAs: at 64 (8 CTAs of 128 threads per SM, against 6 at 80)
/// bf16 rms_norm went from 90 to 100 % at 5120 columns and layer_norm from 67 to 79 %, despite
/// a few spilled words (NOTES 19); residual-fusing ops hold two rows' raw packs and spill
/// below ~128. Wide rows (64 16-bit values per thread, wide_rows_rules) at 96: ten CTAs of 64
/// threads per SM, the same bytes in flight as eight of 128 threads at 32 values; at 128 (eight
/// CTAs, no spills) bf16 layer_norm lost 3-15 points against 96 (a few spilled words; NOTES 24a).
/// That was before the next row's L2 prefetch (prefetch_next_row), which only kernels with at
/// most 64 KiB of row loads in flight per SM take: one wide row per CTA of 64 / 96 / 128 threads
/// (16-bit layer_norm 4096 / 6144 / 8192) holds 80 / 72 / 80 KiB at 96 registers (10 / 6 / 5
/// CTAs) and 64 / 60 / 64 KiB at 128 (8 / 5 / 4 CTAs), so at 128 they prefetch. Measured on the
/// H200 (bench/NOTES.md session 14 g, two runs of alternated builds, % of the probe's floor): bf16 layer_norm 4096
/// +0.7-1.2 points, 6144 +1.7-2.3, 8192 +0.8-1.2; fp16 4096 / 8192 +1.7-2.0. Not the others:
/// 192-thread CTAs drop from three to two (bf16 layer_norm 12288 -3.2), 32-thread rows four to a
/// 128-thread CTA (2048) lost 0.5-0.8; 160-thread CTAs gained (bf16 softmax 10240 +2.9-3.4,
/// rms_norm +1.2-1.5, layer_norm +0.4-0.8) but also hold the cluster segments of longer rows
/// (20480, 40960, ...), not measured at 128. Rows of 40-48 values per thread (5-6 packs) at 80.
struct register_budget {
  int plain_fp32;          // softmax, log_softmax on 4-byte elements
  int plain_16bit;         // softmax, log_softmax on 2-byte elements
  int with_params_fp32;    // layer_norm, rms_norm (weights loaded per pack) on 4-byte elements
  int with_params_16bit;   // the same on 2-byte elements
  int fused_residual;      // fused_add_rms_norm
  int wide_16bit;          // rows of 49-64 values per thread (wide configs), any op that has them
                           // (fp32 layer_norm's 256 x 16 packs too: raised to 128 for the same
                           // two CTAs per SM, row_kernel_registers_for)
  int wide_16bit_one_row;  // 64 values, one row per CTA of wide_one_row_min..max_threads threads
  int wide_16bit_48;       // rows of 33-48 values per thread (wide configs of 5-6 packs)
  int two_weights_fp32_128;  // layer_norm fp32, 32 values, one row (segment) per CTA of
                             // two_weights_cluster_block threads
  int two_weights_16bit_staged;  // layer_norm 16-bit, 32 values, one row per CTA of at most
                                 // two_weights_16bit_staged_max_block threads, column stage
};
inline constexpr register_budget row_kernel_registers = {80, 64, 80, 64, 128, 96, 128, 80, 96, 128};
/// 16-bit layer_norm rows of 32 values, one per CTA of at most this many threads, in the instance
/// with a column stage — launched only where every CTA is resident at once (plan.hpp:
/// column_stage_pays), so mostly calls of few rows — get register_budget::two_weights_16bit_staged
/// instead of with_params_16bit: at 64 registers the 128-thread row (4096 columns) spilled ~100
/// bytes (ptxas -v), which its one-row calls pay in their dependent chain (bench/NOTES.md 25c:
/// 128 registers, 2.32 -> 2.15 us at bf16 1 x 4096). Up to 256 threads since many-row cluster
/// grids of 16-bit layer_norm stopped staging their weights (clustered_rows_stage_weights): before,
/// the same instance served them and lost 7-15 points at 2 CTAs per SM (NOTES 23, experiments
/// 50); the one-wave calls it serves now gained 0.2-0.45 us per call (bf16 1 x 8192 2.34 -> 2.03,
/// 1 x 65536 3.32 -> 2.88; NOTES 24). One-wave calls of more rows than 2-3 such CTAs per SM hold
/// (264-528 rows of 4104-8192 columns) no longer stage (column_stage_pays), at the same occupancy.
inline constexpr int two_weights_16bit_staged_max_block = 256;
inline constexpr int wide_one_row_min_threads = 64;
inline constexpr int wide_one_row_max_threads = 128;
/// The budget of a kind of op holding `values` values per thread, in CTAs of `block` threads of
/// which `threads_per_row` hold one row (0, 0: not known, the budget of any CTA).
constexpr int max_registers(bool fuses_residual, bool with_params, int elem_bytes, int values = 32, int block = 0,
                            int threads_per_row = 0, bool staged_two_weights = false) {
  if (fuses_residual) return row_kernel_registers.fused_residual;
  if (staged_two_weights && elem_bytes >= 4 && values == 32 && block == two_weights_cluster_block &&
      threads_per_row == block)
    return row_kernel_registers.two_weights_fp32_128;
  if (staged_two_weights && elem_bytes < 4 && values == 32 && block <= two_weights_16bit_staged_max_block &&
      threads_per_row == block)
    return row_kernel_registers.two_weights_16bit_staged;
  if (values > 48)  // 8 packs (64 values) measured one row per CTA; 7 packs (56) were not
    return values == 64 && threads_per_row == block && block >= wide_one_row_min_threads &&
                   block <= wide_one_row_max_threads
               ? row_kernel_registers.wide_16bit_one_row
               : row_kernel_registers.wide_16bit;
  if (values > 32) return row_kernel_registers.wide_16bit_48;
  if (with_params)
    return elem_bytes >= 4 ? row_kernel_registers.with_params_fp32 : row_kernel_registers.with_params_16bit;
  return elem_bytes >= 4 ? row_kernel_registers.plain_fp32 : row_kernel_registers.plain_16bit;
}

/// CTAs of `block` threads at `regs` registers per thread one SM's register file holds, the way
/// the hardware allocates them (cuda_occupancy.h): per warp in units of 256 registers, in each of
/// the SM's four sub-partitions (a 65536-register SM: 16384 per sub-partition).
constexpr int ctas_by_registers(int regs, int block, int regs_per_sm = 65536) {
  const int per_warp = (regs * 32 + 255) / 256 * 256;
  const int warps = (block + 31) / 32;
  return (regs_per_sm / 4 / per_warp) * 4 / warps;
}

/// Threads one SM holds (every GPU since sm_75 but sm_86/89's 1536, where this only makes the
/// column stage's occupancy test below conservative).
inline constexpr int max_threads_per_sm = 2048;

/// CTAs of `block` threads at `regs` registers per thread resident on one SM: its register file's
/// count (ctas_by_registers), at most what its thread slots hold. The one count of the plan (CTAs
/// per SM, plan.hpp: row_kernel_ctas_per_sm) and of the kernel (its prefetch distance,
/// registers_kernel.cuh: registers_kernel_ctas), so that the two cannot differ.
constexpr int ctas_per_sm(int regs, int block, int regs_per_sm = 65536) {
  const int by_regs = ctas_by_registers(regs, block, regs_per_sm);
  return by_regs < max_threads_per_sm / block ? by_regs : max_threads_per_sm / block;
}

/// Whether a registers kernel prefetches into L2 the segment of the row it (in a persistent
/// cluster grid) or a CTA one wave later (a grid of one CTA per row step) takes next, while it
/// reduces and writes this one: when its register budget leaves an SM at most 64 KiB of row
/// loads in flight (CTAs x threads x the bytes each thread loads), too few to keep DRAM busy
/// through the rows' reductions and exchanges, and the row (segment) of a thread group spans at
/// least 1.5 KiB (one prefetch instruction per row and group; shorter rows were not measured).
/// Measured on the H200 (bench/NOTES.md 28, probe floor; every kernel in flight <= 64 KiB
/// against > 64 KiB): bf16 layer_norm 65536 74 -> 81 %, 16384 83 -> 91 %, 768 / 5120 89 -> 94 %;
/// fp16 alike; bf16 softmax / log_softmax 16384 93 / 91 -> 100 / 99 %, 1024 98 -> 100; bf16
/// rms_norm 65536 90 -> 94 %; bf16 fused_add_rms_norm 768-8192 +1 to +4 points; a few at -0.5 to
/// -2 (fp16 layer_norm 1024, bf16 rms_norm 2048 / 5120). With more in flight it cost 2-12
/// points (72-96 KiB: every fp32 kernel, 16-bit layer_norm 2048-8192 of 5-10 CTAs of 64-128
/// threads at 80 KiB, bf16 softmax 12288 at 72 KiB; cause not measured, likely the demand
/// loads queueing behind the prefetches once enough are in flight to cover the latency).
inline constexpr int prefetch_next_row_max_bytes_per_sm = 64 * 1024;
inline constexpr int prefetch_next_row_min_row_bytes = 1536;
constexpr bool prefetch_next_row(int regs, int block, int load_bytes_per_thread, int row_bytes_per_group) {
  return ctas_per_sm(regs, block) * block * load_bytes_per_thread <= prefetch_next_row_max_bytes_per_sm &&
         row_bytes_per_group >= prefetch_next_row_min_row_bytes;
}

/// The registers a row kernel of `block` threads, `threads_per_row` of them per row, holding
/// `values` values per thread may use: its kind's budget (max_registers), raised to the most that
/// keep the same CTAs per SM. Blocks whose warps do not divide the register file evenly get them
/// for free: 384 threads hold two CTAs per SM at 64 registers and at 80 (bf16 layer_norm 12288
/// columns spilled ~100 bytes at 64, ptxas -v); 320 fp32 threads two at 80 and at 96.
constexpr int row_kernel_registers_for(bool fuses_residual, bool with_params, int elem_bytes, int block,
                                       int values, int threads_per_row, bool staged_two_weights = false) {
  const int base =
      max_registers(fuses_residual, with_params, elem_bytes, values, block, threads_per_row, staged_two_weights);
  const int ctas = ctas_by_registers(base, block);
  for (int regs = 128; regs > base; regs -= 8)
    if (ctas_by_registers(regs, block) >= ctas) return regs;
  return base;
}

/// The cap a registers kernel instance compiles under: its budget (row_kernel_registers_for),
/// lowered to fused_16bit_wrap_registers for fused_add_rms_norm rows of 2-byte elements and at
/// most 32 values per thread in the instances with the wrap's code. What the plan counts CTAs
/// with is this cap (plan.hpp: row_kernel_registers_of), and so is the kernel's prefetch distance;
/// whether a kernel prefetches stays decided at the budget (row_kernel_prefetches), as measured.
///
/// Those rows used 91-96 registers under 128 until word_then_pack_columns took the wrap's
/// 64-thread instance to 106-112, 10 -> 9 CTAs per SM (bf16 32768 x 2048 offset by one 100.2 ->
/// 92.8 % on an H100, bench/NOTES.md 53); at 96 they compile to 90-96 without spills and read
/// 92.8 -> 98.5-98.9 % (bf16) and 96.8 -> 99.1-99.7 % (fp16) there (an H100, NOTES 55 e). The instances without
/// the wrap stay under 128 (93 registers): capped at 96 too, aligned rows of 1024-5120 columns read
/// 102 -> 101 % (NOTES 55).
///
/// Not capped (measured, NOTES 55): short 16-bit softmax / log_softmax rows at 48 registers (40-48
/// instead of 47-57) read 0.7-1.1 points less on an H100 (100.6-101.1 -> 99.6-100.0 %: 2097152 x 32,
/// 524288 x 128).
inline constexpr int fused_16bit_wrap_registers = 96;
inline constexpr int fused_16bit_wrap_max_values = 32;
constexpr int row_kernel_register_cap(int budget, bool fuses_residual, int elem_bytes, int values, bool wrap_code) {
  const bool capped = fuses_residual && elem_bytes == 2 && values <= fused_16bit_wrap_max_values && wrap_code;
  return capped && fused_16bit_wrap_registers < budget ? fused_16bit_wrap_registers : budget;
}

/// Whether a registers kernel of this kind (residual-fusing, with weights, element size), `block`
/// threads of which `threads_per_row` hold a row, `values` values each, prefetches its next rows:
/// prefetch_next_row at its register budget, every input row's bytes counted. One rule for the
/// kernel (registers_kernel.cuh) and the plan report (bench/plan_report.cpp).
constexpr bool row_kernel_prefetches(bool fuses_residual, bool with_params, int elem_bytes, int block, int values,
                                     int threads_per_row, bool staged_two_weights = false) {
  return prefetch_next_row(
      row_kernel_registers_for(fuses_residual, with_params, elem_bytes, block, values, threads_per_row,
                               staged_two_weights),
      block,
      values * elem_bytes * (fuses_residual ? 2 : 1), threads_per_row * values * elem_bytes);
}

/// Whether a registers kernel takes a two-pass op's moments (layer_norm) from thread shifts —
/// each thread's exact two-pass around its own first value, centring its values in place, then
/// one warp all-reduce of the sums rebased to the warp's first lane's mean — rather than from
/// warp shifts (a warp all-reduce of the sum for the warp's mean, a second pass around it, a
/// second all-reduce; kernels/registers_kernel.cuh: two_pass_moments). Thread shifts save a pass
/// over the values, an all-reduce in the row's dependent chain and a subtraction per value in the
/// write-back. Measured on the H200 (bench/NOTES.md session 18): fp32 layer_norm 1 / 16 x 4096
/// 2.16 / 2.22 -> 2.11 / 2.17 us, 64 x 32000 7.56 -> 7.40, without weights 1 x 4096 1.85 -> 1.68,
/// 16384 / 65536 columns +1 point of the copy floor, the rest within noise (8 x 152064 +0.2 us).
/// 16-bit rows lost at the 64-96-register budgets: centred values cannot be re-converted from the
/// packed loads, and the kernels spill more (bf16 2048 / 12288 94 / 88 -> 82 / 72 %; uncentred
/// thread shifts were mixed: 1 x 8192 -0.13 us, 1024 columns 95 -> 91 %). At 128 registers with a
/// column stage (the weights in shared memory: 128-thread rows of 32 values, the 64-value cluster
/// segments) they fit with no spill and gain (NOTES session 23, same-program A/B): bf16 / fp16
/// 65536 columns 81.5 / 84.8 -> 85.9 / 87.0 %, bf16 32768 +0.8, graph shapes 1 / 16 / 128 x 4096
/// 0.06-0.13 us per call (bf16 128 x 4096 2.14 -> 2.01). The unstaged 128-register instances
/// (64 values per thread, one CTA per row: 4096-16384 columns) lost there, bf16 by 2-3 points (8
/// bytes spilled, ptxas -v; fp16 unchanged), so they keep warp shifts.
constexpr bool two_pass_thread_shifts(int elem_bytes, int regs, bool staged) {
  return elem_bytes == 4 || (staged && regs >= 128);
}

/// Whether a registers kernel's CTA copies its column stage (both weight vectors) before its first
/// row's loads rather than after them: the 16-bit 64-value instances that stage, i.e. the segments
/// of persistent cluster grids (wide_rows_rules), where the kernel also checks at run time that the
/// CTA has more than one row step and that both vectors are present. Measured on the H200
/// (bench/NOTES.md session 30, same-program A/B, L2 flushed, 256 MiB per launch): bf16 / fp16
/// layer_norm 1024 x 65536 78.7 / 76.8 -> 76.1 / 75.3 us, bf16 512 x 131072 82.1 -> 79.1, 2730 x
/// 24576 89.9 -> 86.1, 2048 x 32768 75.6 -> 75.3. Not the others: fp32 layer_norm 512 x 65536 lost
/// 1.2 us with it, gamma-only layer_norm and rms_norm 1-2 us (every CTA's stage first), and one-wave
/// calls (the 32-value instances that also serve 128 x 4096) 0.04-0.09 us per call from the code
/// alone. Why a second vector's copy costs ~2.2 us once per launch when it queues behind the first
/// row's loads and the next row's prefetch was not found (not shared-memory carve-out: experiments 71).
constexpr bool stage_weights_before_rows(int elem_bytes, int values) { return elem_bytes < 4 && values == 64; }

/// Whether a registers kernel's write-back requests the next whole pack's column parameters
/// before it stores the present one (kernels/thread_packs.cuh: apply_store_params_ahead): one
/// more pack of parameters held, `params` vectors of `param_bytes` elements, packs of `pack`, so
/// 32-bit words params * pack * param_bytes / 4 more. Taken for fp32 rows with fp32 weights when
/// the budget keeps 24 registers beyond the row's `values` and twice those words.
/// Measured on an H100 (bench/NOTES.md 52, A/B against the old order, two interleaved sweeps):
/// fp32 rows gained and lost nowhere (layer_norm 2048 x 16384 93.4 -> 96.6 %, offset by one
/// 81.6 -> 88.2, 512 x 65536 offset 69.1 -> 77.2); 16-bit rows with 16-bit weights lost 4-7
/// points at one-row-per-CTA offset shapes (rms_norm fp16 8192 x 8192 97.0 -> 90.7,
/// fused_add_rms_norm bf16 32768 x 2048 100.0 -> 92.6) and gained 1-4 only at 65536 columns, so
/// they keep the old order (as do 16-bit rows with fp32 weights: not measured).
/// Register fit calibrated with ptxas -v on sm_90 (bench/NOTES.md 51): layer_norm bf16 at 64
/// registers (32 values, two weight vectors: 8 words) spilled 20 -> 684 bytes with it; fp32
/// layer_norm at 80 (8 words) none.
constexpr bool write_back_params_ahead(int params, int param_bytes, int elem_bytes, int pack, int values,
                                       int budget) {
  const int words = params * pack * param_bytes / 4;
  return params > 0 && elem_bytes == 4 && param_bytes == 4 && budget - values - 24 >= 2 * words;
}

/// Whether the CTAs of a cluster that shares a two-pass op's row (layer_norm) exchange their raw
/// two-pass sums (count, shift, sum of x - shift, sum of (x - shift)^2; merged by rebasing to the
/// first CTA's shift) rather than Welford summaries (mean and M2, each CTA dividing before it
/// sends): the row's one division then comes after the exchange, out of the chain before it
/// (kernels/registers_kernel.cuh: two_pass_moments). Measured on the H200 (bench/NOTES.md session
/// 28, builds alternated, graph of 100 calls): fp32 layer_norm 1 x 8192 (a cluster of 2) 1.995 ->
/// 1.941 us per call, 1 / 16 x 4096 -0.02 us, large shapes within their spread. In 16-bit
/// instances the same change moved ptxas's allocation instead (bf16 1024 x 65536 76.2 -> 78.1 us,
/// 4096 x 16384 70.4 -> 71.1, 1 / 16 / 128 x 4096 +0.03-0.05 us), so they keep the summaries.
constexpr bool two_pass_cluster_sums(int elem_bytes) { return elem_bytes == 4; }

/// Many 16-bit rows of an op with two weight vectors (layer_norm) that clustered_rows_rules split
/// over a cluster (32-value segments) read their weights from global memory at the write-back
/// instead of a column stage, although their grid is persistent. Measured on the H200
/// (bench/NOTES.md session 23, experiments 52; bf16 / fp16 weights, % of the copy floor, clusters
/// of 2 CTAs of 224-288 threads): without the stage 13312 columns 63 / 69 -> 72 / 79 %, 15360 62 / 65
/// -> 72 / 78 %, 18432 75 / 77 -> 80 / 84 %. The wide 64-value cluster segments (wide_rows_rules)
/// keep their stage: without it 28672-98304 columns lost 4-22 points (65536 86 -> 66 %, its staged
/// instance also having thread shifts); 20480 / 24576 gained 3-5, measured once, not yet a rule.
constexpr bool clustered_rows_stage_weights(int elem_bytes, bool two_weights) { return elem_bytes >= 4 || !two_weights; }

/// Copy the per-column parameters (weights) of the packs each thread holds into shared memory as
/// the registers kernel starts (kernels/column_stage.cuh), when that costs no CTA per SM.
/// column_stage_smem_overhead: what each CTA needs beside the stage (its static shared memory and
/// the 1 KiB the runtime reserves per CTA).
inline constexpr bool stage_column_params = true;
inline constexpr int64_t column_stage_smem_overhead = 3 * 1024;
/// Ops whose column stage also pays in grids of several waves (each CTA then copies its weights
/// through L1: kernels/column_stage.cuh): fp32 rows with one weight vector (rms_norm,
/// fused_add_rms_norm). Measured on the H200 (bench/NOTES.md 25j, probe floor): rms_norm fp32
/// 768-12288 columns +0.7-3.1 points (8192 94.5 -> 97.1, 12288 94.7 -> 97.7), fused_add_rms_norm
/// fp32 12288 97.5 -> 101.2, 4096 / 8192 +0.8-1.0; small shapes unchanged. Not layer_norm (two
/// vectors: fp32 up to -20 points) nor 16-bit rows (bf16 rms_norm 5120 -10; NOTES 25g).
constexpr bool column_stage_every_wave(int elem_bytes, int column_param_count) {
  return elem_bytes == 4 && column_param_count == 1;
}

/// Launch every kernel with programmatic stream serialisation (sm_90+): it may start while the
/// previous kernel of the stream finishes, and waits for it before touching memory. Overlaps the
/// launch gap of back-to-back small calls (bench/NOTES.md).
inline constexpr bool programmatic_dependent_launch = true;

/// kernels::chunked_kernel: threads per block and packs per thread in flight per chunk.
inline constexpr int chunked_block = 512;
/// Packs per thread per chunk: 32 values (8 fp32 packs, 4 of 16-bit), at most 8 accesses.
constexpr int chunked_unroll_for(int pack_elems) {
  return pack_elems >= 4 ? 32 / pack_elems : 8;
}

/// kernels::staged_kernel (long rows staged in shared memory): threads per block, stages (rows
/// resident per CTA: pass 2 of one, pass 1 of the next, the others loading), the largest
/// segment of a row one CTA stages per stage, values per thread per step of its passes, and the
/// CTAs per SM its register budget must allow.
/// Measured on the H200 (bench/NOTES.md 18) over 256-512 threads, 3-4 stages, 16-64 KiB
/// segments, 16-32 values and 1-8 CTAs per SM: 512 threads, 3 stages, 32 KiB per stage (all
/// inputs), 16 values and two CTAs per SM (64 registers) was best for the rms_norm family.
inline constexpr int staged_block = 512;
inline constexpr int staged_stages = 3;
inline constexpr int64_t staged_segment_bytes = 32 * 1024;
inline constexpr int staged_values_per_step = 16;
inline constexpr int staged_min_blocks = 2;
/// Stage only rows that read more than this many bytes (all inputs): up to it the streaming
/// strategy's second read is served by L2 (its resident rows fit) and was as fast or faster
/// (rms_norm fp32 16384: 94 % streaming vs 91 % staged; bf16 32768: 90 vs 86 %); above it the
/// second read goes to DRAM (fp32 65536: 58 vs 89 %). bench/NOTES.md 18.
inline constexpr int64_t staged_min_row_bytes = 64 * 1024;
/// Ops without per-column weights (softmax, log_softmax) stage with the streaming rule's cluster
/// instead (streaming_min_segment_bytes below: segments of 64 KiB or more, up to 16 CTAs), where
/// that splits the row and its stages fit shared memory (one CTA per SM). Measured on the H200
/// (bench/NOTES.md 22i, after the tail body and the lane merge of 22b): softmax fp32 152064 over
/// 8 CTAs 80 -> 92 %, 262144 over 16 81 -> 92 %, bf16 152064 over 4 71 -> 78 %, 262144 over 8
/// 73 -> 77 %, 65536 over 2 79 -> 84 % (staged against the streaming plan of the same cluster;
/// 32 KiB stages over twice the CTAs lost: fp32 152064 over 16 86 %). layer_norm lost staged
/// at every shape measured (50-57 % against 56-71 %) and keeps streaming.
inline constexpr bool staged_wide_segments_without_weights = true;
// The clustered-rows rules below come before staging. 16-bit softmax rows of 65536 columns (128
// KiB) were staged first from session 26 to 28 (89.1 % of the probe's floor against 84.8-85.9 in
// registers over 8 CTAs of 256, bench/NOTES.md 26). Measured again in session 29 (experiments 69,
// L2 flushed, us per launch of 256 MiB; which of sessions 27-28's kernel changes turned the
// order around was not measured): registers over 8 x 256, bf16 / fp16 softmax 72.4-73.3 /
// 71.1-72.2 against staged 76.3-77.2 / 76.4-77.8; log_softmax alike (72.5-73.1 / 71.2-72.5
// against 75.7-77.4 / 75.8-77.2). So that rule was removed.
constexpr int staged_unroll_for(int pack_elems) {
  return staged_values_per_step / pack_elems > 0 ? staged_values_per_step / pack_elems : 1;
}

/// The kinds of op a plan rule can name, from the traits the plan sees (dispatch/plan.hpp
/// op_kind_of): softmax / log_softmax (no weights), layer_norm (weights, never staged), rms_norm
/// (weights, staged, one input), fused_add_rms_norm (weights, staged, two inputs).
enum op_kind : unsigned {
  softmax_kind = 1u,
  layer_norm_kind = 2u,
  rms_norm_kind = 4u,
  fused_kind = 8u,
};
/// The kind of an op with these traits: weights (column_params), long rows staged (staged_op),
/// matrices read per row (row_inputs: 2 for the residual-fusing op).
constexpr unsigned op_kind_for(bool column_params, bool staged_op, int row_inputs) {
  if (!column_params) return softmax_kind;
  if (!staged_op) return layer_norm_kind;
  return row_inputs == 2 ? fused_kind : rms_norm_kind;
}

/// The ops whose 16-bit registers kernels have one instance per config, with the wrap's code
/// (kernels/row_pack_span.hpp), for plans whose rows wrap and plans whose rows do not; the other
/// ops have a second instance without it for the latter (plan.hpp: wrap_instance, launch.cuh).
/// layer_norm: its aligned rows measured slower on the instances without the wrap's code, which
/// ptxas spilled more (an H200, bench/results/2026-12-05-h200-s42/ab-ddc041a-4d47a67: fp16 / bf16
/// 65536 x 1024 96.5 / 94.8 -> 89.4 / 91.4 % of the copy floor; that fp16 instance's spill
/// stores 52 -> 72 bytes, loads 68 -> 124, ptxas -v). softmax's gained (bf16: +4 to +5 points at
/// 128-65536 columns, 92.0 -> 97.1 % median), rms_norm's and fused_add_rms_norm's held (within
/// about a point).
inline constexpr unsigned wrap_instance_only_ops = layer_norm_kind;

/// Whether registers kernels of this op kind and pack width have only the instance with the wrap's
/// code: wrap_instance_only_ops, packs of 8 only (fp32 layer_norm keeps its instances without it,
/// as measured before its rows wrapped).
constexpr bool wrap_instance_only(unsigned op_kind, int n) { return (wrap_instance_only_ops & op_kind) != 0 && n == 8; }

/// Many rows of 16-bit elements held 40-64 values per thread (the wide configs: 5-8 packs of 8)
/// instead of 32: fewer threads per row, so the per-row work of each thread (its row set-up, the
/// warp and block reductions, the weights' addresses) is spread over more values, while an SM
/// still holds about the same bytes in flight (eight CTAs of 64 threads x 64 values at 128
/// registers, as eight of 128 x 32 at 64; register_budget). Only where it applies exactly
/// (plan.hpp wide_rows_plan): 16-byte aligned rows that fill a wide config (G x K packs, every
/// thread's packs whole), and more rows than one wave of its CTAs (with fewer, each row's
/// latency decides, and it grows with the values per thread: bf16 layer_norm 1 x 4096 2.3 ->
/// 3.6 us, rms_norm 128 x 4096 2.1 -> 3.0 us). For the ops in `ops`: rows whose 32-value config would take more than
/// above_block threads (one CTA per row); and rows past one CTA's registers (more than 256 x 64
/// values), with max_cluster > 1, split over the smallest cluster of up to max_cluster CTAs
/// whose segments fill a wide config of at least wide_cluster_min_threads threads.
/// Measured on the H200 (% of the probe's floor, 32 values -> wide; bf16, fp16 alike):
/// - layer_norm (NOTES 24a, 24c): 2048 88 -> 94, 2560 67 -> 91 (64 x 5 packs), 3584 70 -> 92,
///   4096 87 -> 92, 5120 86 -> 89 (128 x 5), 7168 83 -> 91, 8192 84 -> 92, 12288 75 -> 89, 16384
///   70 -> 83 (over 2 CTAs before); over clusters 32768 69 -> 81 (2 x 256), 65536 65 -> 73
///   (4 x 256; streaming before); 4608 72 -> 91, 9216 81 -> 88 (96 / 192 x 6 packs, NOTES 24i).
///   Rows that fill a wide config only partly (5120 over 96 x 8) lost 30 points: every thread
///   takes the edge path.
/// - rms_norm past 256 threads: 12288 89 -> 95, 16384 89 -> 93; over clusters 32768 87 -> 90,
///   65536 83 -> 90 (staged before); at 2048-8192 one CTA lost 1-3 points.
/// - softmax / log_softmax past 256 threads: 9216 85 -> 98 (192 x 6), 12288 91 -> 96, 16384 91 ->
///   92; over clusters
///   65536 86 -> 84 (4 x 256 against 8 x 256 x 32 values): not split.
/// - a bf16 pair converted by a shift and a mask (2 instructions, not 3) lost up to 16 points for
///   layer_norm (ptxas's allocation again; NOTES 24c).
/// - fp32 layer_norm at 16384 columns (no 32-value CTA holds it: 512 threads would be one CTA per
///   SM): one CTA of 256 threads x 16 packs of 4 per row (128 registers, no spill, two CTAs per
///   SM, 128 KiB of row loads in flight, weights from L2 at the write-back) instead of clusters
///   of 4 CTAs of 128 x 32 values (five per SM, 80 KiB, weights staged): 2048 rows, L2 flushed,
///   76.45-76.70 -> 74.75-75.49 us (session 29, experiments 68); in the sweeps 89.8 -> 90.9 % of
///   the copy floor (91.0-91.1 in three re-runs). rms_norm on the same form was unchanged
///   (72.9-73.7 against 73.1-73.5), and the same rows over clusters of 2 CTAs of 128 x 64 values
///   were slower (84-104 us): not theirs.
/// - 16-bit fused_add_rms_norm past 256 threads, also over clusters (session 32, experiments 79;
///   L2 flushed, us per launch of 256 MiB, three builds alternated): bf16 / fp16 12288 (192 x 8
///   packs) 76.4-78.4 / 76.1-77.1 -> 71.7-72.4 / 71.1-71.9 (staged over 2 before), 16384 (256 x 8)
///   76.4-76.8 / 75.4-76.2 -> 72.0-72.5 / 71.8-72.3 (streaming before); over clusters (staged
///   over 4 / 8 before) 32768 (2 x 256 x 8) 75.4-76.2 / 74.9-76.2 -> 74.4-75.3 / 74.6-75.4 and
///   65536 (4 x 256 x 8) 75.6-76.5 / 75.4-75.8 -> 74.3-75.5 / 74.8-75.6. Its 128 registers hold
///   both inputs' packs as they arrive: 113-128 used, no spills (ptxas -v).
/// Not for other fp32 rows (32 values are already 8 packs).
struct wide_rows_rule {
  int elem_bytes;
  unsigned ops;     // op_kind bits
  int above_block;  // threads of the 32-value config above which one CTA per row applies
  int max_cluster;  // rows past one wide CTA over up to this many CTAs (1: not split)
  int min_weights = 0;  // weight vectors the call must have (as measured)
};
inline constexpr wide_rows_rule wide_rows_rules[] = {
    {2, layer_norm_kind, 0, 8},
    {2, rms_norm_kind, 256, 8},
    {2, softmax_kind, 256, 1},
    {2, fused_kind, 256, 8},
    {4, layer_norm_kind, 384, 1, 2},  // measured with both weights only
};
/// Wide cluster segments are held by at least this many threads (they stage their weights:
/// fewer configs compiled with a column stage).
inline constexpr int wide_cluster_min_threads = 128;
/// Many rows split over a cluster: each row over the smallest cluster (2..max_cluster CTAs) whose
/// CTAs hold their segment in registers with at most max_block threads (or, `staged`, whose CTAs
/// stage it in shared memory within staged_segment_bytes: staged_kernel), for rows of
/// elem_bytes-byte elements (16-byte packs) reading at least min_row_bytes, of the ops in `ops`.
/// A rule takes rows too long for one CTA's registers and, when split_above_block > 0, also rows
/// one CTA would hold with more threads than that. The first rule that fits wins. Measured on the
/// H200 (L2 flushed, % of the copy floor):
/// - fp32 softmax / log_softmax, 32768 columns over 4 CTAs of 256 threads: 74 -> 91-92 % against
///   streaming; 65536 over 8: 68 -> 90 % (NOTES 19h, 20); at 20480 (80 KiB) no better. Over 16
///   since the row step's cost stopped depending on its fill (NOTES 22b): 131072 over 16 CTAs
///   97 % against 92 % staged (NOTES 23c).
/// - fp32 layer_norm / rms_norm (one input), 64 KiB rows and more (NOTES 23c; against streaming /
///   staged): layer_norm 16384 over 2 CTAs 82 -> 88 %, 32768 over 4 77 -> 84 %, 65536 over 8
///   70 -> 83 %, 131072 over 16 64 -> 78 %; rms_norm 94 -> 95, 92 -> 97, 90 -> 95, 88 -> 93 %.
///   (Before NOTES 22b, layer_norm had lost over clusters: 72 / 66 % against 81 / 74 %.)
/// - fp32 layer_norm with both weights passed (min_weights), 64 KiB rows and more: over CTAs of
///   two_weights_cluster_block threads (NOTES s16 e; the numbers at that constant).
/// - 16-bit softmax / log_softmax over clusters of up to 8 CTAs of at most 256 threads (NOTES
///   23c), also rows that one CTA of more than 256 threads would hold: bf16 12288 over 2 CTAs of
///   192 86 -> 95 % (one CTA of 384), 32768 over 4 85 -> 92 % (streaming), 65536 over 8 82 -> 88 %
///   (staged over 2). 16 CTAs of 288-320 threads lost to staging (bf16 131080 55 against 67 %,
///   152064 59 against 77 %, NOTES 23d); 16 of 256 (131072) was not measured.
/// - 16-bit layer_norm rows just past one CTA's registers (> 384 threads x 32 values), over 2 CTAs
///   of at most 320 threads: bf16 16384 63 -> 65 % (NOTES 19h); from 28672 streaming wins. Over
///   more CTAs it lost (NOTES 23c: 16384 over 4 69 against 73 %, 65536 over 8 64 against 66 %), as
///   did 16-bit rms_norm (12288-65536: 80-89 % against 86-92 % on one CTA, streaming or staged).
/// - 16-bit fused_add_rms_norm rows that one CTA of more than 256 threads would hold (8193-12288
///   columns; at the fused op's 128 registers such a CTA is alone on its SM), staged over 2 CTAs
///   (NOTES 23g, % of the probe's floor): bf16 12288 90.2 (one CTA of 384) -> 94.9; not at 256
///   threads and fewer (bf16 8192: 101.7 against 90.6), nor fp32 (12288: 98.7 against 92.7), nor
///   rms_norm (bf16 12288: 90.2 against 72.5). Since session 32 only the widths that fill no wide
///   config (wide_rows_rules above: 9216, 10240, 12288 go wide) come here.
/// - fp32 fused_add_rms_norm rows of whole 16-byte packs past what 16 CTAs stage (more than 65536
///   columns), over 16 CTAs of 160-256 x 32 values in registers, only where the segments fill
///   the config exactly: 81920, 98304, 114688, 131072 columns. Against streaming (L2 flushed, us
///   per launch of 512 MiB, two builds alternated; experiments 81, session 33): 158.7-161.7 ->
///   140.4-141.0, 177.3-179.6 -> 138.8-140.3, 179.6-180.5 -> 138.3-139.5, 163.5-168.0 ->
///   142.2-143.2. Segments that fill it partly lost up to 23 % (65540-65560: 180.7-192.3 ->
///   195.0-200.6; 65664: 158.1-161.9 -> 194.7-198.7) or were mixed (69632-122880: +4 to -8 %); so
///   were rows with a partial last pack that the stage cannot move (16386-65534, exact fill or
///   not: -10 to +23 %).
///   The rows the op stages were the same or 1-1.5 % slower in registers (experiments 80).
struct clustered_rows_rule {
  int elem_bytes;
  unsigned ops;  // op_kind bits
  int64_t min_row_bytes;
  int max_cluster;
  int max_block;          // registers: threads per CTA (staged rules use staged_block)
  int split_above_block;  // 0: only rows past one CTA's registers
  bool staged;            // segments staged in shared memory instead of registers (only rows
                          // one CTA would hold: longer ones follow stageable's rules, plan.hpp)
  int min_weights = 0;    // weight vectors the call must pass (layer_norm: gamma and beta)
  bool past_stage_budget = false;  // only rows the staged kernel could move (plan.hpp staged_layout)
                                   // but that no cluster stages within staged_segment_bytes
  bool exact_fill = false;  // only clusters whose CTAs' segments fill the registers config
                            // exactly (equal segments, every thread's packs whole)
};
inline constexpr clustered_rows_rule clustered_rows_rules[] = {
    {4, softmax_kind, 96 * 1024, 16, 256, 0, false},
    {4, layer_norm_kind, 64 * 1024, 16, two_weights_cluster_block, 0, false, 2},
    {4, layer_norm_kind | rms_norm_kind, 64 * 1024, 16, 256, 0, false},
    {2, softmax_kind, 0, 8, 256, 256, false},
    {2, fused_kind, 0, 2, staged_block, 256, true},
    {2, layer_norm_kind, 0, 2, 320, 0, false},
    {4, fused_kind, 64 * 1024, 16, 256, 0, false, 0, true, true},
};

/// Many rows of the ops with weights that stage (rms_norm, fused_add_rms_norm) past what
/// max_cluster CTAs stage within staged_segment_bytes: staged over max_cluster CTAs with stages of
/// up to `max_segment_bytes` (all inputs; three stages: two CTAs per SM up to about 37 KiB, one
/// beyond), instead of streaming, for the element sizes and ops measured. On the H200 (session 33,
/// experiments 81 / 82; L2 flushed, us per launch, two builds alternated, streaming -> staged):
/// - fp32 fused_add_rms_norm (512 MiB launches): 65540 189.6-192.3 -> 155.4-156.8, 65664 160.4-161.9
///   -> 147.6-148.8, 73728 161.2-163.5 -> 143.5-144.3, 106496 181.3-182.4 -> 148.4-150.3 (the
///   exact-fill widths of clustered_rows_rules go over clusters in registers, 5-8 % faster still);
/// - fp32 rms_norm (256 MiB): 131076 101.1-101.7 -> 87.6-88.2, 163840 92.5-93.2 -> 89.8-91.2,
///   196608 94.1-94.8 -> 87.6-88.6, 229376 95.2-95.7 -> 90.8-91.4, 262144 97.6-100.1 -> 91.7-92.7;
/// - bf16 fused_add_rms_norm (512 MiB): 131080 199.3-201.3 -> 162.8-163.9, 163840 173.3-175.7 ->
///   161.3-162.1, 196608 183.0-184.7 -> 158.4-160.8, 262144 165.0-169.0 -> 158.6-159.6;
/// - bf16 rms_norm (256 MiB): 262152 103.2-104.2 -> 95.6-96.5, 393216 100.9-102.1 -> 97.7-100.6;
///   but 524288 (64 KiB stages) 99.0-101.1 -> 106.1-107.4: up to 48 KiB.
/// Few rows (spread over a cluster) were not measured: not them.
struct long_rows_stage_rule {
  int elem_bytes;
  unsigned ops;  // op_kind bits
  int64_t max_segment_bytes;
};
inline constexpr long_rows_stage_rule long_rows_stage_rules[] = {
    {4, rms_norm_kind | fused_kind, 64 * 1024},
    {2, fused_kind, 64 * 1024},
    {2, rms_norm_kind, 48 * 1024},
};

/// Many rows that stream (16-byte packs): each over a cluster of up to streaming_max_cluster CTAs,
/// as many as keep a segment of at least streaming_min_segment_bytes per CTA (one chunk of fp32,
/// two of 16-bit). A CTA's fixed cost per row step (its block all-reduce, the set-up of both
/// passes: ~850 instructions per warp, ncu) needs that much data to amortise; and 64-128 KiB
/// segments keep the resident rows' second read in L2. Measured on the H200 (bench/NOTES.md 20,
/// L2 flushed) against one CTA per row: layer_norm fp32 32768 65 -> 81 % (2 CTAs), 65536 57 ->
/// 74 % (4), 152064 55 -> 59 % (8), 262144 60 -> 57 % (8); softmax fp32 152064 64 -> 70 %,
/// 262144 66 -> 70 % (8); bf16 / fp16 softmax 65536 71 / 71 -> 78 / 81 % (2), 152064 63 / 63 ->
/// 65 / 69 % (4), 262144 64 / 65 -> 70 / 73 % (8), layer_norm 16-bit 65536 55 -> 66-67 % (2).
/// Finer splits (32 KiB per CTA and less) lost everywhere. Clusters of 16 (14 resident) lost too
/// until a row step's instructions stopped depending on the segment's fill (a 2-pack body for a
/// chunk's tail, the cluster merge across lanes: NOTES 22); since then fp32 softmax 262144 over
/// 16 CTAs (one chunk each) 71 -> 82 % against 8, layer_norm 262144 57 / 56 % (8 / 16).
inline constexpr int64_t streaming_min_segment_bytes = 64 * 1024;
inline constexpr int streaming_max_cluster = 16;

/// Split rows over a cluster only when each CTA of the split still gets this many packs (16 KiB):
/// below it one CTA's loads are all in flight at once anyway, and the split only adds the
/// cluster launch and barrier (about 0.3 us, H200-FACTS.md).
inline constexpr int64_t min_packs_per_cluster_cta = 1024;

/// Few rows of 16-bit elements in 16-byte packs split further than min_packs_per_cluster_cta
/// allows: down to `min_packs` packs per CTA (4096 values, a CTA of 128 threads of 32 values, the
/// same values per CTA as fp32's 1024 packs), where the split's CTAs take at most half the SMs
/// (rows x cluster <= SMs / 2). Measured on the H200 (graph of 100 calls, L2 warm, one program,
/// alternated; bench/NOTES.md 26 a): bf16 1 x 8192 softmax 1.73 -> 1.59 us, log_softmax 1.82 ->
/// 1.70, fused_add_rms_norm 1.93 -> 1.70; 1 x 16384 / 1 x 65536 softmax 2.01 / 2.20 -> 1.67 / 1.94,
/// layer_norm 2.47 / 2.89 -> 2.24 / 2.63, rms_norm 1.69 / 1.81 -> 1.52 / 1.69, fused_add_rms_norm
/// 2.16 / 2.37 -> 1.74 / 2.01; 16 x 16384 0.13-0.50 us faster for every op; fp16 alike. Where the
/// CTAs would fill the GPU (64 x 8192, 16 x 32768: 128 CTAs) it was mixed (layer_norm and rms_norm
/// 64 x 8192 0.2 us slower, fused_add_rms_norm bf16 0.09 faster), so not there. Fewer values per
/// CTA lost (fp32 1 x 4096 over two CTAs of 64 threads: softmax 1.42 -> 1.49 us, layer_norm 1.59 ->
/// 1.94). Not layer_norm rows that one CTA of up to two_weights_16bit_staged_max_block threads holds
/// (its 128-register staged instance): bf16 1 / 16 x 8192 2.02 / 2.09 -> 2.09 / 2.16 over two CTAs;
/// rms_norm bf16 1 x 8192 read 1.45 -> 1.47 (taken: one rule for the ops without two weights).
struct narrow_few_rows_split_rule {
  bool enabled;
  int64_t min_packs;
};
inline constexpr narrow_few_rows_split_rule narrow_few_rows_split = {true, 512};

/// Shared memory per CTA kept free beside a dynamic shared-memory cache for the kernels' static
/// shared memory (the reduction storages: 1.3-1.5 KiB with the cluster exchange's slot sets,
/// ptxas -v). 1 KiB was reserved before the exchange's storage grew, and 3 rows of 925693 fp32
/// columns over 16 CTAs then failed to launch (GPU boundary test, bench/NOTES.md 20).
inline constexpr int64_t static_smem_reserve = 4 * 1024;

/// Few rows (spread over a cluster, dispatch/plan.hpp) whose segments no registers config holds
/// at the spread cluster: held in registers over twice as many CTAs instead of the shared-memory
/// cache or stage, where the spread cluster has at least `min_cluster` CTAs or the doubled
/// clusters leave at most one CTA per SM. Measured on the H200 (graph of 100 calls, bench/NOTES.md
/// 25e): softmax fp32 / bf16 16 x 131072 9.7 / 8.4 -> 5.9 / 5.0 us, 32 x 65536 9.5 / 8.3 -> 5.9 /
/// 5.0 us, bf16 32 x 32000 4.9 -> 3.6 us; layer_norm fp32 32 x 65536 13.1 -> 8.5 us; rms_norm
/// bf16 16 x 131072 5.7 -> 4.9 us (staged before). Not where the doubled clusters put two CTAs on
/// an SM from a spread of 2 (64 x 32000: softmax bf16 5.07 -> 5.26 us, layer_norm fp32 8.6 ->
/// 10.0; 48 x 40000: rms_norm 5.0 -> 6.8). Rows of 16-byte packs of ops without a residual only
/// (the others were not measured).
struct few_rows_doubling_rule {
  bool enabled;
  int min_cluster;
};
inline constexpr few_rows_doubling_rule few_rows_doubling = {true, 4};

/// Few rows whose spread segments (12289-16384 values) neither a 32-value config of up to 384
/// threads holds nor few_rows_doubling takes over twice the cluster: held 32 values per thread on
/// 512 threads (few_rows_block_config) at the spread cluster, instead of the shared-memory cache
/// or the stage. Rows of 16-byte packs of ops without a residual only (the others were not
/// measured). Measured on the H200 (graph of 100 calls, bench/NOTES.md s17 a): softmax fp32 /
/// bf16 64 x 32000 6.22 / 5.07 -> 5.47 / 4.39 us, 1 x 262144 6.05 / 4.91 -> 5.35 / 4.22, 8 x
/// 262144 10.7 / 8.8 -> 9.2 / 5.9; layer_norm fp32 64 x 32000 8.65 -> 7.57, 8 x 262144 14.6 ->
/// 11.3; rms_norm fp32 64 x 32000 7.2 -> 6.5 (staged before), bf16 1 x 262144 4.4 -> 3.8; one
/// shape no faster (rms_norm bf16 8 x 262144, staged before: 5.71-5.79 -> 5.79-5.85).
/// Its budget is its kind's, raised as for every block (row_kernel_registers_for): 128 for fp32
/// rows (one CTA per SM), 64 for 16-bit ones (two). 128 for 16-bit rows too (no spills; 16-bit
/// layer_norm spills 100-112 bytes at 64) gained 0.1-0.6 us where the clusters are small (bf16
/// 64 x 32000 layer_norm 7.15 -> 6.58, softmax 4.39 -> 4.29) but lost 0.7-1.4 us at 8 x 262144
/// (softmax 5.87 -> 7.27): at one CTA per SM only 7 clusters of 16 are resident (GPC limits), so
/// the eighth row waits for a second wave (bench/NOTES.md s17 a, experiments 38).
inline constexpr bool few_rows_block = true;

/// The rows few_rows_block serves (as measured): packs of 16 bytes, one input row per row (no
/// residual). One predicate for the plan (few_rows_block_plan), the instances launch.cuh compiles
/// and the plan validator of the host tests.
constexpr bool few_rows_block_serves(int pack_bytes, int row_inputs) {
  return few_rows_block && pack_bytes == 16 && row_inputs == 1;
}

/// Largest cluster the plan uses (16 is non-portable but available on H100/H200).
inline constexpr int max_cluster = 16;

}  // namespace dispatch
ROWWISE_NAMESPACE_END
