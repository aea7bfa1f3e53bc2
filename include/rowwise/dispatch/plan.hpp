// rowwise/dispatch/plan.hpp — choosing the strategy for a problem: a pure function of the
// problem's shape, element size, vector width and the device limits (no CUDA calls), so it is
// unit-tested on machines without a GPU.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/device_limits.hpp"
#include "rowwise/dispatch/policy.hpp"
#include "rowwise/kernels/column_stage_size.hpp"
#include "rowwise/kernels/row_pack_span.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

enum class strategy {
  registers,  // kernels::registers_kernel: sub-warp / warp / block (and cluster) rows in registers
  cached,     // kernels::chunked_kernel<Cached = true>: segment of the row in shared memory
  streaming,  // kernels::chunked_kernel<Cached = false>: pass 2 re-reads the row
  staged,     // kernels::staged_kernel: segments staged in shared memory, read once (sm_90)
};

/// The strategy's name, for diagnostics (tests, plan reports).
constexpr const char* strategy_name(strategy s) {
  switch (s) {
    case strategy::registers: return "registers";
    case strategy::cached: return "cached";
    case strategy::streaming: return "streaming";
    case strategy::staged: return "staged";
  }
  return "?";
}

struct problem {
  int64_t rows = 0;
  int64_t cols = 0;
  int elem_bytes = 4;   // sizeof(T)
  int pack_elems = 4;   // N: elements per vector access (16 / sizeof(T), or 1 when misaligned)
  int head = -1;        // elements before the first N-aligned one in every row (0..N-1), or -1
                        // when rows differ (row stride not a multiple of N): plan for N-1
  int row_inputs = 1;   // matrices read per row: 2 exactly for ops that fuse a residual (launch.cuh)
  bool staged_op = false;  // the op runs long rows on the staged strategy (its choice, measured)
  bool column_params = false;  // the op reads per-column weights (layer_norm, rms_norm)
  int column_param_count = 0;  // its parameter vectors present in the call (layer_norm <= 2,
  int column_param_bytes = 0;  // rms_norm <= 1), each of elements of this size (column_stage.cuh)
};

struct plan {
  strategy kind = strategy::registers;
  int config = 0;                 // registers: index into registers_configs
  int pack_elems = 1;             // N
  int threads_per_row = 0;        // G (per CTA)
  int packs_per_thread = 0;       // K (registers) or unroll (chunked)
  int block = 0;                  // threads per block
  int cluster = 1;                // CTAs per row (1: no cluster)
  int64_t rows_per_step = 1;      // rows one block (cluster) handles per loop step
  int64_t segment_packs = 0;      // packs of a row each CTA handles
  int64_t dynamic_smem = 0;       // bytes (cached and staged strategies; registers: the column
                                  // stage, 0 without)
  int64_t max_useful_blocks = 0;  // CTAs that still get a row (the launcher caps by occupancy)
  bool persistent = false;        // grid sized by occupancy, blocks loop over row steps; else
                                  // one CTA (cluster) per row step
  bool partial_packs = false;     // staged: rows start or end inside a pack (the kernel's
                                  // Edges instance, kernels/staged_kernel.cuh)
  bool wrapped_rows = false;      // registers: some row's partial last pack wraps onto its head
                                  // pack (registers_rows_wrap)
  bool wrap_instance = false;     // registers: the launch takes the config's instance with the
                                  // wrap's code (the kernel's Wrap; registers_wrap_instance)
  bool valid = false;             // false only if no strategy can run the problem
};

/// Whether running `pl` needs kernels compiled for sm_90 or later: a row split over a cluster (the
/// cluster exchange) or the staged kernel (bulk copies, transaction barriers). Code of an older
/// target has neither (code_arch.cuh, limits_for_code).
constexpr bool plan_needs_sm90_code(const plan& pl) { return pl.cluster > 1 || pl.kind == strategy::staged; }

/// Packs a row spans: with a known head exactly, otherwise in the worst case (head N - 1).
/// (Planning every row for the worst case would give a 4096-column fp32 row 1025 packs and
/// double its block.)
constexpr int64_t row_packs_for(int64_t cols, int n, int head) {
  return kernels::row_pack_span(cols, n, head < 0 ? n - 1 : head);
}

/// Packs a row spans in a registers kernel, which wraps a row's partial last pack onto its partial
/// head pack when the head pack has room for it (kernels/thread_packs.cuh): one fewer than
/// row_packs_for there, so that a row one element past a 16-byte boundary whose length is a
/// multiple of N spans as many packs as an aligned row and runs on the same config. Rows whose
/// head differs (head -1): the most over every head.
constexpr int64_t registers_row_packs_for(int64_t cols, int n, int head) {
  if (head < 0) {
    int64_t most = 0;
    for (int h = 0; h < n; ++h) {
      const int64_t k = registers_row_packs_for(cols, n, h);
      if (k > most) most = k;
    }
    return most;
  }
  return kernels::wrapped_row_pack_span(cols, n, head);
}

/// Whether a registers kernel wraps any row's last pack (kernels/row_pack_span.hpp:
/// wrapped_row_tail) for rows of this head, or of any head (-1). Where none does, the launcher
/// takes the instance without the wrap's code but in registers_wrap_instance's other cases: that
/// code (element-wise head-pack accesses, the tail's columns' weights) tripled the local-memory
/// loads of aligned bf16 softmax rows of 32768 columns (ncu, an H100, bench/results/
/// 2026-12-05-h100-s41), and the instance without it ran aligned 16-bit softmax 3-5 points
/// faster at 32-65536 columns (an H200, bench/results/2026-12-05-h200-s42).
constexpr bool registers_rows_wrap(int64_t cols, int n, int head) {
  if (head < 0) {
    for (int h = 0; h < n; ++h)
      if (registers_rows_wrap(cols, n, h)) return true;
    return false;
  }
  return kernels::wrapped_row_tail(cols, n, head) > 0;
}

/// Whether some row of `p` starts or ends inside a pack (a head, or a length not a multiple of the
/// pack; head -1, rows of differing heads, counts as starting inside one): the staged kernel's
/// Edges instance, and the registers instance of groups that merge edge packs.
constexpr bool rows_have_partial_packs(const problem& p) { return p.head != 0 || p.cols % p.pack_elems != 0; }

/// Whether a registers plan runs on its config's instance with the wrap's code (launch.cuh):
/// where some row wraps (registers_rows_wrap), for every plan of policy.hpp's wrap_instance_only
/// ops, and on groups that merge their rows' edge packs (kernels/row_pack_span.hpp:
/// merges_edge_packs) wherever some row starts or ends inside a pack, because the merge's code is
/// in that instance only (kernels/registers_kernel.cuh says why). Rows of whole packs take the
/// other instance where there is one.
constexpr bool registers_wrap_instance(const problem& p, int g, bool wrapped_rows) {
  const int n = p.pack_elems;
  if (!kernels::packs_wrap(n)) return false;
  if (wrapped_rows || wrap_instance_only(op_kind_for(p.column_params, p.staged_op, p.row_inputs), n)) return true;
  return kernels::merges_edge_packs(p.elem_bytes, n, g) && rows_have_partial_packs(p);
}

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Largest power of two <= x (x >= 1).
constexpr int pow2_floor(int64_t x) {
  int p = 1;
  while (static_cast<int64_t>(p) * 2 <= x) p *= 2;
  return p;
}

/// The smallest registers config of 32 values per thread whose row capacity (per CTA) holds
/// `packs` packs.
constexpr int first_registers_config(int64_t packs, int n, int min_g) {
  for (int i = 0; i < narrow_registers_config_count; ++i) {
    const registers_config& c = registers_configs[i];
    if (c.g >= min_g && static_cast<int64_t>(c.g) * registers_k(i, n) >= packs) return i;
  }
  return -1;
}

/// Shared memory of a registers kernel's column stage (kernels/column_stage.cuh: the per-column
/// parameters of every thread's K packs of N, for each parameter vector present), or 0 when the
/// op has none, the rows do not move in 16-byte packs (the staged kernels are compiled for those
/// only: dispatch/launch.cuh), or an aligned access of the parameters is not a cp.async size.
constexpr int64_t column_stage_bytes(const problem& p, int block, int k) {
  if (!stage_column_params || p.column_param_count == 0 || p.column_param_bytes <= 0) return 0;
  if (p.pack_elems * p.elem_bytes != 16) return 0;
  if (!kernels::column_stage_copyable(p.pack_elems, p.column_param_bytes)) return 0;
  return p.column_param_count *
         kernels::column_stage_bytes_per_param(k, p.pack_elems, p.column_param_bytes, block);
}

/// Whether the op's kernels are those of two weight vectors (layer_norm), whose staged instances
/// policy.hpp gives a budget of their own (register_budget::two_weights_fp32_128): a property of
/// the op's kernels, not of the weights present in a call (kernels: op_has_two_weights;
/// launch.cuh checks that they agree).
constexpr bool has_two_weights(const problem& p) {
  return op_kind_for(p.column_params, p.staged_op, p.row_inputs) == layer_norm_kind;
}

/// The fewest packs each CTA of a spread cluster of `c` CTAs keeps: min_packs_per_cluster_cta, or
/// narrow_few_rows_split's minimum for 16-bit rows in 16-byte packs whose c-CTA clusters take at
/// most half the SMs (not layer_norm rows one staged CTA holds: policy.hpp says why).
constexpr int64_t min_spread_segment(const problem& p, int64_t packs, int c, const device_limits& dev) {
  if (!narrow_few_rows_split.enabled || p.elem_bytes != 2 || p.pack_elems * p.elem_bytes != 16) return min_packs_per_cluster_cta;
  if (p.rows * c > dev.sm_count / 2) return min_packs_per_cluster_cta;
  if (has_two_weights(p) && packs <= static_cast<int64_t>(two_weights_16bit_staged_max_block) * (32 / p.pack_elems))
    return min_packs_per_cluster_cta;
  return narrow_few_rows_split.min_packs;
}

/// The cluster size that spreads `p.rows` rows of `packs` packs over the GPU: 1 when the rows
/// alone fill every SM or a row is too short to be worth splitting, otherwise the largest
/// power of two up to max_cluster that keeps at least min_spread_segment packs per CTA.
constexpr int spread_cluster(const problem& p, int64_t packs, const device_limits& dev) {
  if (!dev.clusters || p.rows >= dev.sm_count) return 1;
  int c = pow2_floor(dev.sm_count / (p.rows > 0 ? p.rows : 1));
  if (c > cluster_limit(dev, max_cluster)) c = cluster_limit(dev, max_cluster);
  while (c > 1 && packs / c < min_spread_segment(p, packs, c, dev)) c /= 2;
  return c;
}

/// The registers of the registers kernel instance that runs `p` with `block` threads
/// (`threads_per_row` per row) holding `values` values each, its instance with a column stage
/// when `staged` and with the wrap's code when `wrap` (policy.hpp: row_kernel_registers_for and
/// row_kernel_register_cap, with the traits the kernel reads from its op: registers_kernel.cuh).
constexpr int row_kernel_registers_of(const problem& p, int block, int values, int threads_per_row, bool staged,
                                      bool wrap = false) {
  const bool fuses_residual = p.row_inputs == 2;  // the second input is the residual
  const int budget = row_kernel_registers_for(fuses_residual, p.column_params, p.elem_bytes, block, values,
                                              threads_per_row, staged && has_two_weights(p));
  return row_kernel_register_cap(budget, fuses_residual, p.elem_bytes, values, wrap);
}

/// Whether that kernel prefetches its next rows (policy.hpp: row_kernel_prefetches).
constexpr bool row_kernel_prefetches_of(const problem& p, int block, int values, int threads_per_row, bool staged) {
  return row_kernel_prefetches(p.row_inputs == 2, p.column_params, p.elem_bytes, block, values, threads_per_row,
                               staged && has_two_weights(p));
}

/// CTAs of that kernel one SM holds (ctas_per_sm: registers, then thread slots); 0 when the
/// device's registers are unknown.
constexpr int row_kernel_ctas_per_sm(const problem& p, const device_limits& dev, int block, int values,
                                     int threads_per_row, bool staged = false, bool wrap = false) {
  if (dev.regs_per_sm <= 0) return 0;
  const int regs = row_kernel_registers_of(p, block, values, threads_per_row, staged, wrap);
  return ctas_per_sm(regs, block, dev.regs_per_sm);
}

/// Whether a registers plan stages its column parameters (kernels/column_stage.cuh): when every
/// CTA of the launch is resident at once (a persistent grid, or one wave), so each CTA copies
/// them once; and when `bytes` per CTA cost no CTA per SM and fit beside the static shared
/// memory. Grids of several waves read them from global memory instead: there every CTA would
/// copy the same few lines from L2 (through the few L2 slices that hold them) where the plain
/// loads mostly hit L1: bf16 layer_norm 768 columns fell from 80 to 26 % of the copy floor when
/// staged (bench/NOTES.md 21). Except the ops of policy.hpp's column_stage_every_wave (fp32 rows
/// with one weight vector), which gained staged in every grid, copying through L1.
constexpr bool column_stage_pays(const problem& p, const device_limits& dev, const plan& pl, int64_t bytes) {
  if (bytes <= 0 || dev.smem_per_sm <= 0) return false;
  if (bytes + static_smem_reserve > dev.max_smem_optin) return false;
  const int per_sm =
      row_kernel_ctas_per_sm(p, dev, pl.block, pl.packs_per_thread * pl.pack_elems, pl.threads_per_row, true,
                             pl.wrap_instance);
  if (per_sm <= 0 || dev.smem_per_sm / (bytes + column_stage_smem_overhead) < per_sm) return false;
  return pl.persistent || pl.max_useful_blocks <= static_cast<int64_t>(per_sm) * dev.sm_count ||
         column_stage_every_wave(p.elem_bytes, p.column_param_count);
}

/// A registers plan for rows (or, with a cluster, per-CTA segments) of `segment` packs.
constexpr plan make_registers_plan(const problem& p, const device_limits& dev, int config, int cluster,
                                   int64_t segment) {
  plan out;
  const registers_config& c = registers_configs[config];
  const int g = c.g;
  out.kind = strategy::registers;
  out.config = config;
  out.pack_elems = p.pack_elems;
  out.threads_per_row = g;
  out.packs_per_thread = registers_k(config, p.pack_elems);
  out.block = c.block;
  out.cluster = cluster;
  out.rows_per_step = out.block / g;
  out.segment_packs = cluster > 1 ? segment : static_cast<int64_t>(g) * out.packs_per_thread;
  out.max_useful_blocks = ceil_div(p.rows, out.rows_per_step) * cluster;
  out.persistent = cluster > 1;
  out.wrapped_rows = registers_rows_wrap(p.cols, p.pack_elems, p.head);
  out.wrap_instance = registers_wrap_instance(p, g, out.wrapped_rows);
  const int64_t stage = column_stage_bytes(p, out.block, out.packs_per_thread);
  out.dynamic_smem = column_stage_pays(p, dev, out, stage) ? stage : 0;
  out.valid = true;
  return out;
}

/// A plan whose CTAs (a cluster of them per row) each own one segment of a row: the chunked and
/// staged strategies.
constexpr plan make_segment_plan(const problem& p, strategy kind, int block, int unroll, int cluster,
                                 int64_t segment, int64_t dynamic_smem, bool persistent) {
  plan out;
  out.kind = kind;
  out.pack_elems = p.pack_elems;
  out.threads_per_row = block;
  out.packs_per_thread = unroll;
  out.block = block;
  out.cluster = cluster;
  out.rows_per_step = 1;
  out.segment_packs = segment;
  out.dynamic_smem = dynamic_smem;
  out.max_useful_blocks = p.rows * cluster;
  out.persistent = persistent;
  out.valid = true;
  return out;
}

constexpr plan make_chunked_plan(const problem& p, bool cached, int cluster, int64_t segment) {
  return make_segment_plan(p, cached ? strategy::cached : strategy::streaming, chunked_block,
                           chunked_unroll_for(p.pack_elems), cluster, segment,
                           cached ? segment * p.elem_bytes * p.pack_elems : 0, cluster > 1);
}

/// Rows the staged kernel can move: 16-byte packs, every row with the same head (its partial
/// packs, if any, at the same places), at least two packs; it exchanges partials by sm_90
/// cluster stores.
constexpr bool staged_layout(const problem& p, const device_limits& dev) {
  return p.staged_op && dev.cc_major >= 9 && p.head >= 0 && p.pack_elems * p.elem_bytes == 16 &&
         row_packs_for(p.cols, p.pack_elems, p.head) >= 2;
}

/// Long rows the staged strategy takes: rows it can move that read more than
/// staged_min_row_bytes (policy.hpp).
constexpr bool stageable(const problem& p, const device_limits& dev) {
  return staged_layout(p, dev) && p.cols * p.elem_bytes * p.row_inputs > staged_min_row_bytes;
}

/// A staged plan: `cluster` CTAs per row, each staging `segment` packs of every input per stage.
/// Persistent: each CTA keeps its next rows' loads in flight.
constexpr plan make_staged_plan(const problem& p, int cluster, int64_t segment) {
  plan pl = make_segment_plan(p, strategy::staged, staged_block, staged_unroll_for(p.pack_elems), cluster,
                              segment, static_cast<int64_t>(staged_stages) * p.row_inputs * segment * 16, true);
  pl.partial_packs = rows_have_partial_packs(p);
  return pl;
}

/// The packs of a staged row that count against a stage budget: a row that starts inside a pack
/// (head > 0) spans one pack more than its aligned twin, which its stage holds on top (16 bytes
/// per input and stage), so that it takes the aligned row's cluster (a 16384-column fp32
/// fused_add_rms_norm row one element past a boundary: 4 CTAs, not 8).
constexpr int64_t staged_budget_packs(const problem& p, int64_t packs) { return p.head > 0 ? packs - 1 : packs; }

/// The smallest cluster (from `from`, powers of two) whose CTAs stage their segment of every
/// input within `budget` bytes per stage (staged_segment_bytes unless a rule allows more;
/// staged_budget_packs); 0 when none does.
constexpr int staged_cluster(const problem& p, const device_limits& dev, int64_t packs, int from,
                             int64_t budget = staged_segment_bytes) {
  for (int c = from; c <= cluster_limit(dev, max_cluster); c *= 2) {
    if (c > 1 && !dev.clusters) return 0;
    if (ceil_div(staged_budget_packs(p, packs), c) * 16 * p.row_inputs <= budget) return c;
  }
  return 0;
}

/// The op_kind (policy.hpp) of a problem's op, from its traits.
constexpr unsigned op_kind_of(const problem& p) {
  return op_kind_for(p.column_params, p.staged_op, p.row_inputs);
}

/// The stage budget (all inputs, per CTA) that long_rows_stage_rules (policy.hpp) give a
/// problem's rows past max_cluster CTAs of staged_segment_bytes; 0 when no rule does.
constexpr int64_t long_rows_stage_bytes(const problem& p) {
  for (const long_rows_stage_rule& rule : long_rows_stage_rules)
    if (rule.elem_bytes == p.elem_bytes && (rule.ops & op_kind_of(p)) != 0) return rule.max_segment_bytes;
  return 0;
}

/// A registers plan of many rows over clusters of `c` CTAs for clustered_rows_plan: its column stage
/// only where policy.hpp's clustered_rows_stage_weights says so.
constexpr plan clustered_registers_plan(const problem& p, const device_limits& dev, int config, int c,
                                        int64_t segment) {
  plan pl = make_registers_plan(p, dev, config, c, segment);
  if (!clustered_rows_stage_weights(p.elem_bytes, has_two_weights(p))) pl.dynamic_smem = 0;
  return pl;
}

/// Many rows over the smallest cluster that fits them, held in registers or staged (policy.hpp:
/// clustered_rows_rules); an invalid plan when no rule applies. one_cta_block: the threads of the
/// one-CTA registers config that would hold the row, 0 when none does.
constexpr plan clustered_rows_plan(const problem& p, const device_limits& dev, int64_t packs,
                                   int one_cta_block = 0) {
  if (!dev.clusters || p.pack_elems * p.elem_bytes != 16) return plan{};
  // `packs` counts a registers kernel's packs (wrapped rows); the staged kernel's own.
  const int64_t staged_packs = row_packs_for(p.cols, p.pack_elems, p.head);
  for (const clustered_rows_rule& rule : clustered_rows_rules) {
    if (rule.elem_bytes != p.elem_bytes || (rule.ops & op_kind_of(p)) == 0 ||
        p.cols * p.elem_bytes < rule.min_row_bytes || p.column_param_count < rule.min_weights)
      continue;
    if (rule.past_stage_budget && (!staged_layout(p, dev) || staged_cluster(p, dev, staged_packs, 1) > 0)) continue;
    if (one_cta_block > 0 && (rule.split_above_block == 0 || one_cta_block <= rule.split_above_block))
      continue;
    if (rule.staged) {
      // Only rows one CTA would hold: longer ones follow the staged strategy's own rules.
      if (one_cta_block == 0 || !staged_layout(p, dev)) continue;
      const int c = staged_cluster(p, dev, staged_packs, 2);
      if (c >= 2 && c <= cluster_limit(dev, rule.max_cluster))
        return make_staged_plan(p, c, ceil_div(staged_packs, c));
      continue;
    }
    for (int c = 2; c <= cluster_limit(dev, rule.max_cluster); c *= 2) {
      const int64_t segment = ceil_div(packs, c);
      const int cfg = first_registers_config(segment, p.pack_elems, 64);
      if (cfg < 0 || registers_configs[cfg].block > rule.max_block) continue;
      if (rule.exact_fill &&
          (packs % c != 0 || segment != static_cast<int64_t>(registers_configs[cfg].g) * registers_k(cfg, p.pack_elems)))
        continue;
      return clustered_registers_plan(p, dev, cfg, c, segment);
    }
  }
  return plan{};
}

/// Many stageable rows past what max_cluster CTAs stage within staged_segment_bytes (plan_rows
/// checks both), staged over max_cluster CTAs with the larger stages long_rows_stage_bytes allows
/// where they fit the device's shared memory; an invalid plan otherwise.
constexpr plan long_rows_staged_plan(const problem& p, const device_limits& dev, int64_t packs) {
  const int64_t budget = long_rows_stage_bytes(p);
  const int c = cluster_limit(dev, max_cluster);
  if (budget == 0 || c < 2 || staged_cluster(p, dev, packs, c, budget) != c) return plan{};
  const plan pl = make_staged_plan(p, c, ceil_div(packs, c));
  return pl.dynamic_smem + static_smem_reserve <= dev.max_smem_optin ? pl : plan{};
}

/// The threads of 32-value registers config `cfg` (first_registers_config), or more than an SM
/// holds when it is -1 (no CTA holds the row at 32 values): what wide_rows_rule::above_block
/// compares.
constexpr int narrow_block_for(int cfg) { return cfg >= 0 ? registers_configs[cfg].block : max_threads_per_sm; }

/// Whether a wide-rows rule names ops of this kind and element size.
constexpr bool wide_rule_names(const wide_rows_rule& rule, int elem_bytes, unsigned kind) {
  return rule.elem_bytes == elem_bytes && (rule.ops & kind) != 0;
}

/// The wide config (policy.hpp: wide_rows_rules) whose G x K packs are exactly `packs`, with at
/// least min_g threads and, if k8_only, 8 packs per thread; -1 when none.
constexpr int exact_wide_config(int64_t packs, int n, int min_g, bool k8_only) {
  for (int i = narrow_registers_config_count; i < wide_registers_config_end; ++i) {
    const registers_config& c = registers_configs[i];
    const int k = registers_k(i, n);
    if (c.g >= min_g && (!k8_only || k == 8) && static_cast<int64_t>(c.g) * k == packs) return i;
  }
  return -1;
}

/// Many 16-bit rows held 40-64 values per thread (policy.hpp: wide_rows_rules); an invalid plan
/// when no rule applies. narrow_block: the threads of the 32-value config that would hold the
/// row (narrow_block_for). Rows that fill a wide config exactly (known head
/// 0, whole packs: every thread takes the branch-free path) take one CTA each; rows past the
/// largest, a cluster whose segments fill one. Only with more rows than one wave of CTAs: so a
/// one-CTA wide plan never stages its weights (column_stage_pays: one wave at most); a
/// clustered one (persistent) may.
constexpr plan wide_rows_plan(const problem& p, const device_limits& dev, int64_t packs, int narrow_block) {
  // Whole packs only: aligned rows of a multiple of N, or such rows one element (or more) past
  // a 16-byte boundary, whose partial last pack the kernel wraps onto the head pack (packs:
  // registers_row_packs_for).
  if (p.pack_elems * p.elem_bytes != 16 || packs * p.pack_elems != p.cols) return plan{};
  for (const wide_rows_rule& rule : wide_rows_rules) {
    if (!wide_rule_names(rule, p.elem_bytes, op_kind_of(p)) || narrow_block <= rule.above_block ||
        p.column_param_count < rule.min_weights)
      continue;
    for (int c = 1; c <= rule.max_cluster; c *= 2) {
      if (c > 1 && c > cluster_limit(dev, rule.max_cluster)) break;
      if (packs % c != 0) continue;
      const int cfg = exact_wide_config(packs / c, p.pack_elems, c > 1 ? wide_cluster_min_threads : 1, c > 1);
      if (cfg < 0) continue;
      const registers_config& wc = registers_configs[cfg];
      const int per_sm =
          row_kernel_ctas_per_sm(p, dev, wc.block, registers_k(cfg, p.pack_elems) * p.pack_elems, wc.g);
      const int64_t one_wave = static_cast<int64_t>(per_sm) * dev.sm_count;  // CTAs
      if (per_sm <= 0 || ceil_div(p.rows, wc.block / wc.g) * c <= one_wave) return plan{};
      return make_registers_plan(p, dev, cfg, c, packs / c);
    }
  }
  return plan{};
}

/// Whether wide_rows_plan can choose registers config `config` for ops of this kind and element
/// size (16-byte packs), with or without a column stage: only these wide kernels are compiled
/// (launch.cuh). One CTA per row: where the row's 32-value config has more threads than a rule's
/// above_block, never staged (more than one wave); cluster segments: 8 packs on at least
/// wide_cluster_min_threads threads, staged or not.
constexpr bool wide_config_reachable(int config, int elem_bytes, unsigned kind, bool staged) {
  const registers_config& c = registers_configs[config];
  const int n = 16 / elem_bytes;
  const int k = registers_k(config, n);
  const int narrow_block = narrow_block_for(first_registers_config(static_cast<int64_t>(c.g) * k, n, 1));
  for (const wide_rows_rule& rule : wide_rows_rules) {
    if (!wide_rule_names(rule, elem_bytes, kind)) continue;
    if (!staged && narrow_block > rule.above_block) return true;
    if (rule.max_cluster > 1 && k == 8 && c.g >= wide_cluster_min_threads) return true;
  }
  return false;
}

/// CTAs per row for many rows that stream (policy.hpp: streaming_*): the most, up to
/// streaming_max_cluster, that keep segments of streaming_min_segment_bytes or more; 1 where the
/// rule does not apply (no clusters, packs narrower than 16 bytes).
constexpr int streaming_cluster(const problem& p, const device_limits& dev, int64_t packs) {
  if (!dev.clusters || p.pack_elems * p.elem_bytes != 16) return 1;
  const int64_t min_segment = streaming_min_segment_bytes / 16;  // packs
  int c = 1;
  while (c * 2 <= cluster_limit(dev, streaming_max_cluster) && packs / (c * 2) >= min_segment) c *= 2;
  return c;
}

/// Staged clusters for ops without per-column weights (policy.hpp:
/// staged_wide_segments_without_weights): streaming_cluster's choice (segments >= 64 KiB), when it
/// splits the row and staged_stages segments of every input fit the opt-in shared memory; 0 else.
constexpr int staged_wide_cluster(const problem& p, const device_limits& dev, int64_t packs) {
  if (!staged_wide_segments_without_weights) return 0;
  const int c = streaming_cluster(p, dev, packs);
  if (c < 2) return 0;
  const int64_t smem = static_cast<int64_t>(staged_stages) * p.row_inputs * ceil_div(packs, c) * 16;
  return smem + static_smem_reserve <= static_cast<int64_t>(dev.max_smem_optin) ? c : 0;
}

/// Long rows of an op without weights staged over staged_wide_cluster's cluster; an invalid plan
/// where the op has weights, the rows cannot stage or their stages do not fit.
constexpr plan staged_wide_plan(const problem& p, const device_limits& dev, int64_t packs) {
  if (!stageable(p, dev) || p.column_params) return plan{};
  const int c = staged_wide_cluster(p, dev, packs);
  return c > 0 ? make_staged_plan(p, c, ceil_div(packs, c)) : plan{};
}

/// Each row over a cluster of c CTAs holding its segments in registers (the smallest config of at
/// least 64 threads that holds one); an invalid plan when none does.
constexpr plan registers_over_cluster(const problem& p, const device_limits& dev, int64_t packs, int c) {
  const int64_t segment = ceil_div(packs, c);
  const int cfg = first_registers_config(segment, p.pack_elems, 64);
  return cfg >= 0 ? make_registers_plan(p, dev, cfg, c, segment) : plan{};
}

/// Few rows whose spread cluster's segments no registers config holds: in registers over twice
/// that cluster where policy.hpp's few_rows_doubling says so; an invalid plan otherwise.
constexpr plan few_rows_doubled_plan(const problem& p, const device_limits& dev, int64_t packs, int spread) {
  const int c = spread * 2;
  // Measured for rows of 16-byte packs without a residual only.
  if (!few_rows_doubling.enabled || c > cluster_limit(dev, max_cluster) || p.pack_elems * p.elem_bytes != 16 ||
      p.row_inputs != 1)
    return plan{};
  if (spread < few_rows_doubling.min_cluster && p.rows * c > dev.sm_count) return plan{};
  return registers_over_cluster(p, dev, packs, c);
}

/// Few rows whose spread cluster's segments neither a 32-value config of up to 384 threads nor
/// few_rows_doubled_plan holds: on 512 threads of 32 values at the spread cluster where
/// policy.hpp's few_rows_block says so; an invalid plan otherwise.
constexpr plan few_rows_block_plan(const problem& p, const device_limits& dev, int64_t packs, int spread) {
  if (!few_rows_block_serves(p.pack_elems * p.elem_bytes, p.row_inputs) || spread < 2) return plan{};
  const int cfg = few_rows_block_config;
  const int64_t segment = ceil_div(packs, spread);
  if (static_cast<int64_t>(registers_configs[cfg].g) * registers_k(cfg, p.pack_elems) < segment) return plan{};
  return make_registers_plan(p, dev, cfg, spread, segment);
}

/// Choose how to run `p` on `dev`:
/// 1. rows that fit one CTA's registers: the smallest registers config (sub-warp, warp, block);
///    when the rows are too few to fill the SMs and long enough, split each over a cluster
///    (each CTA then holds a segment in registers; where the segment is too long, over twice
///    that cluster when policy.hpp's few_rows_doubling says so, else on 512 threads where
///    few_rows_block does); many 16-bit rows that fill a wide config
///    (40-64 values per thread; longer ones over a cluster of such segments) where a rule of
///    wide_rows_rules says so; many rows that a rule of
///    clustered_rows_rules splits although one CTA holds them (16-bit softmax on more than 256
///    threads; 16-bit fused_add_rms_norm rows on more than 256 threads, staged): over that
///    rule's cluster;
/// 2. longer rows, many of them, that a rule of clustered_rows_rules takes: each over a cluster
///    holding segments in registers;
/// 3. longer rows of ops that choose it, 16-byte aligned, on sm_90: staged in shared memory, over
///    the smallest cluster whose segments fit the staging budget (at least the spread cluster;
///    many rows past it: over 16 CTAs with larger stages where a rule says so);
///    ops without weights: in step 4, for many rows, over streaming's cluster (>= 64 KiB each);
/// 4. longer rows, many of them: rows of 128 KiB and more of ops without weights that stage,
///    aligned: staged over the cluster streaming would take, when its stages fit; otherwise
///    streaming (pass 2 re-reads the row), one CTA per row, or for rows of 128 KiB and more a
///    cluster of up to 16 CTAs with at least 64 KiB each;
/// 5. longer rows, few of them: a cluster whose CTAs each cache a segment in shared memory, or
///    stream it when even 16 CTAs' shared memory cannot hold the row.
constexpr plan plan_rows(const problem& p, const device_limits& dev) {
  const int n = p.pack_elems;
  const int64_t packs = row_packs_for(p.cols, n, p.head);  // chunked and staged kernels
  // Registers kernels (their rows wrapped; the clustered-rows rules count the staged kernel's
  // packs themselves where they stage).
  const int64_t rpacks = registers_row_packs_for(p.cols, n, p.head);
  const int64_t pack_bytes = static_cast<int64_t>(p.elem_bytes) * n;
  const int spread = spread_cluster(p, rpacks, dev);

  if (spread > 1) {
    if (const plan spread_rows = registers_over_cluster(p, dev, rpacks, spread); spread_rows.valid) return spread_rows;
    if (const plan doubled = few_rows_doubled_plan(p, dev, rpacks, spread); doubled.valid) return doubled;
    if (const plan block512 = few_rows_block_plan(p, dev, rpacks, spread); block512.valid) return block512;
  } else {
    const int cfg = first_registers_config(rpacks, n, 1);
    // Many rows of 16-bit elements held 40-64 values per thread where a rule says so (rows past
    // one CTA's 32-value registers also over a cluster).
    if (const plan wide = wide_rows_plan(p, dev, rpacks, narrow_block_for(cfg)); wide.valid) return wide;
    if (cfg >= 0) {
      // Rows a rule splits although one CTA holds them (16-bit softmax or fused_add_rms_norm on
      // more than 256 threads).
      const int block = registers_configs[cfg].block;
      if (const plan clustered = clustered_rows_plan(p, dev, rpacks, block); clustered.valid) return clustered;
      return make_registers_plan(p, dev, cfg, 1, rpacks);
    }
    // Many rows longer than a block's registers: a cluster in registers where a rule says so.
    if (const plan clustered = clustered_rows_plan(p, dev, rpacks); clustered.valid) return clustered;
  }

  // Rows longer than a block's registers, on sm_90: staged (one read, one write), the
  // ops with weights in 32 KiB segments here, those without (many rows only) after the
  // clustered-rows rules below.
  if (stageable(p, dev) && p.column_params) {
    const int c = staged_cluster(p, dev, packs, spread);
    if (c > 0) return make_staged_plan(p, c, ceil_div(packs, c));
    // Many rows past that budget: larger stages where policy.hpp's long_rows_stage_rules say so.
    if (spread == 1)
      if (const plan longer = long_rows_staged_plan(p, dev, packs); longer.valid) return longer;
  }

  // Otherwise (misaligned rows, older GPUs). With rows enough to fill the GPU, stream them with
  // one CTA per row: measured on the H200 (bench/results/2026-11-30-plan-sweep.log) it beat
  // the shared-memory cache, with or without a cluster, at 32768-262144 columns, because a
  // cluster barrier per row costs ~0.6 us and the cache's 100-200 KiB leaves one CTA per SM.
  // Its second read of a row hits L2 only while the resident rows fit it: from 32768 fp32 /
  // 65536 16-bit columns it goes back to DRAM (ncu, bench/NOTES.md 17), the known gap of this
  // regime; rows that a clustered-rows rule takes go over a cluster in registers instead, and
  // long rows stream over a cluster whose segments stay in L2 (policy.hpp). Few rows:
  // spread each over a cluster, caching its segment in shared memory when it fits.
  if (spread == 1) {
    if (const plan staged = staged_wide_plan(p, dev, packs); staged.valid) return staged;
    const int c = streaming_cluster(p, dev, packs);
    return make_chunked_plan(p, false, c, ceil_div(packs, c));
  }
  const int64_t cache_bytes = static_cast<int64_t>(dev.max_smem_optin) - static_smem_reserve;
  const int limit = cluster_limit(dev, max_cluster);
  for (int c = spread; c <= limit; c *= 2) {
    const int64_t segment = ceil_div(packs, c);
    if (segment * pack_bytes <= cache_bytes) return make_chunked_plan(p, true, c, segment);
  }
  return make_chunked_plan(p, false, limit, ceil_div(packs, limit));
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
