// Session 21 probe: softmax with every K-th exponential by a polynomial (FMA pipe) instead of
// MUFU.EX2, and the in-place finalize by ex2 + rcp; A/B against the library at large shapes (L2
// flushed, median of 9) and graph shapes (100 calls, median of 11 replays). Outputs compared
// with the library's (max relative difference).
#include "poly_softmax_op.cuh"
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_ref, *g_flush; static unsigned* g_err;
static const size_t kBuf = 300ull << 20;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 16.0f);
  }
}
template <class T> __global__ void rel_diff(const T* a, const T* b, size_t n, unsigned* out) {
  float mx = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float x = (float)a[i], y = (float)b[i];
    float d = fabsf(x - y) / (fabsf(y) + 1e-30f);
    if (x != x || y != y) d = (x != x && y != y) ? 0.f : 1e30f;
    if (y == 0.f && x == 0.f) d = 0.f;
    if (fabsf(y) < 1e-30f && fabsf(x) < 1e-30f) d = 0.f;
    mx = fmaxf(mx, d);
  }
  atomicMax(out, __float_as_uint(mx));
}
static cudaStream_t g_s;
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
template <class T, int K> bool call(int64_t rows, int64_t cols, void* out, cudaStream_t s) {
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto o = matrix<T>((T*)out, rows, cols);
  if constexpr (K == -2) return (bool)softmax(in, o, s);
  else {
    const kernels::row_io<T> io{in.data, o.data, nullptr, rows, cols, cols, cols, 0};
    const dispatch::row_layout layouts[] = {{reinterpret_cast<uintptr_t>(in.data), cols}, {reinterpret_cast<uintptr_t>(o.data), cols}};
    return (bool)dispatch::run_rows<dispatch::softmax_messages>(kernels::poly_softmax_op<false, K>{}, io, layouts, 2, s);
  }
}
template <class T> std::function<bool(int64_t, int64_t, void*, cudaStream_t)> variant(int k) {
  switch (k) { case -2: return call<T, -2>; case -1: return call<T, -1>; case 0: return call<T, 0>; case 4: return call<T, 4>; default: return call<T, 8>; }
}
int main() {
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_ref, kBuf)); CK(cudaMalloc(&g_flush, 128 << 20)); CK(cudaMalloc(&g_err, 4));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4); CK(cudaDeviceSynchronize());
  const int ks[] = {-2, -1, 0, 4, 8};
  struct shape { bool bf16; int64_t rows, cols; bool graph; };
  std::vector<shape> shapes = {
    {false, 1, 4096, true}, {false, 128, 4096, true}, {false, 64, 32000, true}, {false, 1, 152064, true}, {false, 8, 152064, true},
    {true, 1, 4096, true}, {true, 128, 4096, true}, {true, 64, 32000, true}, {true, 8, 152064, true},
    {false, 8192, 4096, false}, {false, 1024, 32768, false}, {false, 512, 65536, false}, {false, 221, 152064, false}, {false, 128, 262144, false},
    {true, 65536, 1024, false}, {true, 16384, 4096, false}, {true, 4096, 16384, false}, {true, 2048, 32768, false}, {true, 1024, 65536, false},
    {true, 442, 152064, false}, {true, 256, 262144, false}};
  for (int round = 0; round < 2; ++round) {
    double copy = time_flushed([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us, %.0f GB/s\n", round, copy, (256 << 20) / copy / 1e3);
    for (auto& sh : shapes) {
      const int es = sh.bf16 ? 2 : 4;
      const size_t n = (size_t)sh.rows * sh.cols;
      for (int k : ks) {
        auto f = sh.bf16 ? variant<__nv_bfloat16>(k) : variant<float>(k);
        void* out = k == -2 ? g_ref : g_out;
        auto L = [&](cudaStream_t s) { return f(sh.rows, sh.cols, out, s); };
        double t = sh.graph ? time_graph(L) : time_flushed(L);
        float err = 0;
        if (k != -2) {
          CK(cudaMemset(g_err, 0, 4));
          if (sh.bf16) rel_diff<<<1024, 256, 0, g_s>>>((const __nv_bfloat16*)g_out, (const __nv_bfloat16*)g_ref, n, g_err);
          else rel_diff<<<1024, 256, 0, g_s>>>((const float*)g_out, (const float*)g_ref, n, g_err);
          unsigned u; CK(cudaMemcpy(&u, g_err, 4, cudaMemcpyDeviceToHost)); memcpy(&err, &u, 4);
        }
        const double bytes = 2.0 * es * n;
        if (sh.graph) printf("  %s %6lld x %6lld K %2d graph %7.3f us   maxrel %.2e\n", sh.bf16 ? "bf16" : "fp32", (long long)sh.rows, (long long)sh.cols, k, t, err);
        else printf("  %s %6lld x %6lld K %2d %8.2f us %5.1f %% of copy   maxrel %.2e\n", sh.bf16 ? "bf16" : "fp32", (long long)sh.rows, (long long)sh.cols, k, t, 100.0 * copy / t * (bytes / (256 << 20)), err);
      }
    }
  }
  return 0;
}
