// Session 22 probe (session 21's with the staged softmax shapes added): one program built against two include trees (the commit before, and the
// change), timing layer_norm and softmax at graph shapes (100 calls, median of 11 replays) and
// large shapes (L2 flushed, median of 9). Prints an output checksum per shape.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_w, *g_flush; static double* g_sum;
static const size_t kBuf = 300ull << 20;
static cudaStream_t g_s;
template <class T> __global__ void fill(T* p, size_t n, float scale, float offset) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * scale + offset);
  }
}
template <class T> __global__ void checksum(const T* p, size_t n, double* out) {
  double s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += (double)(float)p[i] * (double)((i % 7) + 1);
  atomicAdd(out, s);
}
template <class F> double time_flushed(F launch) {
  if (!launch(g_s)) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamSynchronize(g_s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20, g_s)); cudaEventRecord(a, g_s); (void)launch(g_s); cudaEventRecord(b, g_s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end()); return ts[4] * 1000.0;
}
template <class F> double time_graph(F launch) {
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) if (!launch(g_s)) { printf("capture launch failed\n"); exit(1); }
  CK(cudaStreamEndCapture(g_s, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, g_s)); CK(cudaStreamSynchronize(g_s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a, g_s); CK(cudaGraphLaunch(ge, g_s)); cudaEventRecord(b, g_s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  std::sort(ts.begin(), ts.end()); return ts[5] * 1000.0 / 100;
}
template <class T> bool call(int op, int64_t rows, int64_t cols, cudaStream_t s) {
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto out = matrix<T>((T*)g_out, rows, cols);
  auto w = vector<const T>((const T*)g_w, cols);
  auto b = vector<const T>((const T*)g_w + 300000, cols);
  switch (op) {
    case 0: return (bool)layer_norm(in, out, w, b, 1e-5f, s);
    case 1: return (bool)softmax(in, out, s);
    case 2: return (bool)log_softmax(in, out, s);
    case 3: return (bool)rms_norm(in, out, w, 1e-6f, s);
    case 4: return (bool)fused_add_rms_norm(out, matrix<T>((T*)g_in, rows, cols), w, 1e-6f, s);
  }
  return false;
}
int main() {
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20)); CK(cudaMalloc(&g_sum, 8));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4, 8.0f, 0.0f); fill<<<256, 256>>>((float*)g_w, (8 << 20) / 4, 1.0f, 1.0f); CK(cudaDeviceSynchronize());
  struct shape { int op; bool bf16; int64_t rows, cols; bool graph; };
  std::vector<shape> shapes;
  for (int bf : {0, 1}) {
    for (int op : {0, 3, 4})
      for (auto rc : std::vector<std::pair<int64_t, int64_t>>{{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}}) shapes.push_back({op, (bool)bf, rc.first, rc.second, true});
    for (auto rc : std::vector<std::pair<int64_t, int64_t>>{{1, 4096}, {128, 4096}, {64, 32000}, {8, 152064}}) { shapes.push_back({1, (bool)bf, rc.first, rc.second, true}); shapes.push_back({2, (bool)bf, rc.first, rc.second, true}); }
  }
  for (int bf : {0, 1}) {
    const int es = bf ? 2 : 4;
    for (int64_t c : {1024, 4096, 12288, 16384, 65536}) shapes.push_back({0, (bool)bf, (int64_t)((128ll << 20) / es / c), c, false});
    for (int64_t c : {4096, 32768, 65536, 152064, 262144}) shapes.push_back({1, (bool)bf, (int64_t)((128ll << 20) / es / c), c, false});
    for (int64_t c : {65536, 152064, 262144}) shapes.push_back({2, (bool)bf, (int64_t)((128ll << 20) / es / c), c, false});
    for (int64_t c : {4096, 16384, 65536}) shapes.push_back({3, (bool)bf, (int64_t)((128ll << 20) / es / c), c, false});
    for (int64_t c : {4096, 65536}) shapes.push_back({4, (bool)bf, (int64_t)((64ll << 20) / es / c), c, false});
  }
  for (int round = 0; round < 3; ++round) {
    double copy = time_flushed([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us\n", round, copy);
    for (auto& sh : shapes) {
      const int es = sh.bf16 ? 2 : 4;
      auto L = [&](cudaStream_t s) { return sh.bf16 ? call<__nv_bfloat16>(sh.op, sh.rows, sh.cols, s) : call<float>(sh.op, sh.rows, sh.cols, s); };
      double t = sh.graph ? time_graph(L) : time_flushed(L);
      CK(cudaMemsetAsync(g_sum, 0, 8, g_s));
      const size_t n = (size_t)sh.rows * sh.cols;
      if (sh.bf16) checksum<<<512, 256, 0, g_s>>>((const __nv_bfloat16*)g_out, n, g_sum); else checksum<<<512, 256, 0, g_s>>>((const float*)g_out, n, g_sum);
      double cs; CK(cudaStreamSynchronize(g_s)); CK(cudaMemcpy(&cs, g_sum, 8, cudaMemcpyDeviceToHost));
      const char* names[] = {"layer_norm", "softmax", "log_softmax", "rms_norm", "fused"};
      const char* name = names[sh.op];
      if (sh.graph) printf("  %-11s %s %6lld x %6lld graph %7.3f us   sum %.9e\n", name, sh.bf16 ? "bf16" : "fp32", (long long)sh.rows, (long long)sh.cols, t, cs);
      else {
        const double bytes = (sh.op == 4 ? 4.0 : 2.0) * es * n;
        printf("  %-11s %s %6lld x %6lld %8.2f us %5.1f %% of copy   sum %.9e\n", name, sh.bf16 ? "bf16" : "fp32", (long long)sh.rows, (long long)sh.cols, t, 100.0 * copy / t * (bytes / (256 << 20)), cs);
      }
    }
  }
  return 0;
}
