// Session 34 probe (experiment 84): does the distance between a call's buffers move its rate?
// fused_add_rms_norm fp32 (in place: x and the residual) and rms_norm fp32 (x in, out) at the
// sweep's shapes (128 MiB per tensor), with the second tensor placed at distance D after the first
// inside one allocation: D = 256 MiB (a power of two, as back-to-back 128 MiB or 256 MiB slots
// give) and D = 256 MiB plus odd amounts. Beside each, a device copy of one tensor's bytes from
// the first place to the second (read + write counted). Public API, L2 flushed by memset before
// each launch, median of 15, us per launch; GB/s counts the op's minimum traffic.
// argv: none.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
__global__ void fillk(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = -2.f + 4.f * ((h & 0xffff) / 65536.0f);
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
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const size_t MiB = size_t(1) << 20, tensor = 128 * MiB;
  char* arena; CK(cudaMalloc(&arena, 640 * MiB));
  float* w; CK(cudaMalloc(&w, MiB)); fillk<<<64, 256>>>(w, MiB / 4, 3);
  fillk<<<1024, 256>>>((float*)arena, 640 * MiB / 4, 7); CK(cudaDeviceSynchronize());
  const size_t distances[] = {256 * MiB, 256 * MiB + 4096, 256 * MiB + 2 * MiB + 12 * 1024 + 640, 262 * MiB + 48 * 1024,
                              192 * MiB, 128 * MiB};
  const long long shapes[][2] = {{8192, 4096}, {6554, 5120}, {4096, 8192}, {2731, 12288}, {16384, 1024}};
  for (int round = 0; round < 2; ++round) {
    for (size_t d : distances) {
      float* a = (float*)arena; float* b = (float*)(arena + d);
      const double tc = time_flushed([&] { return cudaMemcpyAsync(b, a, tensor, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
      printf("round %d D %zu (256 MiB %+lld B): copy %.2f us %.0f GB/s\n", round, d, (long long)d - (long long)(256 * MiB), tc,
             2.0 * tensor / tc * 1e-3);
      for (const auto& sh : shapes) {
        const long long rows = sh[0], cols = sh[1];
        const double bytes = double(rows) * cols * 4;
        const double tf = time_flushed([&] {
          return fused_add_rms_norm(matrix<float>(a, rows, cols), matrix<float>(b, rows, cols),
                                    vector<const float>(w, cols), 1e-6f, s).ok();
        });
        const double tr = time_flushed([&] {
          return rms_norm(matrix<const float>(a, rows, cols), matrix<float>(b, rows, cols),
                          vector<const float>(w, cols), 1e-6f, s).ok();
        });
        printf("  %lld x %lld: fused %.2f us %.0f GB/s | rms_norm %.2f us %.0f GB/s\n", rows, cols, tf,
               4 * bytes / tf * 1e-3, tr, 2 * bytes / tr * 1e-3);
      }
    }
  }
  printf("done\n");
  return 0;
}
