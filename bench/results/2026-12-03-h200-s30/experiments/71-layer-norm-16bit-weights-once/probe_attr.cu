// Session 30 probe: what 16-bit layer_norm rows of 65536 pay once per launch, against rms_norm on
// the same launch geometry (clusters of 4 CTAs of 256 threads x 64 values, 2 CTAs per SM, weights
// staged). Public API, L2 flushed by memset before each launch (as the sweep), median of 15, us
// per launch, two rounds. Rows: one and two whole steps of the 66 resident clusters, 15 / 16 whole
// steps, and the sweep's 1024.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using T = __nv_bfloat16;
__global__ void fillk(T* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (T)(lo + (hi - lo) * ((h & 0xffff) / 65536.0f));
  }
}
__global__ void checksum(const unsigned short* p, size_t n, unsigned long long* out) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += (unsigned long long)p[i] * (1 + (i % 1021));
  atomicAdd(out, acc);
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static double time_us(cudaStream_t s, const std::function<rowwise::status()>& f) {
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
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const int64_t cols = 65536;
  const size_t bytes = size_t(1122) * cols * 2;
  T *in, *out, *g, *b;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&g, cols * 2)); CK(cudaMalloc(&b, cols * 2));
  fillk<<<1024, 256>>>(in, bytes / 2, 7, -2.f, 2.f);
  fillk<<<64, 256>>>(g, cols, 3, 0.5f, 1.5f);
  fillk<<<64, 256>>>(b, cols, 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  using namespace rowwise;
  const std::vector<int64_t> rows_list{66, 132, 990, 1024, 1056};
  struct variant { const char* name; int op; bool w1, w2; };
  const variant vs[] = {{"layer_norm gamma+beta", 0, true, true}, {"layer_norm gamma", 0, true, false},
                        {"layer_norm none", 0, false, false},      {"rms_norm weight", 1, true, false},
                        {"rms_norm none", 1, false, false},        {"softmax", 2, false, false}};
  for (int round = 0; round < 2; ++round)
    for (const variant& v : vs) {
      printf("%-22s round %d:", v.name, round);
      for (int64_t rows : rows_list) {
        auto f = [&]() -> status {
          const auto x = matrix<const T>(in, rows, cols);
          const auto y = matrix<T>(out, rows, cols);
          const auto gv = v.w1 ? vector<const T>(g, cols) : vector<const T>(nullptr, 0);
          const auto bv = v.w2 ? vector<const T>(b, cols) : vector<const T>(nullptr, 0);
          if (v.op == 0) return layer_norm(x, y, gv, bv, 1e-5f, s);
          if (v.op == 1) return rms_norm(x, y, gv, 1e-6f, s);
          return softmax(x, y, s);
        };
        printf("  %lld: %.2f", (long long)rows, time_us(s, f));
        if (round == 0 && rows == 1024) {
          unsigned long long* d; CK(cudaMalloc(&d, 8)); CK(cudaMemsetAsync(d, 0, 8, s));
          CK(cudaMemsetAsync(out, 0xff, size_t(rows) * cols * 2, s));
          if (!f().ok()) exit(1);
          checksum<<<264, 256, 0, s>>>((const unsigned short*)out, size_t(rows) * cols, d);
          unsigned long long h; CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s));
          printf(" [sum %llx]", h); CK(cudaFree(d));
        }
      }
      printf("\n");
    }
  // The copy of the same bytes (read + write).
  for (int round = 0; round < 2; ++round) {
    printf("%-22s round %d:", "copy", round);
    for (int64_t rows : rows_list)
      printf("  %lld: %.2f", (long long)rows, time_us(s, [&]() -> status {
               CK(cudaMemcpyAsync(out, in, size_t(rows) * cols * 2, cudaMemcpyDeviceToDevice, s));
               return status{};
             }));
    printf("\n");
  }
  printf("done\n");
  return 0;
}
