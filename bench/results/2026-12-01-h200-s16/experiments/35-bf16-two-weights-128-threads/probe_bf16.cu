// Lead scratch (session 16): bf16 layer_norm with both weights over clusters of 128-thread CTAs
// (probe_bf16_mode 1: 64 values per thread, 128 registers, 4 CTAs per SM, 32 KiB of stage each;
// 2: 32 values, 64 registers, 8 CTAs, 16 KiB each) against the plan (65536: 4 x 256 x 64 values,
// 2 CTAs per SM, 64 KiB of stage each; 32768: 2 x 256 x 64; 16384: one CTA of 256 x 64).
#include "probe_harness.cuh"
int main() {
  g_in_bytes = 1100ll << 20;
  CK(cudaMalloc(&g_in, g_in_bytes)); CK(cudaMalloc(&g_out, g_in_bytes)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  g_floor = gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 256.0 * (1 << 20));
  printf("floor %.0f GB/s\n", g_floor);
  fill_all<__nv_bfloat16>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : {0, 4})
      for (int mode = 0; mode < 3; ++mode) {
        rowwise::dispatch::probe_bf16_mode = mode;
        printf("%-11s bf16  mode %d %%:", opname(op), mode);
        for (int64_t cols : {16384ll, 32768ll, 65536ll})
          for (int mul : {1, 4}) {
            const int64_t rows = mul * ((256ll << 20) / (2 * cols * 2));
            const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<__nv_bfloat16>(op, rows, cols, s); }, 2.0 * rows * cols * 2) / g_floor;
            printf(" %lldx%lld:%.1f(c%d b%d)", (long long)rows, (long long)cols, pct, rowwise::dispatch::probe_last_cluster, rowwise::dispatch::probe_last_block);
          }
        printf("\n"); fflush(stdout);
      }
  for (int mode = 0; mode < 3; ++mode) {
    rowwise::dispatch::probe_bf16_mode = mode; CK(cudaMemset(g_out, 0, 64 << 20)); call<__nv_bfloat16>(0, 512, 65536, cudaStream_t{}); CK(cudaDeviceSynchronize());
    printf("hash layer_norm bf16 mode %d 512x65536 %llx\n", mode, out_hash(64 << 20));
  }
  return 0;
}
