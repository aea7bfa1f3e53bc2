// Lead scratch (session 16): fp32 rows of 65536 with weights over a cluster of 16 CTAs of
// 128 threads x 32 values (32 KiB of stage for both weights per CTA), register budget
// PROBE_C16_REGS (128: 4 CTAs per SM, ~133 KiB of shared memory; 96: 5 CTAs, ~167 KiB), against
// the plan's cluster of 8 x 256 threads (3 CTAs, 64 KiB each with both weights).
#include "probe_harness.cuh"
int main() {
  g_in_bytes = 600ll << 20;
  CK(cudaMalloc(&g_in, g_in_bytes)); CK(cudaMalloc(&g_out, g_in_bytes)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  g_floor = gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 256.0 * (1 << 20));
  printf("floor %.0f GB/s  regs %d\n", g_floor, PROBE_C16_REGS);
  fill_all<float>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : {0, 4, 1})
      for (int c16 = 0; c16 < 2; ++c16) {
        rowwise::dispatch::probe_c16 = c16 != 0;
        printf("%-11s fp32  c16 %d %%:", opname(op), c16);
        for (int64_t cols : {16384ll, 32768ll, 65536ll}) for (int mul : {1, 4}) {
          const int64_t rows = mul * ((256ll << 20) / (2 * cols * 4));
          const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<float>(op, rows, cols, s); }, 2.0 * rows * cols * 4) / g_floor;
          printf(" %lldx%lld:%.1f(c%d b%d)", (long long)rows, (long long)cols, pct, rowwise::dispatch::probe_last_cluster, rowwise::dispatch::probe_last_block);
        }
        printf("\n"); fflush(stdout);
      }
  for (int op : {0, 1}) {
    printf("%-11s fp32  4096 (96-register budget at 128 threads) %%:", opname(op));
    for (int rep = 0; rep < 2; ++rep) {
      const int64_t cols = 4096, rows = (256ll << 20) / (2 * cols * 4);
      printf(" %.1f(c%d b%d)", 100.0 * gbps([&](cudaStream_t s) { return call<float>(op, rows, cols, s); }, 2.0 * rows * cols * 4) / g_floor,
             rowwise::dispatch::probe_last_cluster, rowwise::dispatch::probe_last_block);
    }
    printf("\n");
  }
  printf("layer_norm  fp32  graph us 1x4096 %.2f 128x4096 %.2f 1x8192 %.2f\n",
         graph_us([&](cudaStream_t s) { return call<float>(0, 1, 4096, s); }), graph_us([&](cudaStream_t s) { return call<float>(0, 128, 4096, s); }),
         graph_us([&](cudaStream_t s) { return call<float>(0, 1, 8192, s); }));
  for (int c16 = 0; c16 < 2; ++c16) {
    rowwise::dispatch::probe_c16 = c16 != 0; CK(cudaMemset(g_out, 0, 64 << 20)); call<float>(0, 256, 65536, cudaStream_t{}); CK(cudaDeviceSynchronize());
    printf("hash layer_norm fp32 c16 %d 256x65536 %llx\n", c16, out_hash(64 << 20));
  }
  return 0;
}
