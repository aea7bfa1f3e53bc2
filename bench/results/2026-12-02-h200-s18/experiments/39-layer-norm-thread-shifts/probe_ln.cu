// Session 18 probe: layer_norm's two-pass moments (thread-shift variant vs baseline).
// Small shapes: graph of 100 calls, us per call. Large: bandwidth (L2 flushed) against the
// in-process copy floor. Accuracy: max error against an fp64 reference on sampled rows.
#include "../../../2026-12-01-h200-s16/experiments/31-stage-pad-rows/probe_harness.cuh"  // session 16 probe harness
#include <cmath>
template <class T> float tof(T v) { return static_cast<float>(v); }
template <class T> double max_err(int op, int64_t rows, int64_t cols) {
  CK(cudaMemset(g_out, 0xff, rows * cols * sizeof(T)));
  if (!call<T>(op, rows, cols, cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  std::vector<T> x(cols), y(cols), w(cols), b(cols);
  CK(cudaMemcpy(w.data(), g_w, cols * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), (T*)g_w + 300000, cols * sizeof(T), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int64_t r : {int64_t{0}, rows / 2, rows - 1}) {
    CK(cudaMemcpy(x.data(), (T*)g_in + r * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), (T*)g_out + r * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
    double s = 0; for (auto v : x) s += tof(v);
    const double mean = s / cols; double m2 = 0; for (auto v : x) m2 += (tof(v) - mean) * (tof(v) - mean);
    const double rstd = 1.0 / std::sqrt(m2 / cols + (op == 1 ? 1e-6 : 1e-5));
    for (int64_t i = 0; i < cols; ++i) {
      double ref;
      if (op == 0) ref = (tof(x[i]) - mean) * rstd * tof(w[i]) + tof(b[i]);
      else if (op == 3) ref = (tof(x[i]) - mean) * rstd;
      else continue;
      const double d = std::fabs(tof(y[i]) - ref) / (1.0 + std::fabs(ref));
      if (!(d <= worst)) worst = d;
    }
  }
  return worst;
}
template <class T> void large_mean_fill(int64_t n) {
  std::vector<T> h(n);
  unsigned st = 12345;
  for (int64_t i = 0; i < n; ++i) { st = st * 1664525u + 1013904223u; h[i] = T(1e4f + ((st >> 8) / 16777216.0f - 0.5f) * 0.035f); }
  CK(cudaMemcpy(g_in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T> void run(const char* name) {
  fill_all<T>();
  const std::vector<std::pair<int64_t,int64_t>> small = {{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}, {64, 32000}, {1, 2048}, {8, 152064}};
  for (int rep = 0; rep < 2; ++rep)
    for (int op : {0, 3, 4, 1})
      for (auto rc : small) {
        const double us = graph_us([&](cudaStream_t s) { return call<T>(op, rc.first, rc.second, s); });
        printf("small %-11s %-5s %6lldx%-6lld %6.2f us\n", opname(op), name, (long long)rc.first, (long long)rc.second, us);
      }
  for (int op : {0, 3})
    for (int64_t cols : {768, 1000, 4096, 4099, 8192, 32000, 152064}) {
      const int64_t rows = 64;
      printf("err   %-11s %-5s %6lldx%-6lld %.2e\n", opname(op), name, (long long)rows, (long long)cols, max_err<T>(op, rows, cols));
    }
  for (int64_t cols : {1000, 4099, 40000}) {
    large_mean_fill<T>(16 * cols);
    printf("err   mean1e4     %-5s %6dx%-6lld %.2e\n", name, 16, (long long)cols, max_err<T>(3, 16, cols));
  }
  fill_all<T>();
  for (int rep = 0; rep < 2; ++rep)
    for (int op : {0, 1, 3})
      for (int64_t cols : {768, 1024, 2048, 4096, 5120, 8192, 12288, 16384, 65536}) {
        const int64_t rows = (128ll << 20) / (cols * (int64_t)sizeof(T));
        const double bytes = 2.0 * rows * cols * sizeof(T);
        const double g = gbps([&](cudaStream_t s) { return call<T>(op, rows, cols, s); }, bytes);
        printf("large %-11s %-5s %6lldx%-6lld %7.1f GB/s %5.1f %%\n", opname(op), name, (long long)rows, (long long)cols, g, 100.0 * g / g_floor);
      }
}
int main() {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  std::vector<double> fl;
  for (int i = 0; i < 3; ++i) fl.push_back(gbps([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; }, 2.0 * (128 << 20)));
  std::sort(fl.begin(), fl.end()); g_floor = fl[1];
  printf("floor %.1f GB/s\n", g_floor);
  run<float>("fp32");
  run<__nv_bfloat16>("bf16");
  return 0;
}
