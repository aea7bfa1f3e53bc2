// Session 34 probe (experiment 88): what layer_norm's weights cost the issue's small shapes. One
// CUDA graph of 100 back-to-back calls (the sweep's method), time per call (median of 20 replays),
// for layer_norm with both weights / gamma only / none, rms_norm with / without its weight and
// fused_add_rms_norm, at 1 / 16 / 128 x 4096 and 1 x 8192, fp32 and bf16 (weights of T). The
// question: at 128 rows, 128 CTAs each copy the whole weight vectors (fp32: 32 KiB of gamma +
// beta per CTA, 4 MiB per call, as much as the rows' own reads and writes) through L2.
// argv: [nocopy] (leave out the copy's graph).
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
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
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static cudaStream_t s;
static bool ok(const status& st) {
  if (!st.ok()) printf("status: %s (cuda %s)\n", st.message(), cudaGetErrorString(cudaGetLastError()));
  return st.ok();
}
static double time_graph(const std::function<bool()>& f) {
  cudaGraph_t gr; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 100; ++i)
    if (!f()) {
      cudaStreamCaptureStatus cs; cudaStreamIsCapturing(s, &cs);
      printf("launch failed at call %d of the capture (capture status %d)\n", i, (int)cs);
      exit(1);
    }
  CK(cudaStreamEndCapture(s, &gr)); CK(cudaGraphInstantiate(&ge, gr, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    CK(cudaEventRecord(e0, s)); CK(cudaGraphLaunch(ge, s)); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3 / 100);
  }
  CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(gr));
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return med(t);
}
static const size_t MiB = size_t(1) << 20;
static bool g_copy = true;  // argv[1] == "nocopy": leave the copy out
static void *A, *B, *R, *W, *Beta;
template <class T> void run(const char* dt) {
  fillk<T><<<256, 256>>>((T*)A, 8 * MiB / sizeof(T), 7, -2.f, 2.f);
  fillk<T><<<256, 256>>>((T*)R, 8 * MiB / sizeof(T), 8, -2.f, 2.f);
  fillk<T><<<64, 256>>>((T*)W, MiB / sizeof(T), 3, 0.5f, 1.5f);
  fillk<T><<<64, 256>>>((T*)Beta, MiB / sizeof(T), 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  const long long shapes[][2] = {{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}};
  for (const auto& sh : shapes) {
    const long long rows = sh[0], cols = sh[1];
    const auto x = matrix<const T>((const T*)A, rows, cols);
    const auto y = matrix<T>((T*)B, rows, cols);
    const auto w = vector<const T>((const T*)W, cols), bt = vector<const T>((const T*)Beta, cols);
    const auto none = vector<const T>(static_cast<const T*>(nullptr), 0);
    const double ln2 = time_graph([&] { return ok(layer_norm(x, y, w, bt, 1e-5f, s)); });
    const double ln1 = time_graph([&] { return ok(layer_norm(x, y, w, none, 1e-5f, s)); });
    const double ln0 = time_graph([&] { return ok(layer_norm(x, y, none, none, 1e-5f, s)); });
    const double rn1 = time_graph([&] { return ok(rms_norm(x, y, w, 1e-6f, s)); });
    const double rn0 = time_graph([&] { return ok(rms_norm(x, y, none, 1e-6f, s)); });
    const double fu = time_graph([&] {
      return ok(fused_add_rms_norm(matrix<T>((T*)A, rows, cols), matrix<T>((T*)R, rows, cols), w, 1e-6f, s));
    });
    const double cp = !g_copy ? 0.0 : time_graph([&] {
      return cudaMemcpyAsync(B, A, size_t(rows) * cols * sizeof(T), cudaMemcpyDeviceToDevice, s) == cudaSuccess;
    });
    printf("%s %lld x %lld: layer_norm both %.3f gamma %.3f none %.3f | rms_norm weight %.3f none %.3f | fused %.3f | copy %.3f us\n",
           dt, rows, cols, ln2, ln1, ln0, rn1, rn0, fu, cp);
  }
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  g_copy = !(argc > 1 && std::string(argv[1]) == "nocopy");
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&A, 8 * MiB)); CK(cudaMalloc(&B, 8 * MiB)); CK(cudaMalloc(&R, 8 * MiB));
  CK(cudaMalloc(&W, MiB)); CK(cudaMalloc(&Beta, MiB));
  for (int round = 0; round < 2; ++round) {
    run<float>("fp32");
    run<__nv_bfloat16>("bf16");
  }
  printf("done\n");
  return 0;
}
