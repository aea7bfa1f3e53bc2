// Session 34 probe (experiment 85): is the fp32 ops' dip at 4096 / 8192 columns (sweep: fused_add_
// rms_norm fp32 94 % at both, 99 % at 5120; experiment 84: not the buffers' distance) a matter of
// the row stride being a power of two? The same plan and kernel (cols fixed) with the rows padded
// to a stride of cols + pad (pad a multiple of 4 elements: rows stay 16-byte aligned), and the
// rows' count fixed so that each call moves the same bytes. fused_add_rms_norm (in place, x and
// the residual), rms_norm and layer_norm (out of place), softmax; fp32. Public API, L2 flushed by
// memset before each launch, median of 15, us per launch. argv: none.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
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
  const size_t MiB = size_t(1) << 20;
  float *a, *b, *w, *beta;
  CK(cudaMalloc(&a, 256 * MiB)); CK(cudaMalloc(&b, 256 * MiB));
  CK(cudaMalloc(&w, MiB)); CK(cudaMalloc(&beta, MiB));
  fillk<<<1024, 256>>>(a, 256 * MiB / 4, 7); fillk<<<1024, 256>>>(b, 256 * MiB / 4, 9);
  fillk<<<64, 256>>>(w, MiB / 4, 3); fillk<<<64, 256>>>(beta, MiB / 4, 5); CK(cudaDeviceSynchronize());
  // cols, pads (elements)
  const long long cols_list[] = {4096, 8192, 5120, 2048};
  const long long pads[] = {0, 4, 32, 64, 256, 1024};
  for (int round = 0; round < 2; ++round) {
    {  // the copy of 128 MiB (read + write counted)
      const double tc = time_flushed([&] { return cudaMemcpyAsync(b, a, 128 * MiB, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
      printf("round %d copy 128 MiB: %.2f us %.0f GB/s\n", round, tc, 256.0 * MiB / tc * 1e-3);
    }
    for (long long cols : cols_list) {
      const long long rows = (128 * MiB / 4) / cols;  // 128 MiB of row data per tensor
      for (long long pad : pads) {
        const long long stride = cols + pad;
        const double bytes = double(rows) * cols * 4;
        const double tf = time_flushed([&] {
          return fused_add_rms_norm(matrix<float>(a, rows, cols, stride), matrix<float>(b, rows, cols, stride),
                                    vector<const float>(w, cols), 1e-6f, s).ok();
        });
        const double tr = time_flushed([&] {
          return rms_norm(matrix<const float>(a, rows, cols, stride), matrix<float>(b, rows, cols, stride),
                          vector<const float>(w, cols), 1e-6f, s).ok();
        });
        const double tl = time_flushed([&] {
          return layer_norm(matrix<const float>(a, rows, cols, stride), matrix<float>(b, rows, cols, stride),
                            vector<const float>(w, cols), vector<const float>(beta, cols), 1e-5f, s).ok();
        });
        const double ts = time_flushed([&] {
          return softmax(matrix<const float>(a, rows, cols, stride), matrix<float>(b, rows, cols, stride), s).ok();
        });
        printf("  %lld x %lld stride %lld (+%lld): fused %.2f us %.0f GB/s | rms %.2f %.0f | layer %.2f %.0f | softmax %.2f %.0f\n",
               rows, cols, stride, pad, tf, 4 * bytes / tf * 1e-3, tr, 2 * bytes / tr * 1e-3, tl, 2 * bytes / tl * 1e-3,
               ts, 2 * bytes / ts * 1e-3);
      }
    }
  }
  printf("done\n");
  return 0;
}
