// Session 18 probe: small shapes of every op (graph of 100 calls, us per call).
#include "../../../2026-12-01-h200-s16/experiments/31-stage-pad-rows/probe_harness.cuh"  // session 16 probe harness
template <class T> void run(const char* name) {
  fill_all<T>();
  const std::vector<std::pair<int64_t,int64_t>> small = {{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}, {64, 32000}, {1, 152064}, {8, 152064}, {32, 65536}};
  for (int rep = 0; rep < 2; ++rep)
    for (int op : {0, 1, 2, 5, 7})
      for (auto rc : small) {
        const double us = graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); });
        printf("small %-11s %-5s %6lldx%-6lld %6.2f us\n", opname(op), name, (long long)rc.first, (long long)rc.second, us);
      }
}
int main() {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  run<float>("fp32");
  run<__nv_bfloat16>("bf16");
  return 0;
}
