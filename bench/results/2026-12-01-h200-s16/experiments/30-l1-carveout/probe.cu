// Lead scratch (session 15): row loads through L1 (variant a) against ld.global.cg (b),
// ld.global.L1::no_allocate (c), and two CTAs per SM with the prefetch for the two-vector
// column stage (d); large shapes L2 flushed, % of the probe's own 256 MiB copy floor.
#include "probe_harness.cuh"
template <class T> void graphs(const char* name, std::vector<int> ops, std::vector<std::pair<int64_t,int64_t>> shapes) {
  fill_all<T>();
  for (int op : ops) {
    printf("%-11s %-5s graph us:", opname(op), name);
    for (auto rc : shapes)
      printf(" %lldx%lld:%.2f", (long long)rc.first, (long long)rc.second, graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); }));
    printf("\n"); fflush(stdout);
  }
}
template <class T> void large(const char* name, std::vector<int> ops, std::vector<int64_t> widths) {
  fill_all<T>();
  for (int op : ops) {
    printf("%-11s %-5s large %%:", opname(op), name);
    for (int64_t cols : widths) {
      const int64_t rows = (256ll << 20) / (2 * cols * (int64_t)sizeof(T));
      printf(" %lld:%.1f", (long long)cols, 100.0 * gbps([&](cudaStream_t s) { return call<T>(op, rows, cols, s); },
                                                      2.0 * rows * cols * sizeof(T)) / g_floor);
    }
    printf("\n"); fflush(stdout);
  }
}
template <class T> void hash(const char* name, int op, int64_t rows, int64_t cols) {
  fill_all<T>(); CK(cudaMemset(g_out, 0, 64 << 20)); call<T>(op, rows, cols, cudaStream_t{}); CK(cudaDeviceSynchronize());
  printf("hash %s %s %lldx%lld %llx\n", opname(op), name, (long long)rows, (long long)cols, out_hash(64 << 20));
}
// Side question (argument "wide"): 16-bit softmax rows that fill two wide CTAs exactly, over a
// cluster of 2 x 64 values per thread (probe_wide_pair) against the plan's 32-value clusters;
// each width's plan (kind, cluster, block) printed with its figure, the settings alternated.
void wide_pairs() {
  fill_all<__nv_bfloat16>();
  for (int rep = 0; rep < 2; ++rep)
    for (int pair = 0; pair < 2; ++pair) {
      rowwise::dispatch::probe_wide_pair = pair != 0;
      for (int op : {5, 7}) {
        printf("%-11s bf16  wide_pair%d %%:", opname(op), pair);
        for (int64_t cols : {16384, 20480, 24576, 32768}) {
          const int64_t rows = (256ll << 20) / (2 * cols * 2);
          const double pct = 100.0 * gbps([&](cudaStream_t s) { return call<__nv_bfloat16>(op, rows, cols, s); },
                                          2.0 * rows * cols * 2) / g_floor;
          printf(" %lld:%.1f(k%d c%d b%d)", (long long)cols, pct, rowwise::dispatch::probe_last_kind,
                 rowwise::dispatch::probe_last_cluster, rowwise::dispatch::probe_last_block);
        }
        printf("\n"); fflush(stdout);
      }
    }
  for (int pair = 0; pair < 2; ++pair) {
    rowwise::dispatch::probe_wide_pair = pair != 0;
    hash<__nv_bfloat16>(pair ? "bf16 wide_pair1" : "bf16 wide_pair0", 5, 4096, 32768);
  }
  rowwise::dispatch::probe_wide_pair = false;
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  g_floor = gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 256.0 * (1 << 20));
  printf("floor %.0f GB/s\n", g_floor);
  if (argc > 1 && std::strcmp(argv[1], "wide") == 0) {
    wide_pairs();
    return 0;
  }
  large<float>("fp32", {0, 4, 1, 5, 2}, {4096, 12288, 16384, 65536});
  large<__nv_bfloat16>("bf16", {0, 1, 5}, {4096, 16384, 65536});
  graphs<float>("fp32", {0, 5}, {{1, 4096}, {128, 4096}});
  hash<float>("fp32", 0, 256, 65536);
  hash<float>("fp32", 5, 256, 65536);
  hash<__nv_bfloat16>("bf16", 0, 4096, 4096);
  return 0;
}
