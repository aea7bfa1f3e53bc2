// Session 20 probe: fixed cost per launch vs per-row rate (rows R and 4R, L2 flushed, median of 9),
// and resident clusters by cluster size for one-CTA-per-SM kernels.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_w, *g_flush;
static const size_t kBuf = 1100ull << 20;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class F> double time_us(F launch) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return ts[4] * 1000.0;
}
template <class T> bool call(int op, int64_t rows, int64_t cols, cudaStream_t s) {
  auto w = vector<const T>((const T*)g_w, cols);
  auto b = vector<const T>((const T*)g_w + 300000, cols);
  auto in = matrix<const T>((const T*)g_in, rows, cols);
  auto out = matrix<T>((T*)g_out, rows, cols);
  switch (op) {
    case 0: return (bool)layer_norm(in, out, w, b, 1e-5f, s);
    case 1: return (bool)rms_norm(in, out, w, 1e-6f, s);
    case 5: return (bool)softmax(in, out, s);
  }
  return false;
}
__global__ void dummy() { extern __shared__ char sm[]; if (threadIdx.x == 9999) sm[0] = 0; }
int main() {
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4); fill<<<256, 256>>>((float*)g_w, (8 << 20) / 4); CK(cudaDeviceSynchronize());
  // copy floor at the same sizes
  for (size_t bytes : {256ull << 20, 1024ull << 20}) {
    double t = time_us([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, bytes / 2, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("copy %zu MiB: %.2f us, %.0f GB/s\n", bytes >> 20, t, bytes / t / 1e3);
  }
  struct S { int op; int bf16; int64_t cols; };
  S shapes[] = {{5, 0, 262144}, {5, 1, 262144}, {5, 0, 152064}, {5, 1, 152064}, {5, 1, 65536}, {5, 0, 32768}, {5, 1, 32768},
                {0, 0, 65536}, {0, 1, 65536}, {1, 0, 65536}, {0, 1, 12288}};
  for (auto sh : shapes) {
    const int es = sh.bf16 ? 2 : 4;
    const int64_t R = (256ll << 20) / (2 * es * sh.cols);
    double t[3]; int64_t rr[3] = {R, 2 * R, 4 * R};
    for (int i = 0; i < 3; ++i)
      t[i] = time_us([&](cudaStream_t s) { return sh.bf16 ? call<__nv_bfloat16>(sh.op, rr[i], sh.cols, s) : call<float>(sh.op, rr[i], sh.cols, s); });
    const double bytesR = 2.0 * es * sh.cols * R;
    const double fixed = (4 * t[0] - t[2]) / 3, rate = 3 * bytesR / (t[2] - t[0]) / 1e3;
    printf("op %d %s %6lld cols: R=%lld %.2f us (%.0f GB/s)  2R %.2f us  4R %.2f us (%.0f GB/s)  fixed %.2f us  per-row %.0f GB/s\n",
           sh.op, sh.bf16 ? "bf16" : "fp32", (long long)sh.cols, (long long)R, t[0], bytesR / t[0] / 1e3, t[1], t[2], 4 * bytesR / t[2] / 1e3, fixed, rate);
  }
  // resident clusters for one-CTA-per-SM (and k-per-SM) kernels
  for (int smem_kib : {195, 96, 64}) {
    CK(cudaFuncSetAttribute(dummy, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_kib * 1024));
    CK(cudaFuncSetAttribute(dummy, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int c : {1, 2, 3, 4, 6, 8, 10, 12, 14, 16}) {
      cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1];
      cfg.gridDim = dim3(c); cfg.blockDim = dim3(512); cfg.dynamicSmemBytes = smem_kib * 1024;
      at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = c; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
      cfg.attrs = at; cfg.numAttrs = 1; int n = 0;
      cudaError_t e = cudaOccupancyMaxActiveClusters(&n, dummy, &cfg);
      printf("smem %d KiB cluster %2d: %d clusters (%d CTAs) %s\n", smem_kib, c, n, n * c, e == cudaSuccess ? "" : cudaGetErrorString(e));
    }
  }
  return 0;
}
