// Lead's scratch: 16-bit rows on the streaming strategy with 2 / 3 / 4 CTAs per SM (RW_EXP_MB,
// the kernel's __launch_bounds__ minimum), library plans, L2 flushed.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_flush, *g_w, *g_b; static double g_floor = 4100;
template <class F> double pct(F launch, double bytes) {
  if (!launch()) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return bytes / ts[4] / 1e6 / g_floor * 100;
}
template <class T> void run(const char* name) {
  printf("%-5s", name);
  for (int64_t cols : {16384, 32768, 65536, 152064, 262144}) {
    const int64_t rows = std::max<int64_t>(1, (512ll << 20) / (2 * cols * (int64_t)sizeof(T)));
    const double bytes = 2.0 * rows * cols * sizeof(T);
    auto in = matrix<const T>((const T*)g_in, rows, cols); auto out = matrix<T>((T*)g_out, rows, cols);
    const double sm = pct([&] { return (bool)softmax(in, out, 0); }, bytes);
    const double lsm = pct([&] { return (bool)log_softmax(in, out, 0); }, bytes);
    const double ln = cols <= 65536 ? pct([&] { return (bool)layer_norm(in, out, vector<const T>((const T*)g_w, cols), vector<const T>((const T*)g_b, cols), 1e-5f, 0); }, bytes) : 0.0;
    printf(" | %lld: sm %.1f lsm %.1f ln %.1f", (long long)cols, sm, lsm, ln);
  }
  printf("\n"); fflush(stdout);
}
int main() {
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20)); CK(cudaMalloc(&g_flush, 130ll << 20));
  CK(cudaMalloc(&g_w, 1 << 20)); CK(cudaMalloc(&g_b, 1 << 20));
  CK(cudaMemset(g_in, 0, 520ll << 20)); CK(cudaMemset(g_w, 0, 1 << 20)); CK(cudaMemset(g_b, 0, 1 << 20));
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 15; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 256ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (256ll << 20) / ts[7] / 1e6;
  }
  printf("RW_EXP_MB %d floor %.0f GB/s\n", RW_EXP_MB, g_floor);
  run<__nv_bfloat16>("bf16");
  run<__half>("fp16");
  return 0;
}
