// Session 17: the library at 6958207 (few_rows_block at 128 registers) on the shapes of
// probe_big.cu; graph of 100 calls (L2 warm), us per call, each shape twice.
#include "probe_harness.cuh"
template <class T> void graphs(const char* name, std::vector<int> ops, std::vector<std::pair<int64_t,int64_t>> shapes) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : ops) {
      printf("%-11s %-5s lib us:", opname(op), name);
      for (auto rc : shapes)
        printf(" %lldx%lld:%.2f", (long long)rc.first, (long long)rc.second,
               graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); }));
      printf("\n"); fflush(stdout);
    }
}
int main() {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  const std::vector<std::pair<int64_t,int64_t>> shapes = {{64, 32000}, {64, 30000}, {32, 65536}, {16, 131072}, {1, 262144}, {8, 262144}};
  graphs<float>("fp32", {5, 7, 1, 0}, shapes);
  graphs<__nv_bfloat16>("bf16", {5, 7, 1, 0}, shapes);
  return 0;
}
