// Session 17 probe: few rows whose spread cluster's segments need 12289-16384 values per CTA,
// held in registers by 512-thread CTAs (probe_big) against the plan (the shared-memory cache, or
// the registers over twice the cluster). Graph of 100 calls per shape (L2 warm), us per call;
// each shape's plan printed as k<kind> c<cluster> b<block>; outputs of the two compared.
#include "probe_harness.cuh"
#include <cmath>
template <class T> float tof(T v) { return static_cast<float>(v); }
template <class T> void compare(int op, int64_t rows, int64_t cols) {
  const size_t n = rows * cols;
  std::vector<T> a(n), b(n);
  rowwise::dispatch::probe_big = false; call<T>(op, rows, cols, cudaStream_t{}); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(a.data(), g_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemset(g_out, 0xff, n * sizeof(T)));
  rowwise::dispatch::probe_big = true; call<T>(op, rows, cols, cudaStream_t{}); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(b.data(), g_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  double worst = 0; size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = tof(a[i]), y = tof(b[i]);
    const double d = std::fabs(x - y) / (std::fabs(x) + 1e-30);
    if (!(d <= 1e-2)) ++bad;
    if (d > worst || std::isnan(d)) worst = d;
  }
  printf("compare %-11s %lldx%lld worst rel diff %.3g, %zu over 1e-2\n", opname(op), (long long)rows, (long long)cols, worst, bad);
}
// Rows that one CTA's registers hold, on one CTA (probe_one) against the spread rule's cluster.
template <class T> void ones(const char* name, std::vector<int> ops, std::vector<std::pair<int64_t,int64_t>> shapes) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int one = 0; one < 2; ++one) {
      rowwise::dispatch::probe_one = one != 0;
      for (int op : ops) {
        printf("%-11s %-5s one%d us:", opname(op), name, one);
        for (auto rc : shapes) {
          const double us = graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); });
          printf(" %lldx%lld:%.2f(k%d c%d b%d)", (long long)rc.first, (long long)rc.second, us,
                 rowwise::dispatch::probe_last_kind, rowwise::dispatch::probe_last_cluster,
                 rowwise::dispatch::probe_last_block);
        }
        printf("\n"); fflush(stdout);
      }
    }
  rowwise::dispatch::probe_one = false;
}
template <class T> void graphs(const char* name, std::vector<int> ops, std::vector<std::pair<int64_t,int64_t>> shapes) {
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int big = 0; big < 2; ++big) {
      rowwise::dispatch::probe_big = big != 0;
      for (int op : ops) {
        printf("%-11s %-5s big%d us:", opname(op), name, big);
        for (auto rc : shapes) {
          const double us = graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); });
          printf(" %lldx%lld:%.2f(k%d c%d b%d)", (long long)rc.first, (long long)rc.second, us,
                 rowwise::dispatch::probe_last_kind, rowwise::dispatch::probe_last_cluster,
                 rowwise::dispatch::probe_last_block);
        }
        printf("\n"); fflush(stdout);
      }
    }
  for (int op : ops) for (auto rc : shapes) compare<T>(op, rc.first, rc.second);
  rowwise::dispatch::probe_big = false;
}
int main() {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  const std::vector<std::pair<int64_t,int64_t>> shapes = {{64, 32000}, {64, 30000}, {32, 65536}, {16, 131072}, {1, 262144}, {8, 262144}};
  ones<float>("fp32", {5, 1, 2, 0}, {{1, 8192}, {1, 12288}, {4, 8192}, {16, 8192}, {64, 8192}, {1, 10000}});
  graphs<float>("fp32", {5, 7, 1, 0}, shapes);
  graphs<__nv_bfloat16>("bf16", {5, 7, 1, 0}, shapes);
  return 0;
}
