// Session 20 probe: fixed cost per launch vs per-row rate (rows R and 4R, L2 flushed, median of 9),
// and resident clusters by cluster size for one-CTA-per-SM kernels.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#include <initializer_list>
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
  struct S { int op; int bf16; int64_t cols; std::vector<int64_t> rows; };
  std::vector<S> shapes = {
    {5, 0, 262144, {7, 14, 56, 112, 119, 126, 127, 128, 133, 140}},
    {5, 1, 262144, {15, 30, 120, 240, 255, 256, 257, 270}},
    {5, 1, 65536, {66, 132, 990, 1023, 1024, 1056, 1089}},
    {5, 0, 152064, {15, 30, 210, 220, 225}},
    {0, 0, 65536, {512}}};
  for (auto& sh : shapes) {
    const int es = sh.bf16 ? 2 : 4;
    for (int64_t r : sh.rows) {
      double t = time_us([&](cudaStream_t s) { return sh.bf16 ? call<__nv_bfloat16>(sh.op, r, sh.cols, s) : call<float>(sh.op, r, sh.cols, s); });
      const double bytes = 2.0 * es * sh.cols * r;
      printf("op %d %s %6lld cols %5lld rows: %8.2f us  %6.0f GB/s  %.3f us/row\n", sh.op, sh.bf16 ? "bf16" : "fp32", (long long)sh.cols, (long long)r, t, bytes / t / 1e3, t / r);
    }
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
