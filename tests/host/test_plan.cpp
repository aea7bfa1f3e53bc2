// tests/host/test_plan.cpp — dispatch::plan_rows, the pure host function that picks the strategy,
// checked exhaustively on the host (no GPU): for every cols from 1 to 300000, fp32 and 16-bit
// elements, the 16-byte pack and the narrow one, every row head the dispatch can pass, H200-like
// and A100-like device limits, and rows in {1, 8, 64, 100000}, the plan must be valid and its
// capacity must cover the row (which strategy is chosen where is policy, measured and tuned in
// dispatch/plan.hpp; only what makes a plan runnable and correct is checked here):
//   registers  the config is in the table and matches the plan; G * K >= the segment's packs;
//              cluster * segment >= the row's packs; K * N <= 64 values per thread (the register
//              budget, and slot_mask's limit); a split row is a whole-block row (G == block);
//   cached     dynamic smem == segment * N * sizeof(T) <= max_smem_optin - 2 KiB (the kernel's
//              static reduction storage); cluster * segment >= packs;
//   streaming  cluster * segment >= packs, no dynamic shared memory;
//   always     cluster in {1, 2, 4, 8, 16} and 1 without clusters, block <= 1024 (a multiple of
//              32), rows_per_step >= 1, max_useful_blocks >= cluster.
// The plan does not depend on the op, so the loop also covers the norms' hidden sizes 1..131072.
// The row's packs are computed here independently: (cols + head + N - 1) / N with the head
// (elements before the first N-aligned one) taken as N - 1 when rows differ (head = -1); for
// registers plans one fewer where the row's partial last pack fits the free slots of its partial
// head pack (the kernel wraps it there, kernels/thread_packs.cuh), the most over every head when
// rows differ.
#include <catch2/catch.hpp>

#include <rowwise/dispatch/cluster_fallback.hpp>
#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/dispatch/policy.hpp>

#include "support/device_models.hpp"
#include "support/plan_problems.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace dsp = rowwise::dispatch;

using rowwise_test::a100_like;
using rowwise_test::h200_capped;
using rowwise_test::h200_like;
using rowwise_test::plan_problem;
using rowwise_test::weights_desc;

int64_t packs_of(int64_t cols, int n, int head) { return (cols + (head < 0 ? n - 1 : head) + n - 1) / n; }

int64_t registers_packs_of(int64_t cols, int n, int head) {
  if (head < 0) {
    int64_t most = 0;
    for (int h = 0; h < n; ++h) most = std::max(most, registers_packs_of(cols, n, h));
    return most;
  }
  const int64_t spanned = packs_of(cols, n, head);
  const int last = static_cast<int>(cols + head - (spanned - 1) * n);  // elements of the last pack
  // Packs of 4 and 8 (kernels/row_pack_span.hpp: packs_wrap).
  const bool wraps = n >= 4 && spanned >= 2 && head > 0 && last < n && last <= head;
  return wraps ? spanned - 1 : spanned;
}

/// Why `pl` cannot run problem `p` on `dev`, or "" when it can.
std::string plan_error(const dsp::problem& p, const dsp::plan& pl, const dsp::device_limits& dev) {
  const int n = p.pack_elems;
  const int64_t packs =
      pl.kind == dsp::strategy::registers ? registers_packs_of(p.cols, n, p.head) : packs_of(p.cols, n, p.head);
  // The kernels' static shared memory (~1.5 KiB, ptxas -v) must fit beside the cache.
  const int64_t cache_bytes = static_cast<int64_t>(dev.max_smem_optin) - 2048;
  if (!pl.valid) return "plan not valid";
  if (pl.pack_elems != n) return "pack_elems differs from the problem's";
  if (pl.cluster != 1 && pl.cluster != 2 && pl.cluster != 4 && pl.cluster != 8 && pl.cluster != 16)
    return "cluster not in {1, 2, 4, 8, 16}";
  if (!dev.clusters && pl.cluster != 1) return "cluster > 1 on a device without clusters";
  if (pl.cluster > dev.max_cluster) return "cluster larger than the device's max_cluster";
  if (pl.block < 32 || pl.block > 1024 || pl.block % 32 != 0) return "block not a multiple of 32 in [32, 1024]";
  if (pl.rows_per_step < 1) return "rows_per_step < 1";
  if (pl.max_useful_blocks < pl.cluster) return "max_useful_blocks < cluster";
  if (pl.segment_packs < 1) return "segment_packs < 1";
  if (pl.segment_packs * pl.cluster < packs) return "cluster * segment_packs < the row's packs";
  switch (pl.kind) {
    case dsp::strategy::registers: {
      if (pl.config < 0 || pl.config >= dsp::registers_config_count) return "registers config outside the table";
      const dsp::registers_config& c = dsp::registers_configs[pl.config];
      if (pl.threads_per_row != c.g || pl.block != c.block) return "plan's G / block differ from its config";
      if (pl.packs_per_thread != dsp::registers_k(pl.config, n)) return "plan's K differs from its config";
      if (pl.block % pl.threads_per_row != 0 && pl.threads_per_row <= 32) return "block not a multiple of G";
      if (pl.threads_per_row > 32 && pl.threads_per_row != pl.block) return "G > 32 but not the whole block";
      if (pl.rows_per_step != pl.block / pl.threads_per_row) return "rows_per_step != block / G";
      if (static_cast<int64_t>(pl.threads_per_row) * pl.packs_per_thread < pl.segment_packs)
        return "G * K < segment_packs: the registers cannot hold the segment";
      if (pl.packs_per_thread * n > 64) return "K * N > 64 values per thread";
      if (c.values > 32) {
        // Wide rows (wide_rows_plan): 16-byte packs filling the config (each cluster segment)
        // exactly; a column stage only over a cluster; only configs that are compiled.
        // 16-bit packs, or fp32 layer_norm's 16 packs of 4 (wide_rows_rules).
        const bool fp32_wide = p.elem_bytes == 4 && n == 4 && dsp::op_kind_of(p) == dsp::layer_norm_kind;
        if ((p.elem_bytes != 2 || n != 8) && !fp32_wide) return "wide config for other than 16-bit or fp32 layer_norm packs";
        if (packs * n != p.cols) return "wide config for rows of other than whole (or wrapped) packs";
        if (static_cast<int64_t>(pl.threads_per_row) * pl.packs_per_thread != pl.segment_packs ||
            pl.segment_packs * pl.cluster != packs)
          return "wide config that the row (its segments) does not fill exactly";
        if (pl.dynamic_smem != 0 && pl.cluster == 1) return "one-CTA wide config with a column stage";
        const unsigned kind = dsp::op_kind_of(p);
        if (!dsp::wide_config_reachable(pl.config, p.elem_bytes, kind, pl.dynamic_smem > 0))
          return "wide config that launch.cuh does not compile for this op";
      }
      if (pl.config == dsp::few_rows_block_config) {
        // Few rows only (few_rows_block_plan): compiled for the rows few_rows_block serves.
        if (!dsp::few_rows_block_serves(n * p.elem_bytes, p.row_inputs))
          return "few-rows config that launch.cuh does not compile";
        if (pl.cluster < 2) return "few-rows config without a spread cluster";
      }
      if (pl.cluster > 1 && pl.threads_per_row != pl.block) return "a split row must be a whole-block row";
      if (pl.cluster == 1 && static_cast<int64_t>(pl.threads_per_row) * pl.packs_per_thread < packs)
        return "G * K < the row's packs";
      // The column stage: nothing, or exactly what the kernel lays out (every thread's K packs
      // of N columns per parameter vector), within one CTA's opt-in beside the static memory.
      if (pl.dynamic_smem != 0) {
        if (p.column_param_count == 0) return "registers plan with shared memory for an op without weights";
        if (pl.dynamic_smem != int64_t{p.column_param_count} * pl.packs_per_thread * n * p.column_param_bytes * pl.block)
          return "column stage != params * K * N * bytes * block";
        if (pl.dynamic_smem > cache_bytes) return "column stage > max_smem_optin - 2 KiB";
      }
      break;
    }
    case dsp::strategy::cached:
      if (pl.dynamic_smem != pl.segment_packs * p.elem_bytes * n) return "dynamic_smem != segment * pack bytes";
      if (pl.dynamic_smem > cache_bytes) return "dynamic_smem > max_smem_optin - 2 KiB";
      if (pl.threads_per_row != pl.block) return "chunked plan: threads_per_row != block";
      break;
    case dsp::strategy::streaming:
      if (pl.dynamic_smem != 0) return "streaming plan asks for dynamic shared memory";
      if (pl.threads_per_row != pl.block) return "chunked plan: threads_per_row != block";
      break;
    case dsp::strategy::staged:
      if (!p.staged_op) return "staged plan for an op that did not choose it";
      if (dev.cc_major < 9) return "staged plan before sm_90";
      if (p.head < 0 || n * p.elem_bytes != 16) return "staged plan for rows of differing heads or narrow packs";
      if (packs_of(p.cols, n, p.head) < 2) return "staged plan for a row of one pack";
      if (pl.partial_packs != (p.head != 0 || p.cols % n != 0)) return "staged plan: partial_packs";
      if (pl.dynamic_smem != int64_t{dsp::staged_stages} * p.row_inputs * pl.segment_packs * 16)
        return "dynamic_smem != stages * inputs * segment * 16";
      if (pl.dynamic_smem > cache_bytes) return "dynamic_smem > max_smem_optin - 2 KiB";
      // Ops with weights stage at most staged_segment_bytes per CTA (many rows past 16 such
      // segments, or past the device's largest cluster: up to their long_rows_stage_rules limit
      // over that many CTAs); those without stage the streaming rule's segments (>= 64 KiB, many
      // rows only).
      // A row that starts inside a pack counts one pack fewer against a budget: its aligned
      // twin's (the stage holds the extra pack on top).
      const int64_t budget_segment = (packs_of(p.cols, n, p.head) - (p.head > 0 ? 1 : 0) + pl.cluster - 1) / pl.cluster;
      if (pl.segment_packs - budget_segment > 1) return "segment more than one pack past the budget's";
      if (p.column_params && budget_segment * 16 * p.row_inputs > dsp::staged_segment_bytes) {
        if (pl.cluster != dsp::cluster_limit(dev, dsp::max_cluster) ||
            budget_segment * 16 * p.row_inputs > dsp::long_rows_stage_bytes(p))
          return "segment over the staging budget";
        if (dsp::spread_cluster(p, dsp::row_packs_for(p.cols, n, p.head), dev) > 1) return "larger stages for few rows";
      }
      if (!p.column_params && (pl.segment_packs * 16 < dsp::streaming_min_segment_bytes || pl.cluster < 2))
        return "wide staged plan below 64 KiB per CTA or without a cluster";
      if (p.cols * p.elem_bytes * p.row_inputs <= dsp::staged_min_row_bytes) return "staged a row the L2 serves";
      if (pl.threads_per_row != pl.block || !pl.persistent) return "staged plan: threads or grid";
      break;
  }
  return "";
}

struct sweep_result {
  int64_t plans = 0;
  int64_t failures = 0;
  std::string first;
};

/// Every cols in [1, max_cols] for one (rows, elem_bytes, pack, head) on dev.
void sweep(const dsp::device_limits& dev, int64_t rows, int elem_bytes, int n, int head, int64_t max_cols,
           sweep_result& out, bool staged_op = false, int row_inputs = 1, weights_desc w = {}) {
  for (int64_t cols = 1; cols <= max_cols; ++cols) {
    const dsp::problem p = plan_problem(rows, cols, elem_bytes, n, head, staged_op, w, row_inputs);
    const dsp::plan pl = dsp::plan_rows(p, dev);
    ++out.plans;
    const std::string err = plan_error(p, pl, dev);
    if (!err.empty()) {
      if (out.failures++ == 0) {
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "%s: sm %d smem %d clusters %d, rows %lld, cols %lld, elem_bytes %d, pack %d, head %d -> kind %d "
                      "config %d G %d K %d block %d cluster %d segment %lld smem %lld",
                      err.c_str(), dev.sm_count, dev.max_smem_optin, dev.clusters ? 1 : 0,
                      static_cast<long long>(rows), static_cast<long long>(cols), elem_bytes, n, head,
                      static_cast<int>(pl.kind), pl.config, pl.threads_per_row, pl.packs_per_thread, pl.block,
                      pl.cluster, static_cast<long long>(pl.segment_packs), static_cast<long long>(pl.dynamic_smem));
        out.first = buf;
      }
    }
  }
}

dsp::plan plan_for(const dsp::device_limits& dev, int64_t rows, int64_t cols, int elem_bytes, int n, int head,
                   bool staged_op = false, bool column_params = false, weights_desc w = {}, int row_inputs = 1) {
  dsp::problem p = plan_problem(rows, cols, elem_bytes, n, head, staged_op, w, row_inputs);
  p.column_params = column_params || w.count > 0;
  return dsp::plan_rows(p, dev);
}

/// fused_add_rms_norm's plan (two inputs per row, weights, long rows staged).
dsp::plan plan_for_problem(const dsp::device_limits& dev, int64_t rows, int64_t cols, int elem_bytes, int n, int head,
                           bool staged_op) {
  return plan_for(dev, rows, cols, elem_bytes, n, head, staged_op);
}

dsp::plan fused_plan_for(const dsp::device_limits& dev, int64_t rows, int64_t cols, int elem_bytes) {
  return plan_for(dev, rows, cols, elem_bytes, 16 / elem_bytes, 0, true, true, {}, 2);
}

}  // namespace

TEST_CASE("plan_rows: every cols 1..300000 gets a valid plan whose capacity covers the row", "[host][plan]") {
  struct device_case {
    const char* name;
    dsp::device_limits dev;
  };
  const device_case devices[] = {{"H200-like (132 SMs, 227 KiB smem, clusters)", h200_like()},
                                 {"A100-like (108 SMs, 163 KiB smem, no clusters)", a100_like()},
                                 {"H200-like running sm_80 code (JIT of its PTX)", dsp::limits_for_code(h200_like(), 80)},
                                 {"H200-like whose clusters hold at most 8 CTAs", h200_capped(8)},
                                 {"H200-like whose clusters hold at most 2 CTAs", h200_capped(2)}};
  for (const device_case& d : devices)
    for (int elem_bytes : {4, 2}) {
      const int widest = 16 / elem_bytes;
      for (int n : {widest, 1}) {
        // The heads the dispatch passes: -1 (rows differ: plan for N - 1), or the shared head 0..N-1.
        std::vector<int> heads = {0};
        if (n > 1) heads = {-1, 0, 1, n - 1};
        for (int head : heads)
          for (int64_t rows : {1, 8, 64, 100000})
            for (bool staged_op : {false, true}) {  // softmax stages long rows; layer_norm does not
              sweep_result r;
              sweep(d.dev, rows, elem_bytes, n, head, 300000, r, staged_op);
              INFO(d.name << ", elem_bytes " << elem_bytes << ", pack " << n << ", head " << head << ", rows " << rows
                          << ", staged_op " << staged_op << ": " << r.plans << " plans");
              INFO(r.first);
              CHECK(r.failures == 0);
            }
      }
    }
}

TEST_CASE("plan_rows: ops with per-column weights get valid plans (column stages included) for every cols 1..300000",
          "[host][plan]") {
  for (const dsp::device_limits& dev :
       {h200_like(), a100_like(), dsp::limits_for_code(h200_like(), 80), h200_capped(8), h200_capped(4)})
    for (int elem_bytes : {4, 2})
      for (weights_desc w : {weights_desc{2, elem_bytes}, weights_desc{2, 4}, weights_desc{1, elem_bytes}})
        for (int n : {16 / elem_bytes, 1})
          for (int64_t rows : {1, 128, 100000}) {
            sweep_result r;
            sweep(dev, rows, elem_bytes, n, 0, 300000, r, w.count == 1, 1, w);
            INFO("clusters " << dev.clusters << ", elem_bytes " << elem_bytes << ", pack " << n << ", weights "
                             << w.count << " x " << w.bytes << " B, rows " << rows << ": " << r.plans << " plans");
            INFO(r.first);
            CHECK(r.failures == 0);
          }
}

TEST_CASE("plan_rows: weights are staged in shared memory only where every CTA is resident at once (or the op "
          "is fp32 with one weight vector) and no CTA per SM is lost",
          "[host][plan]") {
  const dsp::device_limits dev = h200_like();
  const weights_desc ln16{2, 2}, ln32{2, 4}, rms16{1, 2};
  // One wave (the small shapes): staged; the stage is what the kernel lays out.
  for (int64_t rows : {1, 16, 128}) {
    const dsp::plan pl = plan_for(dev, rows, 4096, 2, 8, 0, false, true, ln16);
    INFO("bf16 layer_norm " << rows << " x 4096");
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.dynamic_smem == int64_t{2} * pl.packs_per_thread * 8 * 2 * pl.block);
  }
  CHECK(plan_for(dev, 1, 4096, 4, 4, 0, true, true, weights_desc{1, 4}).dynamic_smem > 0);
  // Many waves: every CTA would copy the same lines from L2; plain (L1-cached) loads instead.
  CHECK(plan_for(dev, 100000, 4096, 2, 8, 0, false, true, ln16).dynamic_smem == 0);
  CHECK(plan_for(dev, 100000, 768, 2, 8, 0, true, true, rms16).dynamic_smem == 0);
  CHECK(plan_for(dev, 100000, 4096, 4, 4, 0, false, true, weights_desc{2, 4}).dynamic_smem == 0);
  // ... except fp32 rows with one weight vector (policy.hpp column_stage_every_wave): rms_norm and
  // fused_add_rms_norm stage in every grid.
  for (int row_inputs : {1, 2}) {
    const dsp::plan many = plan_for(dev, 100000, 4096, 4, 4, 0, true, true, weights_desc{1, 4}, row_inputs);
    INFO("fp32, one weight vector, inputs " << row_inputs);
    CHECK(many.kind == dsp::strategy::registers);
    CHECK(many.cluster == 1);
    CHECK(many.dynamic_smem == int64_t{1} * many.packs_per_thread * 4 * 4 * many.block);
  }
  // A persistent grid (rows over a cluster in registers): each CTA copies once for all its rows.
  const dsp::plan clustered = plan_for(dev, 100000, 20480, 2, 8, 0, false, true, ln16);
  CHECK(clustered.kind == dsp::strategy::registers);
  CHECK(clustered.cluster == 2);
  CHECK(clustered.persistent);
  CHECK(clustered.dynamic_smem > 0);
  // ... but not the 32-value segments of many 16-bit layer_norm rows over clusters (policy.hpp:
  // clustered_rows_stage_weights); fp32 ones keep theirs.
  for (int64_t cols : {13312, 15360, 18432}) {
    const dsp::plan split = plan_for(dev, 100000, cols, 2, 8, 0, false, true, ln16);
    INFO("bf16 layer_norm 100000 x " << cols);
    CHECK(split.kind == dsp::strategy::registers);
    CHECK(split.cluster == 2);
    CHECK(split.packs_per_thread * 8 == 32);
    CHECK(split.dynamic_smem == 0);
  }
  // (16384 fp32 columns fill a wide config instead: one CTA of 256 x 16 packs, wide_rows_rules.)
  const dsp::plan split32 = plan_for(dev, 100000, 32768, 4, 4, 0, false, true, ln32);
  CHECK(split32.cluster > 1);
  CHECK(split32.dynamic_smem > 0);
  // The staged 16-bit layer_norm instance of 160-256 threads has 128 registers (2-3 CTAs per SM):
  // no grid of many rows may use it (policy.hpp: two_weights_16bit_staged_max_block).
  for (int64_t cols = 8; cols <= 131072; cols += 8) {
    const dsp::plan pl = plan_for(dev, 100000, cols, 2, 8, 0, false, true, ln16);
    if (pl.kind != dsp::strategy::registers || pl.dynamic_smem == 0) continue;
    INFO("bf16 layer_norm 100000 x " << cols);
    CHECK(!(pl.packs_per_thread * 8 == 32 && pl.threads_per_row == pl.block && pl.block > 128));
  }
  // The stage's occupancy is that of the staged instance (policy.hpp: two_weights_16bit_staged, 128
  // registers up to 256 threads): bf16 rows with fp32 weights, 256 threads hold 2 CTAs per SM, whose
  // 2 stages of 64 KiB fit; at 4096 columns 4 CTAs of 128 threads, 4 stages of 32 KiB.
  CHECK(plan_for(dev, 1, 8192, 2, 8, 0, false, true, ln32).block == 256);
  CHECK(plan_for(dev, 1, 8192, 2, 8, 0, false, true, ln32).dynamic_smem == int64_t{2} * 4 * 8 * 4 * 256);
  CHECK(plan_for(dev, 1, 4096, 2, 8, 0, false, true, ln32).dynamic_smem == int64_t{2} * 4 * 8 * 4 * 128);
  // A call of more rows than those CTAs hold at once (512 rows; 2 per SM on 132 SMs hold 264) does
  // not stage: its CTAs would not each copy the weights once.
  CHECK(plan_for(dev, 512, 8192, 2, 8, 0, false, true, ln16).block == 256);
  CHECK(plan_for(dev, 512, 8192, 2, 8, 0, false, true, ln16).dynamic_smem == 0);
  CHECK(plan_for(dev, 256, 8192, 2, 8, 0, false, true, ln16).dynamic_smem > 0);
  // No weights, or weights narrower than a cp.async (bf16 with packs of 1): nothing staged.
  CHECK(plan_for(dev, 1, 4096, 2, 8, 0).dynamic_smem == 0);
  CHECK(plan_for(dev, 1, 4097, 2, 1, 0, false, true, ln16).dynamic_smem == 0);
  // Unknown device limits (zero): nothing staged.
  dsp::device_limits unknown = dev;
  unknown.smem_per_sm = 0;
  CHECK(plan_for(unknown, 1, 4096, 2, 8, 0, false, true, ln16).dynamic_smem == 0);
}

TEST_CASE("plan_rows: ops that stage long rows (one or two inputs) get valid plans for every cols 1..300000",
          "[host][plan]") {
  for (const dsp::device_limits& dev : {h200_like(), a100_like()})
    for (int elem_bytes : {4, 2})
      for (int head : {0, 1, -1})
        for (int inputs : {1, 2})
          for (int64_t rows : {1, 100000}) {
            sweep_result r;
            sweep(dev, rows, elem_bytes, 16 / elem_bytes, head, 300000, r, true, inputs);
            INFO("clusters " << dev.clusters << ", elem_bytes " << elem_bytes << ", head " << head << ", inputs "
                             << inputs << ", rows " << rows << ": " << r.plans << " plans");
            INFO(r.first);
            CHECK(r.failures == 0);
          }
}

TEST_CASE("plan_rows: the staged strategy takes exactly the long rows of ops that choose it",
          "[host][plan]") {
  // The rms_norm family (weights): 32 KiB segments.
  auto plan = [](const dsp::device_limits& dev, int64_t cols, int elem_bytes, int head, bool staged_op, int inputs) {
    dsp::problem p;
    p.rows = 100000;
    p.cols = cols;
    p.elem_bytes = elem_bytes;
    p.pack_elems = 16 / elem_bytes;
    p.head = head;
    p.staged_op = staged_op;
    p.column_params = true;
    p.row_inputs = inputs;
    return dsp::plan_rows(p, dev);
  };
  const dsp::device_limits h200 = h200_like();
  // bf16 65528: 128 KiB per row, segments of 32 KiB over a cluster of 4 (two inputs: 8).
  // (rms_norm's and fused_add_rms_norm's 65536 go over 4 CTAs of 256 x 64 values: wide_rows_rules.)
  dsp::plan pl = plan(h200, 65536 - 8, 2, 0, true, 1);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.cluster == 4);
  pl = plan(h200, 65536 - 8, 2, 0, true, 2);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.cluster == 8);
  pl = plan(h200, 65536, 2, 0, true, 2);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(pl.cluster == 4);
  CHECK(pl.threads_per_row == 256);
  CHECK(pl.packs_per_thread == 8);
  // Rows that start or end inside a pack stage too (the kernel's Edges instance), on their aligned
  // twin's cluster (staged_budget_packs); misaligned rows of whole packs that a registers rule
  // holds wrap their last pack onto the head pack and keep the aligned rows' registers plan.
  pl = plan(h200, 65536 - 8, 2, 1, true, 1);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.cluster == 4);
  CHECK(pl.partial_packs);
  CHECK(!plan(h200, 65536 - 8, 2, 0, true, 1).partial_packs);
  pl = plan(h200, 65536 + 3, 2, 0, true, 1);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.partial_packs);
  CHECK(plan(h200, 65536, 2, 1, true, 1).kind == dsp::strategy::registers);
  // Not staged: ops that did not choose it, rows whose heads differ, rows that L2 serves, no sm_90.
  CHECK(plan(h200, 65536 + 8, 2, 0, false, 1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 65536 + 8, 2, 1, false, 1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 65536 - 8, 2, -1, true, 1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 32768, 2, 0, true, 1).kind != dsp::strategy::staged);
  CHECK(plan(h200, 32768, 4, 0, true, 2).kind == dsp::strategy::staged);
  // fp32 rms_norm rows of 64 KiB - 512 KiB go over a cluster in registers (clustered_rows_rules).
  CHECK(plan(h200, 32768, 4, 0, true, 1).kind == dsp::strategy::registers);
  CHECK(plan(h200, 152064, 4, 0, true, 1).kind != dsp::strategy::registers);
  CHECK(plan(a100_like(), 65536, 2, 0, true, 1).kind == dsp::strategy::streaming);
  // Longer than 16 CTAs stage in 32 KiB: over 16 CTAs with larger stages, up to the op's
  // long_rows_stage_rules limit (fp32 rms_norm: 64 KiB, 262144 columns); longer ones stream.
  pl = plan(h200, 262144, 4, 0, true, 1);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.cluster == 16);
  CHECK(pl.dynamic_smem == 3 * 64 * 1024);
  CHECK(plan(h200, 262144 + 4, 4, 0, true, 1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 131072 + 4, 4, 0, true, 1).kind == dsp::strategy::staged);
  // bf16 rms_norm up to 48 KiB per CTA (393216 columns); the fused op up to 64 KiB of both inputs.
  CHECK(plan(h200, 393216, 2, 0, true, 1).kind == dsp::strategy::staged);
  CHECK(plan(h200, 393216 + 8, 2, 0, true, 1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 262144, 2, 0, true, 2).kind == dsp::strategy::staged);
  CHECK(plan(h200, 262144 + 8, 2, 0, true, 2).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 262144 - 8, 2, 3, true, 2).kind == dsp::strategy::staged);
  CHECK(plan(h200, 262144 - 8, 2, -1, true, 2).kind != dsp::strategy::staged);
  // 16-bit fused rows that one CTA of more than 256 threads would hold (alone on its SM at 128
  // registers) and that fill no wide config: staged over 2 CTAs (policy.hpp clustered_rows_rules,
  // staged); not at 256 threads, not fp32, not rms_norm, not without sm_90. Those
  // that fill one (12288 = 192 x 64 values) go wide (wide_rows_rules), below.
  pl = plan(h200, 12280, 2, 0, true, 2);
  CHECK(pl.kind == dsp::strategy::staged);
  CHECK(pl.cluster == 2);
  pl = plan(h200, 12288, 2, 0, true, 2);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(pl.cluster == 1);
  CHECK(pl.threads_per_row == 192);
  CHECK(plan(h200, 8200, 2, 0, true, 2).kind == dsp::strategy::staged);
  CHECK(plan(h200, 8192, 2, 0, true, 2).kind == dsp::strategy::registers);
  CHECK(plan(h200, 12288, 4, 0, true, 2).kind == dsp::strategy::registers);
  CHECK(plan(h200, 12288, 2, 0, true, 1).kind == dsp::strategy::registers);
  CHECK(plan(h200, 12288, 2, 3, true, 2).kind != dsp::strategy::staged);
  CHECK(plan(h200, 12000 + 3, 2, 0, true, 2).kind == dsp::strategy::staged);  // a partial last pack
  CHECK(plan(h200, 12000 + 3, 2, -1, true, 2).kind == dsp::strategy::registers);
  CHECK(plan(a100_like(), 12288, 2, 0, true, 2).kind == dsp::strategy::registers);
}

TEST_CASE("plan_rows: ops without weights that stage (softmax) stage many long rows over streaming's cluster",
          "[host][plan]") {
  const dsp::device_limits h200 = h200_like();
  auto plan = [](const dsp::device_limits& dev, int64_t rows, int64_t cols, int elem_bytes, int head) {
    return plan_for(dev, rows, cols, elem_bytes, 16 / elem_bytes, head, /*staged_op=*/true, /*column_params=*/false);
  };
  struct expect {
    int elem_bytes;
    int64_t cols;
    dsp::strategy kind;
    int cluster;
  };
  for (const expect e : {expect{4, 152064, dsp::strategy::staged, 8}, expect{4, 262144, dsp::strategy::staged, 16},
                         expect{2, 152064, dsp::strategy::staged, 4}, expect{2, 262144, dsp::strategy::staged, 8},
                         // the clustered-rows rules come first (fp32 96-512 KiB, 16-bit up to 128 KiB in
                         // registers)
                         expect{4, 32768, dsp::strategy::registers, 4}, expect{4, 65536, dsp::strategy::registers, 8},
                         expect{4, 131072, dsp::strategy::registers, 16}, expect{2, 32768, dsp::strategy::registers, 4},
                         expect{2, 65536, dsp::strategy::registers, 8}, expect{2, 131072, dsp::strategy::staged, 4},
                         expect{2, 65536 - 8, dsp::strategy::registers, 8},
                         // three 256 KiB stages do not fit: streams
                         expect{4, 1 << 20, dsp::strategy::streaming, 16}}) {
    const dsp::plan pl = plan(h200, 100000, e.cols, e.elem_bytes, 0);
    INFO("elem_bytes " << e.elem_bytes << ", cols " << e.cols);
    CHECK(pl.kind == e.kind);
    CHECK(pl.cluster == e.cluster);
    if (pl.kind == dsp::strategy::staged) {
      CHECK(pl.segment_packs * 16 >= dsp::streaming_min_segment_bytes);
      CHECK(pl.dynamic_smem + dsp::static_smem_reserve <= h200.max_smem_optin);
    }
  }
  // A row one element past a boundary stages on the aligned row's cluster.
  const dsp::plan offset = plan(h200, 100000, 152064, 4, 1);
  CHECK(offset.kind == dsp::strategy::staged);
  CHECK(offset.cluster == 8);
  CHECK(offset.partial_packs);
  // Not staged: rows whose heads differ, few rows (they spread), no clusters.
  CHECK(plan(h200, 100000, 152064, 4, -1).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 8, 152064, 4, 0).kind != dsp::strategy::staged);
  CHECK(plan(a100_like(), 100000, 152064, 4, 0).kind == dsp::strategy::streaming);
}

TEST_CASE("plan_rows: many rows past one CTA's registers go over a small cluster in registers where a rule says so",
          "[host][plan]") {
  const auto plan = [](auto... a) { return plan_for(a...); };
  const dsp::device_limits h200 = h200_like();
  struct expect {
    int elem_bytes;
    int64_t cols;
    bool staged_op;      // with column_params: the kind of op (policy.hpp op_kind)
    bool column_params;
    int cluster;  // 0: not registers
    int block;
  };
  // plan_for(..., staged_op, column_params): softmax (true, false), layer_norm (false, true),
  // rms_norm (true, true).
  for (const expect e : {
           // fp32 softmax from 96 KiB: 4 / 8 / 16 CTAs of 256 threads x 8 packs; below: streaming
           expect{4, 32768, true, false, 4, 256}, expect{4, 65536, true, false, 8, 256},
           expect{4, 131072, true, false, 16, 256}, expect{4, 24576, true, false, 4, 192},
           expect{4, 20480, true, false, 0, 0}, expect{4, 152064, true, false, 0, 0},
           // fp32 layer_norm and rms_norm from 64 KiB, up to 16 CTAs of 256
           expect{4, 16384, false, true, 2, 256}, expect{4, 65536, false, true, 8, 256},
           expect{4, 131072, false, true, 16, 256}, expect{4, 16384, true, true, 2, 256},
           expect{4, 32768, true, true, 4, 256}, expect{4, 152064, false, true, 0, 0},
           // 16-bit softmax: up to 8 CTAs of 256 threads, also rows one CTA of more than 256 holds
           // (12288 and 16384 many rows fill a wide config instead: wide_rows_rules)
           expect{2, 8192, true, false, 1, 256}, expect{2, 8200, true, false, 2, 160},
           expect{2, 12296, true, false, 2, 224}, expect{2, 16392, true, false, 4, 160},
           expect{2, 12288, true, false, 1, 192}, expect{2, 16384, true, false, 1, 256},
           expect{2, 20480, true, false, 4, 160}, expect{2, 65536 - 8, true, false, 8, 256},
           expect{2, 65536, true, false, 8, 256},
           expect{2, 131072, true, false, 0, 0}, expect{2, 152064, true, false, 0, 0},
           // 16-bit layer_norm just past one CTA: 2 CTAs of at most 320 threads
           // (12288 and 16384 fill a wide config: one CTA of 192 / 256 threads x 64 values)
           expect{2, 12296, false, true, 2, 224}, expect{2, 16392, false, true, 2, 288},
           expect{2, 12288, false, true, 1, 192}, expect{2, 16384, false, true, 1, 256},
           // (20480 and 24576 over 2 CTAs of 160 / 192 threads x 64 values: wide_rows_rules)
           expect{2, 20480 - 8, false, true, 2, 320}, expect{2, 24576 + 8, false, true, 0, 0},
           // 16-bit rms_norm: none (but wide rows)
           expect{2, 16392, true, true, 0, 0}, expect{2, 12280, true, true, 1, 384},
           expect{2, 16384, true, true, 1, 256}, expect{2, 12288, true, true, 1, 192}}) {
    const int n = 16 / e.elem_bytes;
    const dsp::plan pl = plan(h200, 100000, e.cols, e.elem_bytes, n, 0, e.staged_op, e.column_params);
    INFO("elem_bytes " << e.elem_bytes << ", cols " << e.cols << ", staged_op " << e.staged_op
                       << ", column_params " << e.column_params);
    if (e.cluster == 0) {
      CHECK(pl.kind != dsp::strategy::registers);
      continue;
    }
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.cluster == e.cluster);
    CHECK(pl.block == e.block);
    CHECK(pl.persistent == (e.cluster > 1));
    CHECK(pl.cluster * pl.segment_packs >= dsp::row_packs_for(e.cols, n, 0));
  }
  // fp32 layer_norm with both weights: CTAs of two_weights_cluster_block threads (so 16 of them at
  // 65536), each staging 32 KiB of gamma + beta; past 16 of those (131072), the generic rule. With
  // one weight vector, and rms_norm, the generic rule's 256 threads.
  const weights_desc both{2, 4}, gamma_only{1, 4};
  struct split {
    int64_t cols;
    weights_desc w;
    bool staged_op;
    int cluster, block;
  };
  // (Many rows of 16384 with both weights fill a wide config instead: wide_rows_rules; the
  // clusters of 4 x 128 hold one wave of them.)
  CHECK(plan(h200, 264, 16384, 4, 4, 0, false, true, both).cluster == 4);
  CHECK(plan(h200, 264, 16384, 4, 4, 0, false, true, both).block == 128);
  CHECK(plan(h200, 512, 16384, 4, 4, 0, false, true, gamma_only).cluster == 2);
  for (const split e : {split{32768, both, false, 8, 128},
                        split{65536, both, false, 16, 128}, split{131072, both, false, 16, 256},
                        split{65536, gamma_only, false, 8, 256}, split{65536, gamma_only, true, 8, 256},
                        split{12288, both, false, 1, 384}}) {
    const dsp::plan q = plan(h200, 512, e.cols, 4, 4, 0, e.staged_op, true, e.w);
    INFO("cols " << e.cols << ", weights " << e.w.count << ", staged_op " << e.staged_op);
    CHECK(q.kind == dsp::strategy::registers);
    CHECK(q.cluster == e.cluster);
    CHECK(q.block == e.block);
    CHECK(plan_error(plan_problem(512, e.cols, 4, 4, 0, e.staged_op, e.w, 1), q, h200).empty());
    if (e.block == dsp::two_weights_cluster_block && e.cluster > 1) {
      // Five CTAs per SM at its staged instance's budget, each with its 32 KiB stage of both
      // weights (the unstaged instance: six).
      const dsp::problem pb = plan_problem(512, e.cols, 4, 4, 0, false, both, 1);
      CHECK(dsp::row_kernel_ctas_per_sm(pb, h200, q.block, q.packs_per_thread * q.pack_elems, q.threads_per_row, true) == 5);
      CHECK(dsp::row_kernel_ctas_per_sm(pb, h200, q.block, q.packs_per_thread * q.pack_elems, q.threads_per_row) == 6);
      CHECK(q.dynamic_smem == 32 * 1024);
    }
  }
  // bf16 layer_norm with both weights keeps its rules.
  CHECK(plan(h200, 1024, 65536, 2, 8, 0, false, true, both).block != dsp::two_weights_cluster_block);
  // A misaligned head still splits (whole packs per segment). Packs of 4 wrap too
  // (kernels/row_pack_span.hpp): the row spans the aligned row's packs, on its plan.
  dsp::plan pl = plan(h200, 100000, 32768, 4, 4, 3, true, false);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(pl.cluster * pl.segment_packs >= registers_packs_of(32768, 4, 3));
  CHECK(registers_packs_of(32768, 4, 3) == 8192);
  CHECK(dsp::registers_row_packs_for(32768, 4, 3) == 8192);
  CHECK(pl.wrapped_rows);
  {
    const dsp::plan aligned32 = plan(h200, 100000, 32768, 4, 4, 0, true, false);
    CHECK(pl.cluster == aligned32.cluster);
    CHECK(pl.block == aligned32.block);
    CHECK(pl.config == aligned32.config);
  }
  // Packs of 8: the partial last pack wraps onto the head pack (thread_packs.cuh), so the row
  // spans the aligned row's packs, on its plan.
  pl = plan(h200, 100000, 65536, 2, 8, 3, true, false);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(registers_packs_of(65536, 8, 3) == 8192);
  const dsp::plan aligned = plan(h200, 100000, 65536, 2, 8, 0, true, false);
  CHECK(pl.cluster == aligned.cluster);
  CHECK(pl.block == aligned.block);
  // One element more does not wrap (its last pack holds more than the head pack leaves free).
  CHECK(registers_packs_of(32769, 4, 1) == 8193);
  CHECK(dsp::registers_row_packs_for(32769, 4, 1) == 8193);
  pl = plan(h200, 100000, 13000, 2, 8, 0, false, true);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(pl.cluster == 2);
  CHECK(pl.cluster * pl.segment_packs >= dsp::row_packs_for(13000, 8, 0));
  // Not: fused_add_rms_norm rows the staged strategy takes (two inputs: up to 16 CTAs of 32 KiB),
  // one-element packs, no clusters, few rows (spread over the GPU instead).
  CHECK(fused_plan_for(h200, 100000, 32768, 4).kind == dsp::strategy::staged);
  CHECK(fused_plan_for(h200, 100000, 65536, 4).kind == dsp::strategy::staged);
  // fp32 fused_add_rms_norm rows of whole packs past what 16 CTAs stage go over 16 CTAs in
  // registers where the segments fill the config exactly (policy.hpp clustered_rows_rules:
  // past_stage_budget, exact_fill): 160-256 threads x 32 values.
  for (int64_t cols : {81920, 98304, 114688, 131072}) {
    INFO("fused fp32 cols " << cols);
    pl = fused_plan_for(h200, 100000, cols, 4);
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.cluster == 16);
    CHECK(pl.threads_per_row * 32 * 16 == cols);
  }
  // Not: segments that fill it partly (staged over 16 CTAs with larger stages:
  // long_rows_stage_rules), rows past 16 x 256 x 32 values (they stream), rows the stage takes.
  // Rows with a partial last pack follow the same rules (the staged kernel's Edges instance).
  for (int64_t cols : {65536 + 4, 65536 + 128, 100000, 106496}) {
    INFO("fused fp32 cols " << cols);
    pl = fused_plan_for(h200, 100000, cols, 4);
    CHECK(pl.kind == dsp::strategy::staged);
    CHECK(pl.cluster == 16);
  }
  CHECK(fused_plan_for(h200, 100000, 131072 + 4, 4).kind == dsp::strategy::streaming);
  CHECK(fused_plan_for(h200, 100000, 65536 - 4, 4).kind == dsp::strategy::staged);
  CHECK(plan_for(h200, 100000, 32768 - 2, 4, 4, 0, true, true, {}, 2).kind == dsp::strategy::staged);
  pl = plan_for(h200, 100000, 131072 - 2, 4, 4, 0, true, true, {}, 2);
  CHECK(pl.kind == dsp::strategy::registers);
  CHECK(pl.cluster == 16);
  CHECK(plan_for(h200, 100000, 131072 - 2, 4, 4, -1, true, true, {}, 2).kind == dsp::strategy::streaming);
  CHECK(fused_plan_for(a100_like(), 100000, 131072, 4).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 100000, 32768, 4, 1, 0, true, false).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 100000, 16384, 2, 1, 0, true, false).kind == dsp::strategy::streaming);
  CHECK(plan(h200, 100000, 12288, 2, 1, 0, true, false).cluster == 1);
  CHECK(plan(a100_like(), 100000, 32768, 4, 4, 0, true, false).kind == dsp::strategy::streaming);
  CHECK(plan(a100_like(), 100000, 12288, 2, 8, 0, true, false).cluster == 1);
  CHECK(plan(h200, 8, 32768, 4, 4, 0, true, false).cluster ==
        dsp::spread_cluster(plan_problem(8, 32768, 4, 4, 0, true, {}, 1), 8192, h200));
}

TEST_CASE("plan_rows: many long rows stream over a cluster of up to 16 CTAs of 64 KiB or more each",
          "[host][plan]") {
  const auto plan = [](auto... a) { return plan_for(a...); };
  const dsp::device_limits h200 = h200_like();
  const int64_t min_segment = dsp::streaming_min_segment_bytes / 16;  // packs
  struct expect {
    int elem_bytes;
    int64_t cols;
    int cluster;
  };
  // layer_norm-like (weights, never staged), past the registers rules (fp32 up to 512 KiB, 16-bit
  // up to 2 x 320 threads, or segments that fill a wide config: 24576, 32768, 65536).
  for (const expect e : {expect{4, 152064, 8}, expect{4, 262144, 16}, expect{4, 1 << 20, 16},
                         expect{2, 24576 + 8, 1}, expect{2, 32768 + 8, 1}, expect{2, 65536 + 8, 2}, expect{2, 152064, 4},
                         expect{2, 262144, 8}}) {
    const int n = 16 / e.elem_bytes;
    const dsp::plan pl = plan(h200, 100000, e.cols, e.elem_bytes, n, 0, false, true);
    INFO("elem_bytes " << e.elem_bytes << ", cols " << e.cols);
    CHECK(pl.kind == dsp::strategy::streaming);
    CHECK(pl.cluster == e.cluster);
    CHECK(pl.cluster * pl.segment_packs >= dsp::row_packs_for(e.cols, n, 0));
    CHECK((pl.cluster == 1 || pl.segment_packs >= min_segment));
    CHECK(pl.persistent == (pl.cluster > 1));
  }
  CHECK(plan(h200, 100000, 152064, 4, 4, 0, false, false).cluster == 8);
  CHECK(plan(h200, 100000, 262144, 4, 4, 0, false, false).cluster == 16);
  // Not: one-element packs, no clusters.
  CHECK(plan(h200, 100000, 262144, 4, 1, 0, false, false).cluster == 1);
  CHECK(plan(h200, 100000, 262144, 2, 1, 0, false, false).cluster == 1);
  CHECK(plan(a100_like(), 100000, 262144, 4, 4, 0, false, false).cluster == 1);
}

TEST_CASE("plan_rows: very long rows and very many rows stay valid (int64 sizes)", "[host][plan]") {
  for (const dsp::device_limits& dev : {h200_like(), a100_like()})
    for (int elem_bytes : {4, 2})
      for (int n : {16 / elem_bytes, 1})
        for (int64_t rows : {int64_t{1}, int64_t{3}, int64_t{1000}, (int64_t{1} << 31) / 4096 + 3, int64_t{1} << 33})
          for (int64_t cols : {int64_t{4096}, int64_t{1} << 20, int64_t{3} << 24, (int64_t{1} << 31) + 5,
                               int64_t{1} << 34}) {
            if (rows > 1000 && cols > (int64_t{1} << 20)) continue;
            dsp::problem p;
            p.rows = rows;
            p.cols = cols;
            p.elem_bytes = elem_bytes;
            p.pack_elems = n;
            p.head = -1;
            const dsp::plan pl = dsp::plan_rows(p, dev);
            INFO("rows " << rows << ", cols " << cols << ", elem_bytes " << elem_bytes << ", pack " << n
                         << ", clusters " << dev.clusters);
            const std::string err = plan_error(p, pl, dev);
            INFO(err);
            CHECK(err.empty());
            CHECK(pl.max_useful_blocks >= 1);
          }
}

TEST_CASE("plan_rows: few long rows are split over a cluster on sm_90-like limits (never without clusters)",
          "[host][plan]") {
  // DESIGN.md: rows too few to fill the GPU are split over the CTAs of a thread-block cluster.
  const dsp::plan one = plan_for(h200_like(), 1, 152064, 2, 8, 0);
  INFO("1 x 152064 bf16 on H200-like limits: kind " << static_cast<int>(one.kind) << ", cluster " << one.cluster);
  CHECK(one.cluster >= 8);
  const dsp::plan eight = plan_for(h200_like(), 8, 152064, 2, 8, 0);
  CHECK(eight.cluster >= 2);
  const dsp::plan worst = plan_for(h200_like(), 1, 152064, 2, 8, -1);
  CHECK(worst.cluster >= 8);
  // Many rows fill the GPU by themselves: no split while the row fits one CTA.
  CHECK(plan_for(h200_like(), 100000, 4096, 2, 8, 0).cluster == 1);
  CHECK(plan_for(h200_like(), 100000, 4096, 4, 4, 0).cluster == 1);
  // Without clusters: one CTA per row, whatever the row.
  for (int64_t cols : {int64_t{152064}, int64_t{1} << 20, int64_t{1} << 24}) {
    const dsp::plan a = plan_for(a100_like(), 1, cols, 2, 8, 0);
    CHECK(a.cluster == 1);
    CHECK(a.valid);
  }
}

/// A few-rows shape and the plan's expected cluster (the spread rules below).
struct spread_expect {
  int64_t rows, cols;
  int elem_bytes;
  bool staged_op;
  weights_desc w;
  int cluster;
};

TEST_CASE("plan_rows: few 16-bit rows split down to 512 packs per CTA where policy.hpp's narrow_few_rows_split says so",
          "[host][plan]") {
  const dsp::device_limits h200 = h200_like();
  const weights_desc ln16{2, 2}, rms16{1, 2}, ln32{2, 4};
  struct expect {
    int64_t rows;
    int64_t cols;
    int elem_bytes;
    bool staged_op;
    weights_desc w;
    int row_inputs;
    int cluster;
    int block;
  };
  // Taken: segments of 512-1023 16-byte packs of 16-bit rows, the clusters on at most 66 SMs.
  const expect taken[] = {{1, 8192, 2, true, {}, 1, 2, 128},       {1, 16384, 2, true, {}, 1, 4, 128},
                          {1, 65536, 2, true, {}, 1, 16, 128},     {16, 16384, 2, true, {}, 1, 4, 128},
                          {33, 8192, 2, true, {}, 1, 2, 128},      {1, 8192, 2, true, rms16, 1, 2, 128},
                          {1, 8192, 2, true, rms16, 2, 2, 128},    {1, 12288, 2, false, ln16, 1, 2, 192},
                          {1, 16384, 2, false, ln16, 1, 4, 128},   {4, 12000, 2, true, {}, 1, 2, 192}};
  // Not: clusters past half the SMs (34 / 64 x 8192, 16 x 32768 stays at 4), layer_norm rows one
  // staged CTA of 256 threads holds, fp32 rows (1024 packs), one-element packs.
  const expect kept[] = {{34, 8192, 2, true, {}, 1, 1, 256},       {64, 8192, 2, true, rms16, 1, 1, 256},
                         {16, 32768, 2, true, {}, 1, 4, 256},      {1, 8192, 2, false, ln16, 1, 1, 256},
                         {16, 8192, 2, false, ln16, 1, 1, 256},    {1, 4096, 4, true, {}, 1, 1, 128},
                         {1, 4096, 4, false, ln32, 1, 1, 128},     {1, 8192, 4, true, {}, 1, 2, 128}};
  const auto check = [&h200](const expect& e) {
    const int n = 16 / e.elem_bytes;
    const dsp::problem p = plan_problem(e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, e.w, e.row_inputs);
    const dsp::plan pl = dsp::plan_rows(p, h200);
    INFO(e.rows << " x " << e.cols << ", elem_bytes " << e.elem_bytes << ", weights " << e.w.count << ", inputs "
                << e.row_inputs << ": kind " << static_cast<int>(pl.kind) << ", cluster " << pl.cluster << ", block "
                << pl.block);
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.cluster == e.cluster);
    CHECK(pl.block == e.block);
    CHECK(dsp::spread_cluster(p, dsp::row_packs_for(e.cols, n, 0), h200) == e.cluster);
    CHECK(plan_error(p, pl, h200).empty());
  };
  for (const expect& e : taken) check(e);
  for (const expect& e : kept) check(e);
  const dsp::problem one_elem = plan_problem(1, 4096, 2, 1, 0, true, {}, 1);
  CHECK(dsp::spread_cluster(one_elem, 4096, h200) == 4);  // 1024 one-element packs per CTA, as before
  // Every width at the row counts the rule reaches stays a valid plan.
  for (int64_t rows : {1, 16, 33})
    for (const weights_desc& w : {weights_desc{}, ln16, rms16}) {
      sweep_result r;
      sweep(h200, rows, 2, 8, 0, 140000, r, w.count != 2, 1, w);
      INFO("rows " << rows << ", weights " << w.count << ": " << r.plans << " plans; " << r.first);
      CHECK(r.failures == 0);
    }
}

TEST_CASE("plan_rows: few rows whose spread segments no registers config holds go over twice the cluster in "
          "registers where policy.hpp's few_rows_doubling says so",
          "[host][plan]") {
  const dsp::device_limits h200 = h200_like();
  const weights_desc ln32{2, 4}, rms16{1, 2};
  // The spread cluster's segment is too long for registers; the doubled one is held there.
  const spread_expect taken[] = {{16, 131072, 4, true, {}, 16},   {32, 65536, 2, true, {}, 8}, {32, 32000, 2, true, {}, 4},
                          {32, 65536, 4, false, ln32, 8},  {16, 131072, 2, true, rms16, 16}};
  for (const spread_expect& e : taken) {
    const int n = 16 / e.elem_bytes;
    const int64_t packs = e.cols / n;
    const int spread = dsp::spread_cluster(plan_problem(e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, e.w, 1), packs, h200);
    const dsp::plan pl = plan_for(h200, e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, false, e.w);
    INFO(e.rows << " x " << e.cols << ", elem_bytes " << e.elem_bytes << ": spread " << spread << ", kind "
                << static_cast<int>(pl.kind) << ", cluster " << pl.cluster);
    CHECK(dsp::first_registers_config(dsp::ceil_div(packs, spread), n, 64) < 0);
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.cluster == 2 * spread);
    CHECK(pl.cluster == e.cluster);
    CHECK(plan_error(plan_problem(e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, e.w, 1), pl, h200).empty());
  }
  // Not: a spread of 2 whose doubled clusters put two CTAs on an SM (64 x 32000, 48 x 40000:
  // few_rows_block or the cache), residual-fusing ops, one-element packs, devices without clusters.
  CHECK(plan_for(h200, 64, 32000, 2, 8, 0, true).cluster == 2);
  CHECK(plan_for(h200, 64, 32000, 4, 4, 0, false, false, ln32).cluster == 2);
  CHECK(plan_for(h200, 48, 40000, 4, 4, 0, true).kind == dsp::strategy::cached);
  CHECK(plan_for(h200, 48, 40000, 2, 8, 0, true, false, rms16).kind == dsp::strategy::staged);
  const dsp::plan fused = fused_plan_for(h200, 16, 131072, 2);
  CHECK_FALSE((fused.kind == dsp::strategy::registers && fused.cluster == 16));
  const dsp::plan one_elem = plan_for(h200, 16, 131072, 4, 1, 0, true);
  CHECK_FALSE((one_elem.kind == dsp::strategy::registers && one_elem.cluster == 16));
  CHECK(plan_for(a100_like(), 16, 131072, 4, 4, 0, true).cluster == 1);
  // Every width at the row counts the rule reaches stays a valid plan.
  for (int64_t rows : {16, 24, 32})
    for (int elem_bytes : {4, 2})
      for (const weights_desc& w : {weights_desc{}, weights_desc{2, elem_bytes}, weights_desc{1, elem_bytes}}) {
        sweep_result r;
        sweep(h200, rows, elem_bytes, 16 / elem_bytes, 0, 300000, r, w.count != 2, 1, w);
        INFO("rows " << rows << ", elem_bytes " << elem_bytes << ", weights " << w.count << ": " << r.plans
                     << " plans; " << r.first);
        CHECK(r.failures == 0);
      }
}

TEST_CASE("plan_rows: few rows whose spread segments need 512 threads of 32 values take them where policy.hpp's "
          "few_rows_block says so",
          "[host][plan]") {
  const dsp::device_limits h200 = h200_like();
  const weights_desc ln32{2, 4}, ln16{2, 2}, rms16{1, 2}, rms32{1, 4};
  // Segments of 12289-16384 values at the spread cluster, which doubling does not take (a spread
  // of 2 with two CTAs per SM after it, or 16 already).
  const spread_expect taken[] = {{64, 32000, 4, true, {}, 2},     {64, 32000, 2, true, {}, 2},
                          {64, 30000, 4, false, ln32, 2},  {64, 32000, 4, true, rms32, 2},
                          {1, 262144, 4, true, {}, 16},    {8, 262144, 2, true, {}, 16},
                          {8, 262144, 4, false, ln32, 16}, {1, 262144, 2, true, rms16, 16},
                          {8, 262144 - 8, 2, false, ln16, 16}, {2, 200000, 4, true, {}, 16}};
  for (const spread_expect& e : taken) {
    const int n = 16 / e.elem_bytes;
    const int64_t packs = (e.cols + n - 1) / n;
    const dsp::plan pl = plan_for(h200, e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, false, e.w);
    INFO(e.rows << " x " << e.cols << ", elem_bytes " << e.elem_bytes << ": kind " << static_cast<int>(pl.kind)
                << ", config " << pl.config << ", cluster " << pl.cluster);
    CHECK(dsp::spread_cluster(plan_problem(e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, e.w, 1), packs, h200) == e.cluster);
    CHECK(dsp::first_registers_config(dsp::ceil_div(packs, e.cluster), n, 64) < 0);
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.config == dsp::few_rows_block_config);
    CHECK(pl.block == 512);
    CHECK(pl.cluster == e.cluster);
    CHECK(plan_error(plan_problem(e.rows, e.cols, e.elem_bytes, n, 0, e.staged_op, e.w, 1), pl, h200).empty());
  }
  // Not: where doubling takes the rows (32 x 65536, 16 x 131072), segments past 16384 values (48 x
  // 40000, 1 x 262148), residual-fusing ops, one-element packs, devices without clusters.
  const auto not_block = [](const dsp::plan& pl) { return pl.config != dsp::few_rows_block_config || pl.kind != dsp::strategy::registers; };
  CHECK(plan_for(h200, 32, 65536, 4, 4, 0, true).cluster == 8);
  CHECK(not_block(plan_for(h200, 32, 65536, 4, 4, 0, true)));
  CHECK(not_block(plan_for(h200, 16, 131072, 2, 8, 0, true)));
  CHECK(not_block(plan_for(h200, 48, 40000, 4, 4, 0, true)));
  CHECK(not_block(plan_for(h200, 1, 262148, 4, 4, 0, true)));
  CHECK(not_block(fused_plan_for(h200, 64, 32000, 4)));
  CHECK(not_block(fused_plan_for(h200, 1, 262144, 2)));
  CHECK(not_block(plan_for(h200, 64, 32000, 4, 1, 0, true)));
  CHECK(not_block(plan_for(a100_like(), 64, 32000, 4, 4, 0, true)));
  // Every width at the row counts the rule reaches stays a valid plan.
  for (int64_t rows : {1, 8, 48, 64})
    for (int elem_bytes : {4, 2})
      for (const weights_desc& w : {weights_desc{}, weights_desc{2, elem_bytes}, weights_desc{1, elem_bytes}}) {
        sweep_result r;
        sweep(h200, rows, elem_bytes, 16 / elem_bytes, 0, 300000, r, w.count != 2, 1, w);
        INFO(rows << " rows, elem_bytes " << elem_bytes << ", weights " << w.count << ": " << r.first);
        CHECK(r.failures == 0);
      }
}

TEST_CASE("plan_rows: the registers configs cover every width up to their capacity (smallest first)",
          "[host][plan]") {
  // Rows of many rows (no cluster split) and a known head: the config chosen is the first one of
  // the table whose capacity G * K(N) packs holds the row, and the table is ordered by capacity.
  for (int n : {1, 4, 8}) {
    int64_t last_capacity = 0;
    for (int i = 0; i < dsp::narrow_registers_config_count; ++i) {
      const int64_t cap = static_cast<int64_t>(dsp::registers_configs[i].g) * dsp::registers_k(i, n);
      INFO("config " << i << ", pack " << n);
      CHECK(dsp::registers_configs[i].values == 32);
      CHECK(cap >= last_capacity);
      CHECK(dsp::registers_k(i, n) * n <= 64);
      CHECK(dsp::registers_configs[i].block % dsp::registers_configs[i].g == 0);
      last_capacity = cap;
    }
    for (int64_t cols = 1; cols <= last_capacity * n; ++cols) {
      const dsp::plan pl = plan_for(h200_like(), 100000, cols, n == 8 ? 2 : 4, n, 0);
      const int64_t packs = (cols + n - 1) / n;
      if (pl.kind != dsp::strategy::registers) {
        INFO("pack " << n << ", cols " << cols << " (" << packs << " packs): not in registers");
        CHECK(pl.kind == dsp::strategy::registers);
        break;
      }
      if (pl.config >= dsp::narrow_registers_config_count) {
        // A wide config (wide_rows_rules) holds exactly this row; the plan checks say the rest.
        CHECK(static_cast<int64_t>(pl.threads_per_row) * pl.packs_per_thread == packs);
        continue;
      }
      for (int i = 0; i < pl.config; ++i) {
        const int64_t cap = static_cast<int64_t>(dsp::registers_configs[i].g) * dsp::registers_k(i, n);
        if (cap >= packs) {
          INFO("pack " << n << ", cols " << cols << ": config " << pl.config << " chosen though config " << i
                       << " holds " << cap << " packs");
          CHECK(cap < packs);
          break;
        }
      }
    }
  }
}

TEST_CASE("plan helpers: ceil_div and pow2_floor", "[host][plan]") {
  CHECK(dsp::ceil_div(0, 4) == 0);
  CHECK(dsp::ceil_div(1, 4) == 1);
  CHECK(dsp::ceil_div(8, 4) == 2);
  CHECK(dsp::ceil_div(9, 4) == 3);
  CHECK(dsp::ceil_div((int64_t{1} << 40) + 1, 2) == (int64_t{1} << 39) + 1);
  CHECK(dsp::pow2_floor(1) == 1);
  CHECK(dsp::pow2_floor(2) == 2);
  CHECK(dsp::pow2_floor(3) == 2);
  CHECK(dsp::pow2_floor(132) == 128);
  CHECK(dsp::pow2_floor(1023) == 512);
}

TEST_CASE("policy: the register budgets let two CTAs of every registers config share an SM", "[host][plan]") {
  // dispatch/policy.hpp: a CTA that owns whole rows has nothing in flight during its reduction
  // barrier, so the budgets are chosen for at least two resident CTAs (65536 registers per SM on
  // sm_80 / sm_90). Residual-fusing ops are the documented exception (128 registers), and the
  // few-rows config (policy.hpp few_rows_block: one CTA per SM by the plan's spread), checked below.
  constexpr int registers_per_sm = 65536;
  for (int i = 0; i < dsp::registers_config_count; ++i) {
    if (i == dsp::few_rows_block_config) continue;
    const int block = dsp::registers_configs[i].block;
    const int g = dsp::registers_configs[i].g;
    for (bool with_params : {false, true})
      for (int elem_bytes : {2, 4}) {
        const int values = dsp::registers_k(i, 16 / elem_bytes) * (16 / elem_bytes);
        INFO("config " << i << " (block " << block << ", " << values << " values), with_params " << with_params
                       << ", elem_bytes " << elem_bytes);
        CHECK(2 * block * dsp::max_registers(false, with_params, elem_bytes, values, block, g) <= registers_per_sm);
        // A block's raised budget keeps its kind's CTAs per SM, never fewer (and never less
        // than the kind's budget).
        for (bool fuses : {false, true}) {
          const int base = dsp::max_registers(fuses, with_params, elem_bytes, values, block, g);
          const int raised = dsp::row_kernel_registers_for(fuses, with_params, elem_bytes, block, values, g);
          CHECK(raised >= base);
          CHECK(raised % 8 == 0);
          CHECK(dsp::ctas_by_registers(raised, block) == dsp::ctas_by_registers(base, block));
          // The kernels' prefetch distance and the plan count CTAs alike (ctas_per_sm); at these
          // budgets the register file binds before the SM's thread slots, at every cap.
          for (bool wrap : {false, true}) {
            const int cap = dsp::row_kernel_register_cap(raised, fuses, elem_bytes, values, wrap);
            CHECK(dsp::ctas_per_sm(cap, block) == dsp::ctas_by_registers(cap, block));
          }
        }
      }
  }
  CHECK(dsp::max_registers(true, true, 2) >= dsp::max_registers(false, true, 2));
  // The few-rows config: at least one CTA of 512 threads per SM at the raised budget (128
  // registers for fp32 rows, 64 for 16-bit ones: two CTAs), every kind it serves.
  {
    const int i = dsp::few_rows_block_config;
    CHECK(dsp::registers_configs[i].block == 512);
    for (bool with_params : {false, true})
      for (int elem_bytes : {2, 4}) {
        const int values = dsp::registers_k(i, 16 / elem_bytes) * (16 / elem_bytes);
        CHECK(values == 32);
        const int regs = dsp::row_kernel_registers_for(false, with_params, elem_bytes, 512, values, 512);
        INFO("with_params " << with_params << ", elem_bytes " << elem_bytes << ": " << regs << " registers");
        CHECK(dsp::ctas_by_registers(regs, 512) >= 1);
        CHECK(regs >= dsp::max_registers(false, with_params, elem_bytes, values, 512, 512));
      }
    CHECK(dsp::row_kernel_registers_for(false, false, 4, 512, 32, 512) == 128);
    CHECK(dsp::row_kernel_registers_for(false, true, 2, 512, 32, 512) == 64);
  }
  // The occupancy calculator's allocation (per warp, per sub-partition): 384 threads hold two
  // CTAs at 64 and at 80 registers, one at 88; 352 threads two at 80 but one at 88 (11 warps).
  CHECK(dsp::ctas_by_registers(64, 384) == 2);
  CHECK(dsp::ctas_by_registers(80, 384) == 2);
  CHECK(dsp::ctas_by_registers(88, 384) == 1);
  CHECK(dsp::ctas_by_registers(80, 352) == 2);
  CHECK(dsp::ctas_by_registers(88, 352) == 1);
  CHECK(dsp::ctas_by_registers(64, 128) == 8);
  // Below 32 registers the thread slots bind: 64 threads at 24 registers, 42 CTAs by registers,
  // 32 by threads.
  CHECK(dsp::ctas_by_registers(24, 64) == 42);
  CHECK(dsp::ctas_per_sm(24, 64) == 32);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 384, 32, 384) == 80);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 128, 32, 128) == 64);
  // Wide rows: 96 registers (five CTAs of 128 threads holding four rows of 32 threads each),
  // raised to 128 where that keeps the CTAs (256 threads: two either way); one row per CTA of
  // 64-128 threads: 128 (eight CTAs of 64 threads instead of ten, so that they prefetch).
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 128, 64, 32) == 96);
  CHECK(dsp::ctas_by_registers(96, 128) == 5);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 64, 64, 64) == 128);
  CHECK(dsp::ctas_by_registers(128, 64) == 8);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 128, 64, 128) == 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 160, 64, 160) == 96);
  CHECK(dsp::row_kernel_registers_for(false, false, 2, 192, 64, 192) == 96);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 256, 64, 256) == 128);
  // Staged instances of fp32 ops of two weight vectors (layer_norm), 32 values in CTAs of 128
  // threads that hold one row (segment): 96 registers, five CTAs; otherwise 80 (six).
  CHECK(dsp::row_kernel_registers_for(false, true, 4, 128, 32, 128, true) == 96);
  CHECK(dsp::ctas_by_registers(96, 128) == 5);
  CHECK(dsp::row_kernel_registers_for(false, true, 4, 128, 32, 128, false) == 80);
  CHECK(dsp::row_kernel_registers_for(false, true, 4, 256, 32, 256, true) == 80);
  // Staged 16-bit layer_norm rows of 32 values, one per CTA of at most 256 threads: 128 registers
  // (no spills; 64-96 threads: 8 / 5 CTAs, 128 threads: 4, 256: 2); wider CTAs keep their budget.
  // Many-row grids of these rows do not stage (checked in "plan_rows: weights are staged ...").
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 128, 32, 128, true) == 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 64, 32, 64, true) == 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 160, 32, 160, true) == 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 256, 32, 256, true) == 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 288, 32, 288, true) < 128);
  CHECK(dsp::row_kernel_registers_for(false, true, 2, 128, 32, 128, false) == 64);
}

TEST_CASE("write_back_params_ahead: the next pack's weights are read ahead for fp32 rows and weights, where "
          "the register budget keeps room for them",
          "[host][plan]") {
  // The instances it was calibrated on (ptxas -v, sm_90, bench/NOTES.md 51-52), at the budgets the
  // registers kernel gives them.
  const int fp32_80 = dsp::row_kernel_registers_for(false, true, 4, 128, 32, 128);
  CHECK(fp32_80 == 80);
  CHECK(dsp::write_back_params_ahead(2, 4, 4, 4, 32, fp32_80));  // layer_norm fp32: no spill, gained
  CHECK(dsp::write_back_params_ahead(1, 4, 4, 4, 32, fp32_80));  // rms_norm fp32
  // 16-bit rows keep the old order (NOTES 52: 4-7 points lost at one-row-per-CTA offset shapes),
  // with 16-bit weights at any budget and with fp32 weights (not measured).
  const int ln_bf16_64 = dsp::row_kernel_registers_for(false, true, 2, 128, 32, 128);
  CHECK(ln_bf16_64 == 64);
  CHECK_FALSE(dsp::write_back_params_ahead(1, 2, 2, 8, 32, ln_bf16_64));
  CHECK_FALSE(dsp::write_back_params_ahead(2, 2, 2, 8, 64, dsp::row_kernel_registers_for(false, true, 2, 64, 64, 64)));
  CHECK_FALSE(dsp::write_back_params_ahead(1, 4, 2, 8, 32, 128));
  // No weights, nothing to read ahead; a budget without room for them never.
  CHECK_FALSE(dsp::write_back_params_ahead(0, 4, 4, 4, 32, 128));
  CHECK_FALSE(dsp::write_back_params_ahead(1, 4, 4, 4, 64, 64));
  CHECK_FALSE(dsp::write_back_params_ahead(2, 4, 4, 4, 32, 32 + 24 + 15));  // 8 words need 16
  CHECK(dsp::write_back_params_ahead(2, 4, 4, 4, 32, 32 + 24 + 16));
}

TEST_CASE("prefetch_next_row: only kernels with at most 64 KiB of row loads in flight per SM and rows of 1.5 KiB",
          "[host][plan]") {
  // The measured split (bench/NOTES.md 28): 16-bit rows of 64 values per thread, 256 threads at 128
  // registers (two CTAs, 64 KiB) gained, and 128 threads of 32 values at 64 registers (eight CTAs,
  // 64 KiB); fp32 rows of 32 values at 80 registers (three CTAs of 256 or six of 128: 96 KiB) and
  // 16-bit rows of 64 values in CTAs of 192 threads (three per SM: 72 KiB) lost.
  const auto pf = [](bool fuses, bool params, int elem_bytes, int block, int values, int group) {
    const int regs = dsp::row_kernel_registers_for(fuses, params, elem_bytes, block, values, group);
    return dsp::prefetch_next_row(regs, block, values * elem_bytes * (fuses ? 2 : 1), group * values * elem_bytes);
  };
  CHECK(pf(false, true, 2, 256, 64, 256));   // layer_norm bf16 16384 / 65536 (per CTA segment)
  CHECK(pf(false, false, 2, 128, 32, 32));   // softmax bf16 1024, four rows per CTA
  CHECK(pf(true, true, 2, 256, 32, 256));    // fused_add_rms_norm bf16 8192
  CHECK_FALSE(pf(false, true, 4, 256, 32, 256));  // fp32 rows, three CTAs: 96 KiB
  CHECK_FALSE(pf(false, true, 4, 384, 32, 384));  // fp32 12288, two CTAs of 384: 96 KiB
  CHECK_FALSE(pf(false, false, 2, 192, 64, 192)); // softmax bf16 12288, three CTAs: 72 KiB
  CHECK_FALSE(pf(false, true, 2, 128, 64, 32));   // layer_norm bf16 2048, five CTAs: 80 KiB
  // Wide one-row CTAs of 64-128 threads at their 128 registers (policy.hpp; NOTES session 14 g).
  CHECK(pf(false, true, 2, 64, 64, 64));          // layer_norm bf16 4096, eight CTAs: 64 KiB
  CHECK(pf(false, true, 2, 96, 64, 96));          // layer_norm bf16 6144, five CTAs: 60 KiB
  CHECK(pf(false, true, 2, 128, 64, 128));        // layer_norm bf16 8192, four CTAs: 64 KiB
  CHECK_FALSE(pf(false, false, 2, 160, 64, 160)); // softmax bf16 10240 at 96: four CTAs, 80 KiB
  CHECK_FALSE(pf(false, false, 2, 128, 32, 16));  // softmax bf16 512: 1 KiB rows, not measured
}

TEST_CASE("plan_rows: many 16-bit rows that fill a wide config exactly are held 64 values per thread where a "
          "rule says so",
          "[host][plan]") {
  // policy.hpp wide_rows_rules: layer_norm at any width, softmax / rms_norm past 256 threads of
  // 32 values; rows of 2048 * G / 32 columns (G <= 256), more rows than one wave of the CTAs.
  const dsp::device_limits h200 = h200_like();
  const auto plan = [&](int64_t rows, int64_t cols, bool staged_op, bool column_params, int head = 0, int n = 8) {
    return plan_for(h200, rows, cols, 2, n, head, staged_op, column_params);
  };
  const auto wide = [](const dsp::plan& pl) {
    return pl.kind == dsp::strategy::registers && dsp::is_wide_config(pl.config);
  };
  // (staged_op, column_params): layer_norm (false, true), rms_norm (true, true), softmax (true, false)
  for (int64_t cols = 2048; cols <= 16384; cols += 2048) {
    INFO("cols " << cols);
    const dsp::plan ln = plan(100000, cols, false, true);
    CHECK(wide(ln));
    CHECK(ln.threads_per_row == cols / 64);
    CHECK(ln.packs_per_thread == 8);
    CHECK(ln.cluster == 1);
    CHECK(ln.dynamic_smem == 0);
    CHECK(ln.rows_per_step == ln.block / ln.threads_per_row);
    // softmax / rms_norm: only where 32 values would take more than 256 threads
    CHECK(wide(plan(100000, cols, true, true)) == (cols > 8192));
    CHECK(wide(plan(100000, cols, true, false)) == (cols > 8192));
    // Rows one element past a 16-byte boundary wrap (thread_packs.cuh) and take the aligned plan.
    const dsp::plan ln1 = plan(100000, cols, false, true, 1);
    CHECK(wide(ln1));
    CHECK(ln1.threads_per_row == ln.threads_per_row);
    CHECK(ln1.block == ln.block);
    // Not: one-element packs, fp32, fused_add_rms_norm, rows that do not fill it.
    CHECK_FALSE(wide(plan(100000, cols, false, true, 0, 1)));
    // fp32 layer_norm: only 16384 with both weights (256 threads x 16 packs of 4; no 32-value
    // CTA holds it), below.
    CHECK_FALSE(wide(plan_for(h200, 100000, cols, 4, 4, 0, false, true)));
    CHECK_FALSE(wide(plan_for(h200, 100000, cols, 4, 4, 0, true, true)));   // fp32 rms_norm
    CHECK_FALSE(wide(plan_for(h200, 100000, cols, 4, 4, 0, true, false)));  // fp32 softmax
    CHECK_FALSE(wide(plan(100000, cols + 8, false, true)));
    CHECK_FALSE(wide(plan(100000, cols - 8, false, true)));
    // fused_add_rms_norm, 16-bit: as rms_norm, where 32 values would take more than 256 threads.
    CHECK(wide(fused_plan_for(h200, 100000, cols, 2)) == (cols > 8192));
    CHECK_FALSE(wide(fused_plan_for(h200, 100000, cols, 4)));
  }
  // 5-7 packs per thread on 32, 64 or 128 threads (layer_norm only: softmax / rms_norm there take
  // at most 224 threads of 32 values).
  for (int g : {32, 64, 128})
    for (int k : {5, 6, 7}) {
      const int64_t cols = int64_t{g} * k * 8;
      INFO("cols " << cols);
      const dsp::plan ln = plan(100000, cols, false, true);
      CHECK(wide(ln));
      CHECK(ln.threads_per_row * ln.packs_per_thread * 8 == cols);
      CHECK(ln.dynamic_smem == 0);
      CHECK_FALSE(wide(plan(100000, cols, true, true)));
      CHECK_FALSE(wide(plan(100000, cols, true, false)));
    }
  // fp32 layer_norm of 16384 columns: one CTA of 256 threads x 16 packs of 4, no column stage, at
  // 128 registers (two CTAs per SM); only with more rows than one wave of them (264 on the H200),
  // aligned rows.
  {
    const auto ln32 = [&](int64_t rows, int64_t cols, int head = 0, int n = 4) {
      return plan_for(h200, rows, cols, 4, n, head, false, true, {2, 4});
    };
    const dsp::plan pl = ln32(2048, 16384);
    CHECK(wide(pl));
    CHECK(pl.threads_per_row == 256);
    CHECK(pl.block == 256);
    CHECK(pl.packs_per_thread == 16);
    CHECK(pl.cluster == 1);
    CHECK(pl.dynamic_smem == 0);
    CHECK(dsp::row_kernel_registers_for(false, true, 4, 256, 64, 256) == 128);
    CHECK(wide(ln32(265, 16384)));
    CHECK_FALSE(wide(ln32(264, 16384)));      // one wave: the few-rows plans
    CHECK(wide(ln32(2048, 16384, 1)));        // a head pack: the last pack wraps onto it
    CHECK(ln32(2048, 16384, 1).wrapped_rows);
    CHECK_FALSE(wide(ln32(2048, 16384 + 1, 1)));
    CHECK_FALSE(wide(ln32(2048, 16384, 0, 1)));
    CHECK_FALSE(wide(ln32(2048, 16384 + 4)));
    CHECK_FALSE(wide(ln32(2048, 16384 - 4)));
    CHECK_FALSE(wide(ln32(2048, 12288)));     // 384 x 32 values
    CHECK_FALSE(wide(ln32(2048, 32768)));     // over a cluster
  }
  CHECK(plan(100000, 5120, false, true).threads_per_row == 128);  // 128 x 5, not 96 x 8 partly
  // 6 packs on 96 / 192 threads: 4608 (layer_norm only) and 9216 (also softmax / rms_norm: 32
  // values would take 288 threads).
  CHECK(wide(plan(100000, 4608, false, true)));
  CHECK(plan(100000, 4608, false, true).threads_per_row == 96);
  CHECK_FALSE(wide(plan(100000, 4608, true, true)));
  for (bool staged_op : {false, true})
    for (bool column_params : {false, true}) {
      if (!staged_op && !column_params) continue;
      const dsp::plan pl = plan(100000, 9216, staged_op, column_params);
      CHECK(wide(pl));
      CHECK(pl.threads_per_row == 192);
      CHECK(pl.packs_per_thread == 6);
    }
  CHECK_FALSE(wide(plan(100000, 5120 + 8, false, true)));
  // Rows past one wide CTA: layer_norm and rms_norm over the smallest cluster (<= 8) whose
  // segments fill a wide config of >= 128 threads x 8 packs; not softmax, not partly filled.
  struct split {
    int64_t cols;
    int cluster;
    int g;
  };
  for (const split sp : {split{20480, 2, 160}, split{24576, 2, 192}, split{32768, 2, 256}, split{40960, 4, 160},
                         split{65536, 4, 256}, split{131072, 8, 256}}) {
    INFO("cols " << sp.cols);
    for (bool rms : {false, true}) {
      const dsp::plan pl = plan(100000, sp.cols, rms, true);
      CHECK(wide(pl));
      CHECK(pl.cluster == sp.cluster);
      CHECK(pl.threads_per_row == sp.g);
      CHECK(pl.packs_per_thread == 8);
      CHECK(pl.persistent);
    }
    CHECK_FALSE(wide(plan(100000, sp.cols, true, false)));
    CHECK_FALSE(wide(plan(100000, sp.cols + 8, false, true)));
    CHECK_FALSE(wide(plan_for(a100_like(), 100000, sp.cols, 2, 8, 0, false, true)));  // no clusters
  }
  CHECK_FALSE(wide(plan(100000, 18432, false, true)));   // 2304 packs: no cluster of 128-256 x 8 fits
  CHECK_FALSE(wide(plan(100000, 262144, false, true)));  // past 8 x 256 threads
  // A wide cluster needs more rows than one wave of its CTAs too (65536: 4 x 256 threads, two
  // CTAs per SM).
  CHECK_FALSE(wide(plan(2 * h200.sm_count / 4, 65536, false, true)));
  CHECK(wide(plan(2 * h200.sm_count / 4 + 1, 65536, false, true)));
  // More rows than one wave: 4096 columns, one row per CTA of 64 threads at 128 registers, eight
  // CTAs per SM (policy.hpp: wide_16bit_one_row).
  const int64_t wave = int64_t{8} * h200.sm_count;
  CHECK_FALSE(wide(plan(wave, 4096, false, true)));
  CHECK(wide(plan(wave + 1, 4096, false, true)));
  // 2048 columns: warps of 128-thread blocks (4 rows per CTA, five CTAs per SM).
  CHECK_FALSE(wide(plan(int64_t{5} * 4 * h200.sm_count, 2048, false, true)));
  CHECK(wide(plan(int64_t{5} * 4 * h200.sm_count + 1, 2048, false, true)));
  // The small shapes stay at 32 values (each row's latency decides there).
  for (int64_t rows : {1, 16, 128}) CHECK_FALSE(wide(plan(rows, 4096, false, true)));
}

TEST_CASE("limits_for_code: kernels compiled for an older target than the device are planned without what "
          "that target lacks (no clusters, no staged kernel)",
          "[host][plan]") {
  const dsp::device_limits h200 = h200_like();
  const auto same = [](const dsp::device_limits& a, const dsp::device_limits& b) {
    return a.device == b.device && a.sm_count == b.sm_count && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor &&
           a.max_smem_optin == b.max_smem_optin && a.smem_per_sm == b.smem_per_sm && a.regs_per_sm == b.regs_per_sm &&
           a.clusters == b.clusters;
  };
  // Code of the device's own target (or an unknown one): the device's limits.
  CHECK(same(dsp::limits_for_code(h200, 90), h200));
  CHECK(same(dsp::limits_for_code(h200, 0), h200));
  CHECK(same(dsp::limits_for_code(a100_like(), 80), a100_like()));
  // sm_80 code on the sm_90 device: its capability, no clusters; the rest is the device's.
  const dsp::device_limits jit = dsp::limits_for_code(h200, 80);
  CHECK(jit.cc_major == 8);
  CHECK(jit.cc_minor == 0);
  CHECK_FALSE(jit.clusters);
  CHECK(jit.sm_count == h200.sm_count);
  CHECK(jit.max_smem_optin == h200.max_smem_optin);
  CHECK(jit.smem_per_sm == h200.smem_per_sm);
  CHECK(jit.regs_per_sm == h200.regs_per_sm);
  const dsp::device_limits sm86 = dsp::limits_for_code(h200, 86);
  CHECK((sm86.cc_major == 8 && sm86.cc_minor == 6 && !sm86.clusters));

  // Shapes the device's plan splits over clusters or stages (so that this can fail) get neither
  // for sm_80 code: one CTA per row (or rows per CTA), the chunked kernels for long rows.
  struct shape {
    int64_t rows, cols;
    int elem_bytes;
    bool staged_op;
    weights_desc w;
  };
  const shape shapes[] = {
      {1, 8192, 4, true, {}},               // softmax fp32: a cluster of 2
      {1, 152064, 2, true, {}},             // softmax bf16: 16 CTAs
      {8, 152064, 4, true, {}},
      {4096, 262144, 4, true, {}},          // many long rows: staged over 16 CTAs
      {1, 32768, 2, false, {2, 4}},         // layer_norm bf16, fp32 weights
      {2, 65536, 4, false, {2, 4}},         // layer_norm fp32: 16 CTAs
      {100000, 65536, 2, true, {1, 2}},     // rms_norm bf16: clusters of 4
  };
  for (const shape& sh : shapes) {
    const int n = 16 / sh.elem_bytes;
    INFO(sh.rows << " x " << sh.cols << ", " << sh.elem_bytes << "-byte elements, weights " << sh.w.count);
    const dsp::plan native = plan_for(h200, sh.rows, sh.cols, sh.elem_bytes, n, 0, sh.staged_op, false, sh.w);
    CHECK((native.cluster > 1 || native.kind == dsp::strategy::staged));
    CHECK(dsp::plan_needs_sm90_code(native));
    const dsp::problem p = plan_problem(sh.rows, sh.cols, sh.elem_bytes, n, 0, sh.staged_op, sh.w, 1);
    const dsp::plan older = dsp::plan_rows(p, jit);
    INFO(plan_error(p, older, jit));
    CHECK(plan_error(p, older, jit).empty());
    CHECK(older.cluster == 1);
    CHECK(older.kind != dsp::strategy::staged);
    CHECK_FALSE(dsp::plan_needs_sm90_code(older));
  }
  // What the launcher asks of a kernel's own target (launch.cuh: a plan needing sm_90 code is
  // refused for an older kernel; programmatic dependent launch only for sm_90 code).
  CHECK(dsp::code_runs_sm90(h200, 90));
  CHECK(dsp::code_runs_sm90(h200, 100));
  CHECK(dsp::code_runs_sm90(h200, 0));  // unknown: the device's
  CHECK_FALSE(dsp::code_runs_sm90(h200, 80));
  CHECK_FALSE(dsp::code_runs_sm90(h200, 86));
  CHECK_FALSE(dsp::code_runs_sm90(a100_like(), 0));
  CHECK_FALSE(dsp::code_runs_sm90(a100_like(), 80));
  CHECK_FALSE(dsp::code_runs_sm90(jit, 90));  // limits already lowered to sm_80 code stay lowered
}

TEST_CASE("cluster caps: a device's max_cluster bounds every plan, and a learned cap only ever falls", "[host][plan]") {
  CHECK(dsp::cluster_limit(h200_like(), 16) == 16);
  CHECK(dsp::cluster_limit(h200_capped(8), 16) == 8);
  CHECK(dsp::cluster_limit(h200_capped(8), 4) == 4);
  CHECK(dsp::cluster_limit(a100_like(), 16) == 1);
  CHECK(dsp::limits_for_code(h200_like(), 80).max_cluster == 1);
  // Shapes the H200's plan splits over 16 CTAs: capped devices get at most their cap.
  for (int cap : {8, 4, 2, 1}) {
    const dsp::plan one_row = plan_for(h200_capped(cap), 1, 1 << 20, 4, 4, 0, true, false, {}, 1);
    INFO("cap " << cap << ": " << one_row.cluster);
    CHECK(one_row.valid);
    CHECK(one_row.cluster <= cap);
  }
  CHECK(plan_for(h200_like(), 1, 1 << 20, 4, 4, 0, true, false, {}, 1).cluster == 16);
  // The learned cap (run_rows: cluster_cap / lower_cluster_cap), on an ordinal no other test uses.
  const int device = 47;
  CHECK(dsp::cluster_cap(device) == 16);
  dsp::lower_cluster_cap(device, 8);
  CHECK(dsp::cluster_cap(device) == 8);
  dsp::lower_cluster_cap(device, 16);  // never raised
  CHECK(dsp::cluster_cap(device) == 8);
  dsp::lower_cluster_cap(device, 2);
  CHECK(dsp::cluster_cap(device) == 2);
  dsp::lower_cluster_cap(1000, 4);  // past the table: not remembered
  CHECK(dsp::cluster_cap(1000) == 16);
}

TEST_CASE("launch_with_cluster_fallback: a cluster the device cannot hold is planned again under half of it, "
          "remembered; ordinals past the table still end",
          "[host][plan]") {
  // A stand-in device whose GPCs hold clusters of at most 4 CTAs: the 'launch' refuses larger ones
  // as prepare_launch does (cudaErrorInvalidClusterSize), and records what it was given.
  for (int device : {46, 1000}) {  // 46: remembered; 1000: past cluster_cap's table
    INFO("device ordinal " << device);
    dsp::device_limits dev = h200_like();
    dev.device = device;
    std::vector<int> launched;
    const auto plan_for = [](const dsp::device_limits& d) {
      return plan_for_problem(d, 1, 1 << 20, 4, 4, 0, true);  // the H200 splits it over 16 CTAs
    };
    const auto launch = [&](const dsp::plan& pl) {
      launched.push_back(pl.cluster);
      return pl.cluster > 4 ? rowwise::status::from_cuda(cudaErrorInvalidClusterSize, "test: launch")
                            : rowwise::status{};
    };
    const rowwise::status s = dsp::launch_with_cluster_fallback(dev, plan_for, launch, "test: plan");
    CHECK(s.ok());
    REQUIRE(!launched.empty());
    CHECK(launched.front() == 16);
    CHECK(launched.back() <= 4);
    for (size_t i = 1; i < launched.size(); ++i) CHECK(launched[i] < launched[i - 1]);
    if (device == 46) {
      CHECK(dsp::cluster_cap(device) == launched[launched.size() - 2] / 2);
      // The next call starts under the learned cap: one launch.
      launched.clear();
      CHECK(dsp::launch_with_cluster_fallback(dev, plan_for, launch, "test: plan").ok());
      CHECK(launched.size() == 1);
    }
  }
  // Other errors are returned as they are, without planning again.
  dsp::device_limits dev = h200_like();
  dev.device = 45;
  int launches = 0;
  const rowwise::status e = dsp::launch_with_cluster_fallback(
      dev, [](const dsp::device_limits& d) { return plan_for_problem(d, 1, 1 << 20, 4, 4, 0, true); },
      [&](const dsp::plan&) {
        ++launches;
        return rowwise::status::from_cuda(cudaErrorLaunchOutOfResources, "test: launch");
      },
      "test: plan");
  CHECK(e.cuda_error() == cudaErrorLaunchOutOfResources);
  CHECK(launches == 1);
  CHECK(dsp::cluster_cap(45) == 16);
}
