// Session 34 probe (experiment 87): the staged kernel with a row-rotated walk over its segment
// (variant-v87.patch: the copy into the stage, the passes and the write-back each start at the
// chunk row mod chunks), against the library, at the sweep's staged shapes. Experiment 86 found
// fp32 softmax 128 x 262144 3 % faster with rows padded by 256 B: rows a power of two apart
// streamed at the same offsets by the clusters' concurrent rows. Build it twice (-I the library's
// include, -I the variant's) and alternate the binaries. Public API, L2 flushed by memset before
// each launch, median of 15, us per launch; a checksum of the outputs (sum over the rows of the
// softmax row sums, ~rows; the fused op's outputs' sum) for sanity. argv: label.
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
template <class T> __global__ void sumk(const T* p, size_t n, double* out) {
  double acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) acc += (double)(float)p[i];
  atomicAdd(out, acc);
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
static void *A, *B, *W;
static const char* label;
template <class T> double checksum(const T* p, size_t n) {
  double* d; CK(cudaMalloc(&d, 8)); CK(cudaMemsetAsync(d, 0, 8, s));
  sumk<T><<<264, 256, 0, s>>>(p, n, d);
  double h; CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s)); CK(cudaFree(d));
  return h;
}
template <class T> void softmax_shape(const char* dt, long long rows, long long cols, bool log) {
  T* a = (T*)A; T* b = (T*)B;
  const double t = time_flushed([&] {
    return (log ? log_softmax(matrix<const T>(a, rows, cols), matrix<T>(b, rows, cols), s)
                : softmax(matrix<const T>(a, rows, cols), matrix<T>(b, rows, cols), s)).ok();
  });
  printf("%s %s %s %lld x %lld: %.2f us %.0f GB/s [sum %.6g]\n", label, log ? "log_softmax" : "softmax", dt, rows, cols, t,
         2.0 * rows * cols * sizeof(T) / t * 1e-3, checksum(b, size_t(rows) * cols));
}
template <class T> void fused_shape(const char* dt, long long rows, long long cols) {
  T* a = (T*)A; T* b = (T*)B;
  const double t = time_flushed([&] {
    return fused_add_rms_norm(matrix<T>(a, rows, cols), matrix<T>(b, rows, cols), vector<const T>((const T*)W, cols), 1e-6f, s).ok();
  });
  printf("%s fused_add_rms_norm %s %lld x %lld: %.2f us %.0f GB/s [sum %.6g]\n", label, dt, rows, cols, t,
         4.0 * rows * cols * sizeof(T) / t * 1e-3, checksum(a, size_t(rows) * cols));
}
template <class T> void fill() {
  fillk<T><<<1024, 256>>>((T*)A, 160 * MiB / sizeof(T), 7, -4.f, 4.f);
  fillk<T><<<1024, 256>>>((T*)B, 160 * MiB / sizeof(T), 9, -1.f, 1.f);
  fillk<T><<<64, 256>>>((T*)W, MiB / sizeof(T), 3, 0.5f, 1.5f);
  CK(cudaDeviceSynchronize());
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  label = argc > 1 ? argv[1] : "?";
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  CK(cudaMalloc(&A, 160 * MiB)); CK(cudaMalloc(&B, 160 * MiB)); CK(cudaMalloc(&W, MiB));
  fill<float>();
  softmax_shape<float>("fp32", 128, 262144, false);
  softmax_shape<float>("fp32", 128, 262144, true);
  softmax_shape<float>("fp32", 221, 152064, false);
  fused_shape<float>("fp32", 1024, 16384);
  fill<float>();
  fused_shape<float>("fp32", 256, 65536);
  fill<__nv_bfloat16>();
  softmax_shape<__nv_bfloat16>("bf16", 256, 262144, false);
  softmax_shape<__nv_bfloat16>("bf16", 442, 152064, false);
  fill<__half>();
  softmax_shape<__half>("fp16", 256, 262144, false);
  softmax_shape<__half>("fp16", 256, 262144, true);
  printf("done\n");
  return 0;
}
