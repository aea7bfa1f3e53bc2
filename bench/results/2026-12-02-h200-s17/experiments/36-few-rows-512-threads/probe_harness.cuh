// Probe harness (session 15 kit): device buffers, fills, a graph timer (100 back-to-back calls,
// median of 11), a bandwidth timer (L2 flushed, median of 9), an output hash, and the ops by number.
#pragma once
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_w, *g_flush;
static double g_floor = 0;
static size_t g_in_bytes = 300ll << 20;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class T> void fill_all() {
  fill<<<2048, 256>>>((T*)g_in, g_in_bytes / sizeof(T)); fill<<<256, 256>>>((T*)g_w, (4 << 20) / sizeof(T));
  CK(cudaDeviceSynchronize());
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
template <class F> double gbps(F launch, double bytes) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return bytes / ts[4] / 1e6;
}
static unsigned long long out_hash(size_t bytes) {
  std::vector<unsigned> h(bytes / 4); CK(cudaMemcpy(h.data(), g_out, bytes, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ull; for (unsigned v : h) { x ^= v; x *= 1099511628211ull; } return x;
}
template <class T> bool call(int op, int64_t rows, int64_t cols, cudaStream_t s) {
  auto w = vector<const T>((const T*)g_w, cols);
  auto b = vector<const T>((const T*)g_w + 300000, cols);
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto out = matrix<T>((T*)g_out, rows, cols);
  switch (op) {
    case 0: return (bool)layer_norm(in, out, w, b, 1e-5f, s);
    case 1: return (bool)rms_norm(in, out, w, 1e-6f, s);
    case 2: return (bool)fused_add_rms_norm(matrix<T>((T*)g_in, rows, cols), out, w, 1e-6f, s);
    case 3: return (bool)layer_norm(in, out, vector_view<const T>{}, vector_view<const T>{}, 1e-5f, s);
    case 4: return (bool)layer_norm(in, out, w, vector_view<const T>{}, 1e-5f, s);
    case 5: return (bool)softmax(in, out, s);
    case 6: return (bool)rms_norm(in, out, vector_view<const T>{}, 1e-6f, s);
    case 7: return (bool)log_softmax(in, out, s);
  }
  return false;
}
static const char* opname(int op) {
  const char* n[] = {"layer_norm", "rms_norm", "fused", "ln_noweight", "ln_gamma", "softmax", "rms_noweight", "log_softmax"};
  return n[op];
}
