// Session 20 probe 2: fixed cost per launch vs per-row rate for one-CTA-per-row-step grids, and graph
// small calls. Built twice: library (include/) and variant (incV/: first-wave L2 prefetch).
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_w, *g_flush, *g_res;
static const size_t kBuf = 1100ull << 20;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class F> double time_us(F launch) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return ts[4] * 1000.0;
}
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
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaStreamDestroy(s);
  return ts[5] * 1000.0 / 100.0;
}
template <class T> bool call(int op, int64_t rows, int64_t cols, cudaStream_t s) {
  auto w = vector<const T>((const T*)g_w, cols);
  auto b = vector<const T>((const T*)g_w + 300000, cols);
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto out = matrix<T>((T*)g_out, rows, cols);
  switch (op) {
    case 0: return (bool)layer_norm(in, out, w, b, 1e-5f, s);
    case 1: return (bool)rms_norm(in, out, w, 1e-6f, s);
    case 2: return (bool)fused_add_rms_norm(matrix<T>((T*)g_out, rows, cols), matrix<T>((T*)g_res, rows, cols), w, 1e-6f, s);
    case 5: return (bool)softmax(in, out, s);
    case 7: return (bool)log_softmax(in, out, s);
  }
  return false;
}
static const char* opn[] = {"layer_norm", "rms_norm", "fused", "", "", "softmax", "", "log_softmax"};
template <class T> unsigned long long hash_out(size_t bytes) {
  std::vector<unsigned> h(bytes / 4); CK(cudaMemcpy(h.data(), g_out, bytes, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ull; for (unsigned v : h) { x ^= v; x *= 1099511628211ull; } return x;
}
int main(int argc, char** argv) {
  const char* tag = argc > 1 ? argv[1] : "?";
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_res, 600ull << 20)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4); fill<<<256, 256>>>((float*)g_w, (8 << 20) / 4); CK(cudaDeviceSynchronize());
  for (size_t bytes : {256ull << 20, 1024ull << 20}) {
    double t = time_us([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, bytes / 2, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("[%s] copy %zu MiB: %.2f us, %.0f GB/s\n", tag, bytes >> 20, t, bytes / t / 1e3);
  }
  struct S { int op; int bf16; int64_t cols; };
  S shapes[] = {{0, 1, 12288}, {0, 0, 12288}, {0, 0, 4096}, {0, 1, 4096}, {0, 1, 8192}, {0, 0, 8192}, {5, 0, 4096}, {5, 1, 4096},
                {7, 0, 8192}, {1, 1, 4096}, {1, 0, 12288}, {2, 0, 4096}, {2, 0, 8192}, {5, 0, 16384}, {0, 0, 2048}};
  for (auto sh : shapes) {
    const int es = sh.bf16 ? 2 : 4;
    const int mult = sh.op == 2 ? 2 : 1;
    const int64_t R = (256ll << 20) / (2 * es * sh.cols * mult);
    double t[2]; int64_t rr[2] = {R, 4 * R};
    for (int i = 0; i < 2; ++i)
      t[i] = time_us([&](cudaStream_t s) { return sh.bf16 ? call<__nv_bfloat16>(sh.op, rr[i], sh.cols, s) : call<float>(sh.op, rr[i], sh.cols, s); });
    const double bytesR = 2.0 * es * sh.cols * R * mult;
    const double fixed = (4 * t[0] - t[1]) / 3, rate = 3 * bytesR / (t[1] - t[0]) / 1e3;
    printf("[%s] %-11s %s %6lld: R=%6lld %.2f us (%.0f GB/s)  4R %.2f us  fixed %.2f us  per-row %.0f GB/s  hash %llx\n", tag,
           opn[sh.op], sh.bf16 ? "bf16" : "fp32", (long long)sh.cols, (long long)R, t[0], bytesR / t[0] / 1e3, t[1], fixed, rate,
           hash_out<float>(1 << 20));
  }
  struct G { int op; int bf16; int64_t rows, cols; };
  G gs[] = {{5, 0, 1, 4096}, {5, 0, 128, 4096}, {0, 0, 128, 4096}, {0, 1, 128, 4096}, {5, 0, 64, 32000}, {0, 0, 1, 4096}};
  for (auto g : gs) {
    double t = graph_us([&](cudaStream_t s) { return g.bf16 ? call<__nv_bfloat16>(g.op, g.rows, g.cols, s) : call<float>(g.op, g.rows, g.cols, s); });
    printf("[%s] graph %-11s %s %4lld x %6lld: %.3f us\n", tag, opn[g.op], g.bf16 ? "bf16" : "fp32", (long long)g.rows, (long long)g.cols, t);
  }
  return 0;
}
