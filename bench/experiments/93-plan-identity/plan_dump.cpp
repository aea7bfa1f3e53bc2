// Experiment 93 (session 36, host only): one hash over plan_rows for 23,040,000 problems (H200-like
// and A100-like limits; 4- and 2-byte elements; 16-byte and 1-element packs; four op kinds; 12 row
// counts; every cols to 20000, then every 7th to 300000), to show that a change left the plans as
// they were. Build it against two versions' headers and compare the hashes:
//   g++ -std=c++17 -O2 -I<include> -I/usr/local/cuda/include plan_dump.cpp -o plan_dump
// Session 36: 625279d and e18b024 (max_cluster bounds every cluster rule) both print
// "23040000 plans, hash e5d981eb584aa778".
#include <rowwise/dispatch/plan.hpp>
#include <cstdio>
namespace dsp = rowwise::dispatch;
int main() {
  dsp::device_limits h{};
  h.device = 0; h.sm_count = 132; h.cc_major = 9; h.cc_minor = 0; h.max_smem_optin = 232448;
  h.smem_per_sm = 233472; h.regs_per_sm = 65536; h.clusters = true;
  dsp::device_limits a = h; a.sm_count = 108; a.cc_major = 8; a.max_smem_optin = 166912; a.smem_per_sm = 167936; a.clusters = false;
  unsigned long long hash = 1469598103934665603ull; long n = 0;
  auto mix = [&](long long v) { hash ^= (unsigned long long)v; hash *= 1099511628211ull; };
  for (const dsp::device_limits& d : {h, a})
  for (int eb : {4, 2})
  for (int op = 0; op < 4; ++op)
  for (long long rows : {1LL, 2LL, 3LL, 8LL, 16LL, 64LL, 67LL, 128LL, 133LL, 1000LL, 4096LL, 100000LL})
  for (long long cols = 1; cols <= 300000; cols += (cols < 20000 ? 1 : 7)) {
    for (int packmode = 0; packmode < 2; ++packmode) {
      dsp::problem p;
      p.rows = rows; p.cols = cols; p.elem_bytes = eb;
      p.pack_elems = packmode == 0 ? 16 / eb : 1;
      p.head = packmode == 0 ? 0 : 0;
      p.row_inputs = op == 3 ? 2 : 1;
      p.staged_op = op != 1;               // softmax, rms, fused stage; layer_norm does not
      p.column_params = op != 0;
      p.column_param_count = op == 1 ? 2 : (op == 0 ? 0 : 1);
      p.column_param_bytes = op == 0 ? 0 : 4;
      const dsp::plan pl = dsp::plan_rows(p, d);
      mix((long long)pl.kind); mix(pl.config); mix(pl.pack_elems); mix(pl.threads_per_row); mix(pl.packs_per_thread);
      mix(pl.block); mix(pl.cluster); mix(pl.rows_per_step); mix(pl.segment_packs); mix(pl.dynamic_smem);
      mix(pl.max_useful_blocks); mix(pl.persistent); mix(pl.valid);
      ++n;
    }
  }
  std::printf("%ld plans, hash %016llx\n", n, hash);
}
