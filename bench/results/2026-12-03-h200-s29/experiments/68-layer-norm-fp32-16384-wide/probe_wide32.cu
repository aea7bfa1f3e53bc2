// Session 29 probe: layer_norm / rms_norm fp32 2048 x 16384 on one CTA of 256 threads x 64 values
// per row (no cluster, 2 CTAs per SM at 128 registers, weights from L2 at the write-back) and on
// clusters of 2 CTAs of 128 threads x 64 values, against the library's plan (layer_norm: clusters
// of 4 CTAs of 128 x 32, five per SM). L2 flushed by memset before each launch (as the sweep),
// median of 15, us per launch; outputs compared with the library's.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
__global__ void fillk(float* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = lo + (hi - lo) * ((h & 0xffff) / 65536.0f);
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static cudaStream_t s;
static double time_us(const std::function<void()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); f(); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaGetLastError());
  return med(t);
}
template <class K, class Op>
void launch(K kern, int cluster, int block, int64_t grid, kernels::row_io<float> io, Op op, int64_t seg) {
  cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute attr[1];
  cfg.gridDim = dim3((unsigned)grid); cfg.blockDim = dim3(block); cfg.stream = s;
  if (cluster > 1) { attr[0].id = cudaLaunchAttributeClusterDimension; attr[0].val.clusterDim.x = cluster; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1; cfg.attrs = attr; cfg.numAttrs = 1; }
  CK(cudaLaunchKernelEx(&cfg, kern, io, op, seg));
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const int64_t rows = 2048, cols = 16384;
  const size_t bytes = rows * cols * 4;
  float *in, *out, *ref, *g, *b;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&ref, bytes)); CK(cudaMalloc(&g, cols * 4)); CK(cudaMalloc(&b, cols * 4));
  fillk<<<1024, 256>>>(in, bytes / 4, 7, -2.f, 2.f); fillk<<<64, 256>>>(g, cols, 3, 0.5f, 1.5f); fillk<<<64, 256>>>(b, cols, 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  kernels::layer_norm_op<float> ln; ln.gamma = g; ln.beta = b; ln.mean_out = nullptr; ln.rstd_out = nullptr; ln.eps = 1e-5f; ln.cols = cols;
  const kernels::rms_norm_op<float, false> rms{{}, g, 1e-6f, cols};
  kernels::row_io<float> io{in, out, nullptr, rows, cols, cols, cols, cols};
  auto ln_w1 = &kernels::registers_kernel<kernels::layer_norm_op<float>, float, 4, 256, 16, 256, false>;
  auto ln_c2 = &kernels::registers_kernel<kernels::layer_norm_op<float>, float, 4, 128, 16, 128, false>;
  auto rms_w1 = &kernels::registers_kernel<kernels::rms_norm_op<float, false>, float, 4, 256, 16, 256, false>;
  auto lib_ln = [&](float* o) { if (!layer_norm(matrix<const float>(in, rows, cols), matrix<float>(o, rows, cols), vector<const float>(g, cols), vector<const float>(b, cols), 1e-5f, s).ok()) exit(1); };
  auto lib_rms = [&](float* o) { if (!rms_norm(matrix<const float>(in, rows, cols), matrix<float>(o, rows, cols), vector<const float>(g, cols), 1e-6f, s).ok()) exit(1); };
  auto maxdiff = [&]() { std::vector<float> a(bytes / 4), c(bytes / 4); CK(cudaMemcpy(a.data(), out, bytes, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(c.data(), ref, bytes, cudaMemcpyDeviceToHost));
    double m = 0; for (size_t i = 0; i < a.size(); ++i) m = std::max(m, (double)std::fabs(a[i] - c[i])); return m; };
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, ln_w1)); printf("ln 256x64: %d regs, %zu local\n", fa.numRegs, fa.localSizeBytes);
  CK(cudaFuncGetAttributes(&fa, ln_c2)); printf("ln c2 128x64: %d regs, %zu local\n", fa.numRegs, fa.localSizeBytes);
  CK(cudaFuncGetAttributes(&fa, rms_w1)); printf("rms 256x64: %d regs, %zu local\n", fa.numRegs, fa.localSizeBytes);
  // correctness against the library
  lib_ln(ref); launch(ln_w1, 1, 256, rows, io, ln, 4096); CK(cudaDeviceSynchronize()); printf("ln 256x64 max |diff| %.3g\n", maxdiff());
  CK(cudaMemset(out, 0, bytes)); launch(ln_c2, 2, 128, 2 * rows, io, ln, 2048); CK(cudaDeviceSynchronize()); printf("ln c2 max |diff| %.3g\n", maxdiff());
  lib_rms(ref); CK(cudaMemset(out, 0, bytes)); launch(rms_w1, 1, 256, rows, io, rms, 4096); CK(cudaDeviceSynchronize()); printf("rms 256x64 max |diff| %.3g\n", maxdiff());
  for (int round = 0; round < 3; ++round) {
    printf("round %d: ln lib %.2f  ln 256x64 %.2f  ln c2 128x64 %.2f  ln c2 persistent %.2f | rms lib %.2f  rms 256x64 %.2f\n", round,
           time_us([&] { lib_ln(out); }), time_us([&] { launch(ln_w1, 1, 256, rows, io, ln, 4096); }),
           time_us([&] { launch(ln_c2, 2, 128, 2 * rows, io, ln, 2048); }),
           time_us([&] { launch(ln_c2, 2, 128, 2 * 132 * 4, io, ln, 2048); }),
           time_us([&] { lib_rms(out); }), time_us([&] { launch(rms_w1, 1, 256, rows, io, rms, 4096); }));
  }
  printf("done\n");
}
