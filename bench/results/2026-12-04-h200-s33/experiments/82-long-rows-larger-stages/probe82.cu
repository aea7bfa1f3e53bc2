// Session 33 probe (experiment 82): rows past what 16 CTAs stage in 32 KiB stages, for rms_norm and
// fused_add_rms_norm in fp32 and bf16: the library (streaming) against the same rows staged over 16
// CTAs with stages of up to 64 KiB (variant build). argv: op (rms | fused), dtype (fp32 | bf16),
// columns... Public API, L2 flushed by memset before each launch, median of 15, us per launch;
// rms_norm out of place, fused in place; rows strided to a multiple of 16 bytes.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
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
static void* r;
static bool g_rms = false;
template <class T>
status call(int64_t rows, int64_t cols, int64_t stride) {
  const auto x = matrix<T>((T*)out, rows, cols, stride);
  const auto res = matrix<T>((T*)r, rows, cols, stride);
  const auto gv = vector<const T>((const T*)g, cols);
  if (g_rms) return rms_norm(matrix<const T>((const T*)out, rows, cols, stride), res, gv, 1e-6f, s);
  return fused_add_rms_norm(x, res, gv, 1e-6f, s);
}
template <class T>
void shape(const char* dt, int64_t rows, int64_t cols, int64_t stride, bool graph, int round) {
  auto f = [&] { return call<T>(rows, cols, stride); };
  const size_t bytes = size_t(rows) * stride * sizeof(T);
  // in place: x and the residual are rewritten by every call; refill them (outside the timing)
  CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s));
  CK(cudaMemcpyAsync(r, (char*)in + (size_t(128) << 20), bytes, cudaMemcpyDeviceToDevice, s));
  const double t = graph ? time_graph(f) : time_flushed(f);
  printf("%s %s %lld x %lld (stride %lld): %.3f", g_rms ? "rms_norm" : "fused_add_rms_norm", dt, (long long)rows, (long long)cols,
         (long long)stride, t);
  if (round == 0) {
    unsigned long long* d; CK(cudaMalloc(&d, 8)); CK(cudaMemsetAsync(d, 0, 8, s));
    CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, s));
    CK(cudaMemcpyAsync(r, (char*)in + (size_t(128) << 20), bytes, cudaMemcpyDeviceToDevice, s));
    if (!f().ok()) exit(1);
    checksum<<<264, 256, 0, s>>>((const unsigned char*)out, bytes, d);
    checksum<<<264, 256, 0, s>>>((const unsigned char*)r, bytes, d);
    unsigned long long h; CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s));
    printf("  [sum %llx]", h); CK(cudaFree(d));
  }
  printf("\n");
}
template <class T> void fill_all() {
  fillk<T><<<1024, 256>>>((T*)in, (size_t(256) << 20) / sizeof(T), 7, -2.f, 2.f);
  fillk<T><<<64, 256>>>((T*)g, (size_t(1) << 20) / sizeof(T), 3, 0.5f, 1.5f);
  CK(cudaDeviceSynchronize());
}
static std::vector<int64_t> arg_cols;  // argv: columns (rows strided to a multiple of 4 elements)
template <class T> void dtype_set(const char* dt, int round) {
  fill_all<T>();
  if (!arg_cols.empty()) {
    for (int64_t cols : arg_cols) {
      const int64_t per = 16 / sizeof(T);
      const int64_t stride = (cols + per - 1) / per * per;
      shape<T>(dt, (int64_t(128) << 20) / (stride * int64_t(sizeof(T))), cols, stride, false, round);
    }
    return;
  }
  // rows, cols, stride: new rule (131072, 100000, 65540, 32766 / 49150 with a partial last pack);
  // unchanged controls (65536 staged, 131076 streaming, 16382 below 64 KiB streaming).
  const int64_t shapes[][3] = {{256, 131072, 131072}, {320, 100000, 100000}, {511, 65540, 65540},
                               {1024, 32766, 32768}, {680, 49150, 49152}, {512, 65536, 65536},
                               {255, 131076, 131076}, {2048, 16382, 16384}};
  for (const auto& sh : shapes) shape<T>(dt, sh[0], sh[1], sh[2], false, round);
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 4) { printf("usage: probe rms|fused fp32|bf16 cols...\n"); return 1; }
  g_rms = std::string(argv[1]) == "rms";
  const bool bf16 = std::string(argv[2]) == "bf16";
  for (int i = 3; i < argc; ++i) arg_cols.push_back(atoll(argv[i]));
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  CK(cudaMalloc(&in, size_t(256) << 20)); CK(cudaMalloc(&out, size_t(128) << 20)); CK(cudaMalloc(&r, size_t(128) << 20));
  CK(cudaMalloc(&g, size_t(1) << 20)); CK(cudaMalloc(&b, size_t(1) << 20));
  for (int round = 0; round < 3; ++round) {
    if (bf16) dtype_set<__nv_bfloat16>("bf16", round);
    else dtype_set<float>("fp32", round);
  }
  printf("done\n");
  return 0;
}
