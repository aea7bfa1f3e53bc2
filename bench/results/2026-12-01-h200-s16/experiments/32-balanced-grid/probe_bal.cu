// Lead scratch (session 16): persistent grids balanced over their row steps
// (balanced_persistent_grid) against the resident-sized grid (probe_unbalanced); L2 flushed,
// % of the probe's own copy floor, settings alternated, two rounds.
#include "probe_harness.cuh"
template <class T> void bal(const char* name, std::vector<int> ops, std::vector<int64_t> widths) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : ops)
      for (int unb = 1; unb >= 0; --unb) {
        rowwise::dispatch::probe_unbalanced = unb != 0;
        printf("%-11s %-5s %s %%:", opname(op), name, unb ? "resident" : "balanced");
        for (int64_t cols : widths) {
          const int64_t per_row = (op == 2 ? 4 : 2) * cols * (int64_t)sizeof(T);
          const int64_t rows = (256ll << 20) / per_row;
          const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<T>(op, rows, cols, s); }, double(rows) * per_row) / g_floor;
          printf(" %lld:%.1f(k%d c%d)", (long long)cols, pct, rowwise::dispatch::probe_last_kind, rowwise::dispatch::probe_last_cluster);
        }
        printf("\n"); fflush(stdout);
      }
  rowwise::dispatch::probe_unbalanced = false;
}
template <class T> void hash(const char* name, int op, int64_t rows, int64_t cols) {
  for (int unb = 0; unb < 2; ++unb) {
    fill_all<T>(); rowwise::dispatch::probe_unbalanced = unb; CK(cudaMemset(g_out, 0, 64 << 20)); call<T>(op, rows, cols, cudaStream_t{}); CK(cudaDeviceSynchronize());
    printf("hash %s %s unbalanced %d %lldx%lld %llx\n", opname(op), name, unb, (long long)rows, (long long)cols, out_hash(64 << 20));
  }
  rowwise::dispatch::probe_unbalanced = false;
}
int main() {
  g_in_bytes = 600ll << 20;
  CK(cudaMalloc(&g_in, g_in_bytes)); CK(cudaMalloc(&g_out, g_in_bytes)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  g_floor = gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 256.0 * (1 << 20));
  printf("floor %.0f GB/s\n", g_floor);
  bal<float>("fp32", {0, 1, 2, 4}, {16384, 65536});
  bal<__nv_bfloat16>("bf16", {0, 1, 2}, {16384, 65536});
  bal<float>("fp32", {5, 7}, {16384, 32768, 65536, 152064, 262144});
  bal<__nv_bfloat16>("bf16", {5, 7}, {32768, 65536, 152064, 262144});
  hash<float>("fp32", 0, 512, 65536);
  hash<__nv_bfloat16>("bf16", 5, 1024, 65536);
  return 0;
}
