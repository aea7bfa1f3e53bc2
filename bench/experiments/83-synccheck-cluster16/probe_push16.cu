// Prepared in session 33, not run: does compute-sanitizer synccheck stop on the library's push
// exchange (cluster_all_reduce: st.async into every peer's shared memory, counted on its
// transaction barrier) when two CTAs of one cluster share an SM? Session 33 saw an illegal address
// under synccheck for every library grid over clusters of 16 CTAs at two or more CTAs per SM, and
// none over clusters of 8 (which every GPC can hold one CTA per SM) or 16 at one CTA per SM (which
// only the GPCs of 16+ SMs hold). This kernel does only the exchange: each CTA's value is
// block_all_reduce'd, then cluster_all_reduce'd for `steps` row steps; it records each CTA's SM
// (%smid) so the log says whether CTAs of one cluster shared an SM.
// argv: block (32..512, a multiple of 32) cluster (2..16, a power of two) clusters steps [mode].
// mode (session 34): 0 the library's push exchange (default); 1 the same sums through two cluster
// barriers per step and loads from the peers' shared memory (no st.async, no transaction barrier);
// 2 the push exchange plus a row of global loads and stores per step (16 floats per thread).
#include <rowwise/primitives/block_all_reduce.cuh>
#include <rowwise/primitives/cluster_all_reduce.cuh>
#include <rowwise/reduce/max_sum.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 2;} } while (0)

// Mode 1's exchange: every CTA's value in its own shared memory, read by every peer between two
// cluster barriers (the second keeps the slot until every peer has read it).
__device__ float barrier_exchange(float cta, float* slot) {
  if (threadIdx.x == 0) *slot = cta;
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  const unsigned csize = rowwise::cluster_ctas();
  float total = 0.0f;
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(slot));
  for (unsigned r = 0; r < csize; ++r) {
    uint32_t remote; float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(r));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    total += v;
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  return total;
}

template <int Block>
__global__ void __launch_bounds__(Block) exchange(float* out, unsigned* sm_of, int steps, int mode, float* rows) {
  using block_reduce = rowwise::block_all_reduce<Block, rowwise::sum_reducer>;
  using cluster_reduce = rowwise::cluster_all_reduce<16, rowwise::sum_reducer>;
  __shared__ typename block_reduce::storage block_storage[2];
  __shared__ typename cluster_reduce::storage cluster_storage;
  __shared__ float barrier_slot;
  if (mode != 1) cluster_reduce::start(cluster_storage);
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (threadIdx.x == 0) sm_of[blockIdx.x] = sm;
  float last = 0.0f;
  for (int s = 0; s < steps; ++s) {
    // Thread 0 of each CTA contributes rank + step (exact in fp32): the cluster sum is known.
    const float mine = threadIdx.x == 0 ? static_cast<float>(cluster_reduce::rank() + s) : 0.0f;
    const float cta = block_reduce::reduce(mine, block_storage[s & 1], rowwise::sum_reducer{});
    if (mode == 2) {  // a row step's global traffic: 16 floats per thread read, scaled, written back
      float* seg = rows + (static_cast<size_t>(blockIdx.x) * Block + threadIdx.x) * 16;
#pragma unroll
      for (int i = 0; i < 16; ++i) seg[i] = seg[i] * 0.5f + 1.0f;
    }
    last = mode == 1 ? barrier_exchange(cta, &barrier_slot)
                     : cluster_reduce::reduce(cta, cluster_storage, s, rowwise::sum_reducer{});
  }
  if (mode != 1) cluster_reduce::finish(steps);
  if (threadIdx.x == 0) out[blockIdx.x] = last;
}

template <int Block>
int run(int cluster, int clusters, int steps, int mode) {
  const int ctas = cluster * clusters;
  float* out; unsigned* sm_of; float* rows;
  CK(cudaMalloc(&out, sizeof(float) * ctas)); CK(cudaMalloc(&sm_of, sizeof(unsigned) * ctas));
  CK(cudaMalloc(&rows, sizeof(float) * 16 * Block * ctas));
  CK(cudaMemset(rows, 0, sizeof(float) * 16 * Block * ctas));
  if (cluster > 8) CK(cudaFuncSetAttribute(exchange<Block>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(ctas); cfg.blockDim = dim3(Block);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr; cfg.numAttrs = 1;
  int active = 0; CK(cudaOccupancyMaxActiveClusters(&active, exchange<Block>, &cfg));
  CK(cudaLaunchKernelEx(&cfg, exchange<Block>, out, sm_of, steps, mode, rows));
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
  printf("mode %d block %d cluster %d clusters %d steps %d (max active %d): %s; clusters with two CTAs on one SM: %d\n",
         mode, Block, cluster, clusters, steps, active, bad ? "WRONG" : "ok", shared_sm_clusters);
  return bad ? 3 : 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 5) { printf("usage: probe_push16 block cluster clusters steps\n"); return 1; }
  const int block = atoi(argv[1]), cluster = atoi(argv[2]), clusters = atoi(argv[3]), steps = atoi(argv[4]);
  const int mode = argc > 5 ? atoi(argv[5]) : 0;
  switch (block) {
    case 32: return run<32>(cluster, clusters, steps, mode);
    case 128: return run<128>(cluster, clusters, steps, mode);
    case 160: return run<160>(cluster, clusters, steps, mode);
    case 256: return run<256>(cluster, clusters, steps, mode);
    case 512: return run<512>(cluster, clusters, steps, mode);
    default: printf("block must be 32, 128, 160, 256 or 512\n"); return 1;
  }
}
