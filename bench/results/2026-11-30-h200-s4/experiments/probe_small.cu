// Lead's scratch: norms small shapes (CUDA graph of 100 calls, time per call) and a few large
// shapes (L2 flushed), to compare builds with and without the weight prefetch (RW_EXP_PF).
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_flush, *g_w, *g_b; static double g_floor = 4100;

template <class F> double graph_us(F launch) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (!launch(s)) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamSynchronize(s));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) (void)launch(s);
  CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 15; ++i) { cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaStreamDestroy(s);
  return ts[7] * 1000.0 / 100.0;
}
template <class F> double large_pct(F launch, double bytes) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return bytes / ts[4] / 1e6 / g_floor * 100;
}
template <class T> void run(const char* name) {
  for (int op = 0; op < 3; ++op) {
    const char* opn = op == 0 ? "layer_norm" : op == 1 ? "rms_norm" : "fused";
    auto make = [&](int64_t rows, int64_t cols) {
      return [=](cudaStream_t s) -> bool {
        auto w = vector<const T>((const T*)g_w, cols);
        if (op == 0) return (bool)layer_norm(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, vector<const T>((const T*)g_b, cols), 1e-5f, s);
        if (op == 1) return (bool)rms_norm(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, 1e-6f, s);
        return (bool)fused_add_rms_norm(matrix<T>((T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, 1e-6f, s);
      };
    };
    printf("%-10s %-5s | small us:", opn, name);
    for (auto rc : {std::pair<int64_t, int64_t>{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}}) printf(" %lldx%lld %.2f", (long long)rc.first, (long long)rc.second, graph_us(make(rc.first, rc.second)));
    printf(" | large %%:");
    for (int64_t cols : {1024, 4096, 5120, 8192, 12288}) {
      const int64_t rows = (256ll << 20) / (2 * cols * (int64_t)sizeof(T));
      printf(" %lld %.1f", (long long)cols, large_pct(make(rows, cols), (op == 2 ? 4.0 : 2.0) * rows * cols * sizeof(T)));
    }
    printf("\n"); fflush(stdout);
  }
}
int main() {
  CK(cudaMalloc(&g_in, 600ll << 20)); CK(cudaMalloc(&g_out, 600ll << 20)); CK(cudaMalloc(&g_flush, 130ll << 20));
  CK(cudaMalloc(&g_w, 1 << 20)); CK(cudaMalloc(&g_b, 1 << 20));
  CK(cudaMemset(g_in, 0, 600ll << 20)); CK(cudaMemset(g_out, 0, 600ll << 20)); CK(cudaMemset(g_w, 0, 1 << 20)); CK(cudaMemset(g_b, 0, 1 << 20));
  printf("RW_EXP_PF %d\n", RW_EXP_PF);
  run<__nv_bfloat16>("bf16");
  run<float>("fp32");
  return 0;
}
