// Prepared in session 33, not run: does compute-sanitizer synccheck stop on the library's push
// exchange (cluster_all_reduce: st.async into every peer's shared memory, counted on its
// transaction barrier) when two CTAs of one cluster share an SM? Session 33 saw an illegal address
// under synccheck for every library grid over clusters of 16 CTAs at two or more CTAs per SM, and
// none over clusters of 8 (which every GPC can hold one CTA per SM) or 16 at one CTA per SM (which
// only the GPCs of 16+ SMs hold). This kernel does only the exchange: each CTA's value is
// block_all_reduce'd, then cluster_all_reduce'd for `steps` row steps; it records each CTA's SM
// (%smid) so the log says whether CTAs of one cluster shared an SM.
// argv: block (32..512, a multiple of 32) cluster (2..16, a power of two) clusters steps.
#include <rowwise/primitives/block_all_reduce.cuh>
#include <rowwise/primitives/cluster_all_reduce.cuh>
#include <rowwise/reduce/max_sum.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 2;} } while (0)

template <int Block>
__global__ void __launch_bounds__(Block) exchange(float* out, unsigned* sm_of, int steps) {
  using block_reduce = rowwise::block_all_reduce<Block, rowwise::sum_reducer>;
  using cluster_reduce = rowwise::cluster_all_reduce<16, rowwise::sum_reducer>;
  __shared__ typename block_reduce::storage block_storage[2];
  __shared__ typename cluster_reduce::storage cluster_storage;
  cluster_reduce::start(cluster_storage);
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of[blockIdx.x] = sm;
  float last = 0.0f;
  for (int s = 0; s < steps; ++s) {
    // Thread 0 of each CTA contributes rank + step (exact in fp32): the cluster sum is known.
    const float mine = threadIdx.x == 0 ? static_cast<float>(cluster_reduce::rank() + s) : 0.0f;
    const float cta = block_reduce::reduce(mine, block_storage[s & 1], rowwise::sum_reducer{});
    last = cluster_reduce::reduce(cta, cluster_storage, s, rowwise::sum_reducer{});
  }
  cluster_reduce::finish(steps);
  if (threadIdx.x == 0) out[blockIdx.x] = last;
}

template <int Block>
int run(int cluster, int clusters, int steps) {
  const int ctas = cluster * clusters;
  float* out; unsigned* sm_of;
  CK(cudaMalloc(&out, sizeof(float) * ctas)); CK(cudaMalloc(&sm_of, sizeof(unsigned) * ctas));
  if (cluster > 8) CK(cudaFuncSetAttribute(exchange<Block>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(ctas); cfg.blockDim = dim3(Block);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  int active = 0; CK(cudaOccupancyMaxActiveClusters(&active, exchange<Block>, &cfg));
  CK(cudaLaunchKernelEx(&cfg, exchange<Block>, out, sm_of, steps));
  CK(cudaDeviceSynchronize());
  std::vector<float> h(ctas); std::vector<unsigned> smv(ctas);
  CK(cudaMemcpy(h.data(), out, sizeof(float) * ctas, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(smv.data(), sm_of, sizeof(unsigned) * ctas, cudaMemcpyDeviceToHost));
  // Expected: sum over ranks r of (r + steps - 1).
  const float want = static_cast<float>(cluster * (cluster - 1) / 2 + cluster * (steps - 1));
  int bad = 0, shared_sm_clusters = 0;
  for (int c = 0; c < clusters; ++c) {
    bool shared = false;
    for (int i = 0; i < cluster; ++i) {
      if (h[c * cluster + i] != want) ++bad;
      for (int j = 0; j < i; ++j) shared |= smv[c * cluster + i] == smv[c * cluster + j];
    }
    shared_sm_clusters += shared;
  }
  printf("block %d cluster %d clusters %d steps %d (max active %d): %s; clusters with two CTAs on one SM: %d\n",
         Block, cluster, clusters, steps, active, bad ? "WRONG" : "ok", shared_sm_clusters);
  return bad ? 3 : 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 5) { printf("usage: probe_push16 block cluster clusters steps\n"); return 1; }
  const int block = atoi(argv[1]), cluster = atoi(argv[2]), clusters = atoi(argv[3]), steps = atoi(argv[4]);
  switch (block) {
    case 32: return run<32>(cluster, clusters, steps);
    case 128: return run<128>(cluster, clusters, steps);
    case 160: return run<160>(cluster, clusters, steps);
    case 256: return run<256>(cluster, clusters, steps);
    case 512: return run<512>(cluster, clusters, steps);
    default: printf("block must be 32, 128, 160, 256 or 512\n"); return 1;
  }
}
