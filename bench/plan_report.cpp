// bench/plan_report.cpp — what the plan chooses for each benchmarked large shape, and what that
// leaves an SM: a host-only program (no GPU), for reading a sweep's figures against the plan
// ("count the bytes, predict the time" before a device run).
//
// For each op, element size and width of the large sweep (bench_softmax.cu, bench_norms.cu:
// rows sized to 256 MiB of traffic, 16-byte aligned, weights of the row's type) it prints the
// strategy, block, cluster and values per thread; the register budget (dispatch/policy.hpp) and
// the CTAs one SM holds by registers, threads and shared memory; the shared memory that leaves
// per SM, the L1 that the smallest sm_90 carve-out holding it leaves (the carve-out is the
// driver's choice: this assumes it takes the smallest that fits), and the row bytes an SM's
// registers kernels hold in flight (loads through L1; the staged kernel's copies bypass it), and
// whether the kernel prefetches the next row into L2.
//
// A model, not a measurement: the kernels' static shared memory is taken as policy.hpp's
// column_stage_smem_overhead, the chunked and staged kernels' registers as their launch bounds
// allow (ptxas may use fewer), and the device is an H200's limits.
//
// Usage: rowwise_plan_report [fp32|bf16]              the sweep's shapes (both without an argument)
//        rowwise_plan_report OP fp32|bf16 ROWS COLS [HEAD]   one shape (OP: softmax, layer_norm,
//                                                      rms_norm, fused_add_rms_norm; fp16 plans as bf16;
//                                                      HEAD: the rows' head, 0 by default: 1 for rows one
//                                                      element past a 16-byte boundary, -1 for rows
//                                                      whose heads differ)
#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/dispatch/policy.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

namespace dsp = rowwise::dispatch;

/// The traits an op gives its problem (dispatch/launch.cuh run_rows), for each op of the sweep.
struct op_traits {
  const char* name;
  bool staged_op;
  int column_params;  // weight vectors present (0: none)
  int row_inputs;
};
constexpr op_traits ops[] = {
    {"softmax", true, 0, 1},
    {"layer_norm", false, 2, 1},
    {"rms_norm", true, 1, 1},
    {"fused_add_rms_norm", true, 1, 2},
};

constexpr int64_t softmax_cols[] = {32, 128, 512, 1000, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 152064, 262144};
constexpr int64_t norm_cols[] = {768, 1024, 2048, 4096, 5120, 8192, 12288, 16384, 65536};

/// Shared-memory capacities an sm_90 SM can be configured to (KiB; the rest of its 256 KiB is L1).
constexpr int sm90_carveouts_kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
constexpr int sm90_unified_kib = 256;

dsp::device_limits h200() {
  dsp::device_limits d;
  d.sm_count = 132;
  d.cc_major = 9;
  d.max_smem_optin = 232448;
  d.smem_per_sm = 233472;
  d.regs_per_sm = 65536;
  d.clusters = true;
  return d;
}

/// Rows of `cols` columns that move 256 MiB (the sweep's large shapes).
int64_t sweep_rows(const op_traits& op, int elem_bytes, int64_t cols) {
  return (int64_t{256} << 20) / (2 * op.row_inputs * cols * elem_bytes);
}

void report(const op_traits& op, int elem_bytes, int64_t rows, int64_t cols, const dsp::device_limits& dev,
            int head = 0) {
  dsp::problem p;
  p.cols = cols;
  p.rows = rows;
  p.elem_bytes = elem_bytes;
  p.pack_elems = 16 / elem_bytes;
  p.head = head;
  p.row_inputs = op.row_inputs;
  p.staged_op = op.staged_op;
  p.column_params = op.column_params > 0;
  p.column_param_count = op.column_params;
  p.column_param_bytes = op.column_params > 0 ? elem_bytes : 0;
  const dsp::plan pl = dsp::plan_rows(p, dev);
  if (!pl.valid) {
    std::printf("%-18s %-4s %8lld x %6lld  no valid plan\n", op.name, elem_bytes == 4 ? "fp32" : "bf16",
                static_cast<long long>(rows), static_cast<long long>(cols));
    return;
  }

  int regs = 0, per_sm = 0, values = 0;
  bool prefetch = false, staged = false;
  const char* limit = "regs";
  switch (pl.kind) {
    case dsp::strategy::registers:
      values = pl.packs_per_thread * pl.pack_elems;
      staged = pl.dynamic_smem > 0;  // the instance with a column stage
      regs = dsp::row_kernel_registers_of(p, pl.block, values, pl.threads_per_row, staged, pl.wrap_instance);
      per_sm = dsp::row_kernel_ctas_per_sm(p, dev, pl.block, values, pl.threads_per_row, staged, pl.wrap_instance);
      prefetch = dsp::row_kernel_prefetches_of(p, pl.block, values, pl.threads_per_row, staged);
      break;
    case dsp::strategy::staged:
      values = pl.packs_per_thread * pl.pack_elems;
      regs = 65536 / (pl.block * dsp::staged_min_blocks);
      per_sm = dsp::staged_min_blocks;
      break;
    case dsp::strategy::cached:
    case dsp::strategy::streaming:
      values = pl.packs_per_thread * pl.pack_elems;
      per_sm = pl.kind == dsp::strategy::cached || op.row_inputs == 2 ? 1 : 2;  // launch bounds
      regs = 65536 / (pl.block * per_sm);
      break;
  }
  if (dsp::max_threads_per_sm / pl.block < per_sm) {
    per_sm = dsp::max_threads_per_sm / pl.block;
    limit = "threads";
  }
  const int64_t cta_smem = pl.dynamic_smem + dsp::column_stage_smem_overhead;
  if (dev.smem_per_sm / cta_smem < per_sm) {
    per_sm = static_cast<int>(dev.smem_per_sm / cta_smem);
    limit = "smem";
  }
  const int64_t smem_kib = (per_sm * cta_smem + 1023) / 1024;
  int carve = sm90_carveouts_kib[sizeof(sm90_carveouts_kib) / sizeof(int) - 1];
  for (int c : sm90_carveouts_kib)
    if (c >= smem_kib) {
      carve = c;
      break;
    }
  // Registers kernels hold a row's loads in registers, through L1; the chunked kernels one chunk.
  const bool through_l1 = pl.kind != dsp::strategy::staged;
  const int64_t in_flight = through_l1 ? int64_t{per_sm} * pl.block * values * elem_bytes * op.row_inputs : 0;
  std::printf("%-18s %-4s %8lld x %6lld  %-9s block %3d cluster %2d values %2d  regs %3d  CTAs/SM %2d (%-7s)  "
              "smem/CTA %3lld KiB  smem/SM %3lld KiB  L1 %3d KiB  in flight %3lld KiB%s%s\n",
              op.name, elem_bytes == 4 ? "fp32" : "bf16", static_cast<long long>(rows), static_cast<long long>(cols),
              dsp::strategy_name(pl.kind),
              pl.block, pl.cluster, values, regs, per_sm, limit, static_cast<long long>(pl.dynamic_smem / 1024),
              static_cast<long long>(smem_kib), sm90_unified_kib - carve, static_cast<long long>(in_flight / 1024),
              through_l1 ? "" : " (bulk copies)", prefetch ? "  prefetch" : "");
}

}  // namespace

int usage(const char* self) {
  std::fprintf(stderr, "usage: %s [fp32|bf16]\n       %s OP fp32|bf16 ROWS COLS [HEAD]\n", self, self);
  return 2;
}

int main(int argc, char** argv) {
  const dsp::device_limits dev = h200();
  if (argc == 5 || argc == 6) {  // one shape
    const op_traits* op = nullptr;
    for (const op_traits& o : ops)
      if (std::strcmp(argv[1], o.name) == 0) op = &o;
    const bool fp32 = std::strcmp(argv[2], "fp32") == 0;
    const long long rows = std::atoll(argv[3]), cols = std::atoll(argv[4]);
    const int head = argc == 6 ? std::atoi(argv[5]) : 0;
    if (op == nullptr || (!fp32 && std::strcmp(argv[2], "bf16") != 0) || rows < 1 || cols < 1 || head < -1 ||
        head >= (fp32 ? 4 : 8))
      return usage(argv[0]);
    report(*op, fp32 ? 4 : 2, rows, cols, dev, head);
    return 0;
  }
  const bool fp32 = argc < 2 || std::strcmp(argv[1], "fp32") == 0;
  const bool bf16 = argc < 2 || std::strcmp(argv[1], "bf16") == 0;
  if (argc > 2 || (!fp32 && !bf16)) return usage(argv[0]);
  for (int elem_bytes : {4, 2}) {
    if ((elem_bytes == 4 && !fp32) || (elem_bytes == 2 && !bf16)) continue;
    for (const op_traits& op : ops) {
      if (op.column_params == 0)
        for (int64_t cols : softmax_cols) report(op, elem_bytes, sweep_rows(op, elem_bytes, cols), cols, dev);
      else
        for (int64_t cols : norm_cols) report(op, elem_bytes, sweep_rows(op, elem_bytes, cols), cols, dev);
    }
  }
  return 0;
}
