// Lead scratch (session 16): is the two-vector column stage's cost its shared memory (the
// carve-out it forces) or its work? Staged registers plans padded to a given dynamic shared
// memory (probe_pad_smem), or not staged at all (-1); L2 flushed, % of the probe's copy floor.
#include "probe_harness.cuh"
template <class T> void pads(const char* name, std::vector<int> ops, std::vector<int64_t> widths, std::vector<int> pad_list) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : ops)
      for (int pad : pad_list) {
        rowwise::dispatch::probe_pad_smem = pad;
        printf("%-11s %-5s pad %6d %%:", opname(op), name, pad);
        for (int64_t cols : widths) {
          const int64_t rows = (256ll << 20) / (2 * cols * (int64_t)sizeof(T));
          const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<T>(op, rows, cols, s); }, 2.0 * rows * cols * sizeof(T)) / g_floor;
          printf(" %lld:%.1f(c%d b%d s%d)", (long long)cols, pct, rowwise::dispatch::probe_last_cluster,
                 rowwise::dispatch::probe_last_block, rowwise::dispatch::probe_last_smem / 1024);
        }
        printf("\n"); fflush(stdout);
      }
  rowwise::dispatch::probe_pad_smem = 0;
}
template <class T> void hash(const char* name, int op, int64_t rows, int64_t cols, int pad) {
  fill_all<T>(); rowwise::dispatch::probe_pad_smem = pad; CK(cudaMemset(g_out, 0, 64 << 20)); call<T>(op, rows, cols, cudaStream_t{}); CK(cudaDeviceSynchronize());
  printf("hash %s %s pad %d %lldx%lld %llx\n", opname(op), name, pad, (long long)rows, (long long)cols, out_hash(64 << 20));
  rowwise::dispatch::probe_pad_smem = 0;
}
// Rows x1 and x4 (256 MiB and 1 GiB of traffic): a cost paid once per CTA (the stage's copy at
// the first row, the last wave's imbalance) shrinks with more rows, a cost per row does not.
template <class T> void scale(const char* name, std::vector<int> ops, std::vector<int64_t> widths) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : ops)
      for (int mul : {1, 4}) {
        printf("%-11s %-5s rows x%d %%:", opname(op), name, mul);
        for (int64_t cols : widths) {
          const int64_t rows = mul * ((256ll << 20) / (2 * cols * (int64_t)sizeof(T)));
          const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<T>(op, rows, cols, s); }, 2.0 * rows * cols * sizeof(T)) / g_floor;
          printf(" %lld:%.1f", (long long)cols, pct);
        }
        printf("\n"); fflush(stdout);
      }
}
int main() {
  g_in_bytes = 1100ll << 20;
  CK(cudaMalloc(&g_in, g_in_bytes)); CK(cudaMalloc(&g_out, g_in_bytes)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  g_floor = gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 256.0 * (1 << 20));
  printf("floor %.0f GB/s\n", g_floor);
  // fp32: 64 KiB = layer_norm's own stage at 16384 / 65536 (3 CTAs per SM, small L1); 76 KiB and
  // 100 KiB: two CTAs per SM with ~92 / ~28 KiB of L1; -1: the unstaged instance.
  pads<float>("fp32", {0, 4, 1}, {4096, 16384, 65536}, {0, 64 << 10, 76 << 10, 100 << 10, -1});
  scale<float>("fp32", {0, 4, 1}, {16384, 65536});
  scale<__nv_bfloat16>("bf16", {0, 1}, {65536});
  pads<float>("fp32", {3}, {4096, 16384, 65536}, {0});
  pads<__nv_bfloat16>("bf16", {0, 1}, {4096, 16384, 65536}, {0, 64 << 10, 100 << 10, -1});
  for (int pad : {0, 76 << 10, -1}) hash<float>("fp32", 0, 256, 65536, pad);
  for (int pad : {0, 100 << 10, -1}) hash<__nv_bfloat16>("bf16", 0, 1024, 65536, pad);
  return 0;
}
