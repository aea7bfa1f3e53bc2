// Session 30 probe: layer_norm's weights copied before the first row's loads in persistent cluster
// grids (variants v4: two weight vectors only, v5: any), against the library. Large shapes: public
// API, L2 flushed by memset before each launch, median of 15, us per launch. Small calls: one CUDA
// graph of 100 calls, median of 20 replays, us per call. Two rounds.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
template <class T> __global__ void fillk(T* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (T)(lo + (hi - lo) * ((h & 0xffff) / 65536.0f));
  }
}
__global__ void checksum(const unsigned char* p, size_t n, unsigned long long* out) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += (unsigned long long)p[i] * (1 + (i % 1021));
  atomicAdd(out, acc);
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static cudaStream_t s;
static void* in; static void* out; static void* g; static void* b;
static double time_flushed(const std::function<status()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); if (!f().ok()) { printf("launch failed\n"); exit(1); }
    CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return med(t);
}
static double time_graph(const std::function<status()>& f) {
  cudaGraph_t gr; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 100; ++i) if (!f().ok()) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamEndCapture(s, &gr)); CK(cudaGraphInstantiate(&ge, gr, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    CK(cudaEventRecord(e0, s)); CK(cudaGraphLaunch(ge, s)); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3 / 100);
  }
  CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(gr));
  return med(t);
}

template <class T>
status call(int op, int nw, int64_t rows, int64_t cols) {
  const auto x = matrix<const T>((const T*)in, rows, cols);
  const auto y = matrix<T>((T*)out, rows, cols);
  const auto gv = nw >= 1 ? vector<const T>((const T*)g, cols) : vector<const T>(nullptr, 0);
  const auto bv = nw >= 2 ? vector<const T>((const T*)b, cols) : vector<const T>(nullptr, 0);
  if (op == 0) return layer_norm(x, y, gv, bv, 1e-5f, s);
  if (op == 1) return rms_norm(x, y, gv, 1e-6f, s);
  const size_t bytes = size_t(rows) * cols * sizeof(T);
  return status::from_cuda(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s), "copy");
}
template <class T> void fill_all() {
  fillk<T><<<1024, 256>>>((T*)in, (size_t(256) << 20) / sizeof(T), 7, -2.f, 2.f);
  fillk<T><<<64, 256>>>((T*)g, (size_t(1) << 20) / sizeof(T), 3, 0.5f, 1.5f);
  fillk<T><<<64, 256>>>((T*)b, (size_t(1) << 20) / sizeof(T), 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  CK(cudaMalloc(&in, size_t(256) << 20)); CK(cudaMalloc(&out, size_t(256) << 20));
  CK(cudaMalloc(&g, size_t(1) << 20)); CK(cudaMalloc(&b, size_t(1) << 20));
  const int64_t rows_list[] = {66, 132, 264, 528, 924, 990, 1024, 1056};
  const char* names[] = {"layer_norm w2", "layer_norm w1", "layer_norm w0", "rms_norm w1", "copy"};
  const int ops[] = {0, 0, 0, 1, 2}, nws[] = {2, 1, 0, 1, 0};
  for (int dt = 0; dt < 2; ++dt) {
    if (dt == 0) fill_all<__nv_bfloat16>(); else fill_all<__half>();
    for (int round = 0; round < 2; ++round)
      for (int v = 0; v < 5; ++v) {
        printf("%s %s r%d:", dt == 0 ? "bf16" : "fp16", names[v], round);
        for (int64_t rows : rows_list) {
          double t;
          if (dt == 0) t = time_flushed([&] { return call<__nv_bfloat16>(ops[v], nws[v], rows, 65536); });
          else t = time_flushed([&] { return call<__half>(ops[v], nws[v], rows, 65536); });
          printf("  %lld:%.2f", (long long)rows, t);
        }
        printf("\n");
      }
  }
  printf("done\n");
  return 0;
}
