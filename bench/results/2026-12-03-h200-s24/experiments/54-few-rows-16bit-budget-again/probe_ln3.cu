// Session 24 probe (the 256-thread staged 16-bit layer_norm budget again, now that many-row cluster grids no longer stage 16-bit layer_norm weights, 50d79e3; mid row counts added): was session 23 probe b, was session 22 probe (session 21's with the staged softmax shapes added): one program built against two include trees (the commit before, and the
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

template <class T> bool call(int64_t rows, int64_t cols, cudaStream_t s) {
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto out = matrix<T>((T*)g_out, rows, cols);
  auto w = vector<const T>((const T*)g_w, cols);
  auto b = vector<const T>((const T*)g_w + 300000, cols);
  return (bool)layer_norm(in, out, w, b, 1e-5f, s);
}
template <class T> double sum_out(size_t n) {
  CK(cudaMemset(g_sum, 0, 8)); checksum<<<1024, 256>>>((const T*)g_out, n, g_sum); double h; CK(cudaMemcpy(&h, g_sum, 8, cudaMemcpyDeviceToHost)); return h;
}
int main() {
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20)); CK(cudaMalloc(&g_sum, 8));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4, 8.0f, 0.0f); fill<<<256, 256>>>((float*)g_w, (8 << 20) / 4, 1.0f, 1.0f); CK(cudaDeviceSynchronize());
  for (int round = 0; round < 3; ++round) {
    double copy = time_flushed([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us\n", round, copy);
    for (int dt = 0; dt < 2; ++dt) {
      const char* dn = dt == 0 ? "bf16" : "fp16";
      for (auto rc : std::vector<std::pair<int64_t, int64_t>>{{1, 4096}, {128, 4096}, {1, 8192}, {16, 8192}, {128, 8192}, {256, 8192}, {512, 8192}, {400, 6144}, {512, 5120}, {1, 16384}, {8, 32768}, {1, 65536}, {64, 32000}}) {
        const double us = dt == 0 ? time_graph([&](cudaStream_t s) { return call<__nv_bfloat16>(rc.first, rc.second, s); })
                                  : time_graph([&](cudaStream_t s) { return call<__half>(rc.first, rc.second, s); });
        const double cs = dt == 0 ? sum_out<__nv_bfloat16>(rc.first * rc.second) : sum_out<__half>(rc.first * rc.second);
        printf("graph %s %6lld x %6lld  %7.3f us  sum %.9e\n", dn, (long long)rc.first, (long long)rc.second, us, cs);
      }
      for (auto rc : std::vector<std::pair<int64_t, int64_t>>{{256, 8192}, {400, 8192}, {512, 8192}, {400, 6144}, {512, 5120}}) {
        const double us = dt == 0 ? time_flushed([&](cudaStream_t s) { return call<__nv_bfloat16>(rc.first, rc.second, s); })
                                  : time_flushed([&](cudaStream_t s) { return call<__half>(rc.first, rc.second, s); });
        const double cs = dt == 0 ? sum_out<__nv_bfloat16>(rc.first * rc.second) : sum_out<__half>(rc.first * rc.second);
        printf("mid %s %6lld x %6lld  %7.3f us  %.0f GB/s  sum %.9e\n", dn, (long long)rc.first, (long long)rc.second, us, 4.0 * rc.first * rc.second / us / 1e3, cs);
      }
      for (int64_t c : {4096, 8192, 13312, 15360, 65536}) {
        const int64_t r = (128ll << 20) / 2 / c;
        const double us = dt == 0 ? time_flushed([&](cudaStream_t s) { return call<__nv_bfloat16>(r, c, s); })
                                  : time_flushed([&](cudaStream_t s) { return call<__half>(r, c, s); });
        const double cs = dt == 0 ? sum_out<__nv_bfloat16>(r * c) : sum_out<__half>(r * c);
        printf("large %s %6lld x %6lld  %7.2f us  %5.1f %%  sum %.9e\n", dn, (long long)r, (long long)c, us, 100.0 * copy / us, cs);
      }
    }
  }
  return 0;
}
