// Session 34 probe (experiment 86): experiment 85's row-stride question for the sweep's long-row
// minima: layer_norm (both weights), rms_norm and fused_add_rms_norm at 1024 x 65536 (16-bit) /
// 512 x 65536 (fp32), softmax at 256 x 262144 (16-bit) / 128 x 262144 (fp32) — the sweep's rows —
// with the rows padded to a stride of cols + pad (pad 0, 256 B, 4 KiB; rows stay 16-byte
// aligned, so the plan and kernel do not change). Public API, L2 flushed by memset before each
// launch, median of 15, us per launch. argv: none.
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
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static const size_t flushbytes = size_t(120) << 20;
static cudaStream_t s;
static double time_flushed(const std::function<bool()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); if (!f()) { printf("launch failed\n"); exit(1); }
    CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return med(t);
}
static const size_t MiB = size_t(1) << 20;
static void *A, *B, *W, *Beta;
template <class T> void run(const char* dt, int round) {
  T* a = (T*)A; T* b = (T*)B; const T* w = (const T*)W; const T* beta = (const T*)Beta;
  fillk<T><<<1024, 256>>>(a, 192 * MiB / sizeof(T), 7 + round, -2.f, 2.f);
  fillk<T><<<1024, 256>>>(b, 192 * MiB / sizeof(T), 9 + round, -2.f, 2.f);
  fillk<T><<<64, 256>>>((T*)W, MiB / sizeof(T), 3, 0.5f, 1.5f);
  fillk<T><<<64, 256>>>((T*)Beta, MiB / sizeof(T), 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  const long long e = sizeof(T);
  const long long norm_cols = 65536, norm_rows = e == 4 ? 512 : 1024;
  const long long sm_cols = 262144, sm_rows = e == 4 ? 128 : 256;
  const long long pads[] = {0, 256 / e, 4096 / e};
  for (long long pad : pads) {
    const long long ns = norm_cols + pad, ss = sm_cols + pad;
    const double nb = double(norm_rows) * norm_cols * e, sb = double(sm_rows) * sm_cols * e;
    const double tl = time_flushed([&] {
      return layer_norm(matrix<const T>(a, norm_rows, norm_cols, ns), matrix<T>(b, norm_rows, norm_cols, ns),
                        vector<const T>(w, norm_cols), vector<const T>(beta, norm_cols), 1e-5f, s).ok();
    });
    const double tr = time_flushed([&] {
      return rms_norm(matrix<const T>(a, norm_rows, norm_cols, ns), matrix<T>(b, norm_rows, norm_cols, ns),
                      vector<const T>(w, norm_cols), 1e-6f, s).ok();
    });
    const double tf = time_flushed([&] {
      return fused_add_rms_norm(matrix<T>(a, norm_rows, norm_cols, ns), matrix<T>(b, norm_rows, norm_cols, ns),
                                vector<const T>(w, norm_cols), 1e-6f, s).ok();
    });
    const double ts = time_flushed([&] {
      return softmax(matrix<const T>(a, sm_rows, sm_cols, ss), matrix<T>(b, sm_rows, sm_cols, ss), s).ok();
    });
    printf("round %d %s pad %lld B: layer_norm %lld x %lld %.2f us %.0f GB/s | rms_norm %.2f %.0f | fused %.2f %.0f | softmax %lld x %lld %.2f %.0f\n",
           round, dt, pad * e, norm_rows, norm_cols, tl, 2 * nb / tl * 1e-3, tr, 2 * nb / tr * 1e-3, tf,
           4 * nb / tf * 1e-3, sm_rows, sm_cols, ts, 2 * sb / ts * 1e-3);
  }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  CK(cudaMalloc(&A, 192 * MiB)); CK(cudaMalloc(&B, 192 * MiB)); CK(cudaMalloc(&W, MiB)); CK(cudaMalloc(&Beta, MiB));
  for (int round = 0; round < 2; ++round) {
    const double tc = time_flushed([&] { return cudaMemcpyAsync(B, A, 128 * MiB, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 128 MiB: %.2f us %.0f GB/s\n", round, tc, 256.0 * MiB / tc * 1e-3);
    run<__nv_bfloat16>("bf16", round);
    run<__half>("fp16", round);
    run<float>("fp32", round);
  }
  printf("done\n");
  return 0;
}
