// Lead's scratch (session 5): resident clusters the launcher computes for the chunked (streaming)
// and registers kernels, and time per row step of streaming over clusters of 1-16.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void *g_in, *g_out;

template <class T, class Op> void occ(const plan& pl, const char* what) {
  constexpr int N = 16 / sizeof(T);
  auto kernel = kernel_for<Op, T, N>(pl);
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kernel));
  if (pl.cluster > 8) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(pl.block);
  config.gridDim = dim3(pl.cluster);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = pl.cluster; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  config.attrs = attr; config.numAttrs = 1;
  int clusters = -1; cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
  int per_sm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, pl.block, 0));
  printf("%-10s C%-2d block %4d regs %3d smem %5zu | blocks/SM %d | max active clusters %4d (%s)\n", what, pl.cluster, pl.block,
         fa.numRegs, fa.sharedSizeBytes, per_sm, clusters, cudaGetErrorString(e));
}

int main() {
  device_limits dev; current_device_limits(dev);
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20));
  CK(cudaMemset(g_in, 0, 520ll << 20));
  using T = float; constexpr int N = 4;
  using Op = kernels::softmax_op<false>;
  for (int64_t cols : {16384, 65536}) {
    problem p; p.rows = 4096; p.cols = cols; p.elem_bytes = 4; p.pack_elems = N; p.head = 0;
    const int64_t packs = row_packs_for(cols, N, 0);
    for (int c : {1, 2, 4, 8, 16}) {
      occ<T, Op>(make_chunked_plan(p, false, c, ceil_div(packs, c)), "streaming");
      const int64_t seg = ceil_div(packs, c);
      const int cfg = first_registers_config(seg, N, 64);
      if (c > 1 && cfg >= 0) occ<T, Op>(make_registers_plan(p, cfg, c, seg), "registers");
    }
  }
  // Time of streaming softmax fp32 16384 over clusters of c, for growing row counts.
  for (int c : {1, 2, 4, 8}) {
    printf("stream C%d 16384 fp32 us:", c);
    for (int64_t rows : {1, 8, 64, 256, 1024, 4096}) {
      problem p; p.rows = rows; p.cols = 16384; p.elem_bytes = 4; p.pack_elems = N; p.head = 0;
      plan pl = make_chunked_plan(p, false, c, ceil_div(4096, c));
      kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, 16384, 16384, 16384, 16384};
      CK(cudaDeviceSynchronize());
      cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
      for (int i = 0; i < 5; ++i) { cudaEventRecord(a); auto s = launch_plan<softmax_messages, Op, T, N>(pl, io, Op{}, dev, 0); if (!s) { printf("%s\n", s.message()); exit(1);} cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
      std::sort(ts.begin(), ts.end());
      printf(" %lld:%.1f", (long long)rows, ts[2] * 1000);
    }
    printf("\n");
  }
  return 0;
}
