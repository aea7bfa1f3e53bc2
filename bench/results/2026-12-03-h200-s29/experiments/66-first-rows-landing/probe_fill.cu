// Session 29 probe: how fast a staged kernel's first rows can land. Each CTA (one per SM, 512
// threads) copies S bytes of its own into shared memory, by per-thread cp.async (the staged
// kernel's form) or by bulk copies (cp.async.bulk, the TMA engine) completing on an mbarrier.
// Stamps (globaltimer) per CTA: first entry to last landing over the grid. L2 flushed by memset
// (dirty, as in the sweep) before each launch. Also a plain read-only kernel's rate.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
__device__ __forceinline__ uint64_t gtime() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void k_cpasync(const char* src, int64_t S, uint64_t* stamps) {
  extern __shared__ __align__(16) unsigned char sm[];
  uint64_t t0 = gtime();
  const char* my = src + blockIdx.x * S;
  for (int64_t off = threadIdx.x * 16; off < S; off += blockDim.x * 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint32_t)__cvta_generic_to_shared(sm + off)), "l"(my + off) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) { stamps[2 * blockIdx.x] = t0; stamps[2 * blockIdx.x + 1] = gtime(); }
  if (sm[threadIdx.x] == 0xEE && sm[S - 1 - threadIdx.x] == 0xEF) stamps[0] = 0;  // keep
}
__global__ void k_bulk(const char* src, int64_t S, int chunk, uint64_t* stamps) {
  extern __shared__ __align__(16) unsigned char sm[];
  __shared__ __align__(8) uint64_t bar;
  uint64_t t0 = gtime();
  const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const char* my = src + blockIdx.x * S;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"((uint32_t)S) : "memory");
    for (int64_t off = 0; off < S; off += chunk)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"((uint32_t)__cvta_generic_to_shared(sm + off)), "l"(my + off), "r"(chunk), "r"(b) : "memory");
  }
  uint32_t done = 0;
  while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b) : "memory");
  if (threadIdx.x == 0) { stamps[2 * blockIdx.x] = t0; stamps[2 * blockIdx.x + 1] = gtime(); }
  if (sm[threadIdx.x] == 0xEE && sm[S - 1 - threadIdx.x] == 0xEF) stamps[0] = 0;
}
__global__ void k_read(const int4* p, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { int4 v = p[i]; acc ^= v.x ^ v.w; }
  if (acc == 0x7fffffff) *sink = acc;
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  void* flushbuf; size_t fb = size_t(120) << 20; CK(cudaMalloc(&flushbuf, fb));
  char* src; size_t sb = size_t(256) << 20; CK(cudaMalloc(&src, sb)); CK(cudaMemset(src, 1, sb));
  uint64_t* st; CK(cudaMalloc(&st, 2 * 1024 * 8)); int* sink; CK(cudaMalloc(&sink, 4));
  CK(cudaFuncSetAttribute(k_cpasync, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
  CK(cudaFuncSetAttribute(k_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
  std::vector<uint64_t> h(2 * 1024);
  for (int dirty = 1; dirty >= 0; --dirty)
  for (int grid : {112, 132})
    for (int64_t S : {int64_t(64) << 10, int64_t(128) << 10, int64_t(192) << 10})
      for (int form = 0; form < 3; ++form) {
        std::vector<double> span, mean_lat;
        for (int r = 0; r < 12; ++r) {
          if (dirty) CK(cudaMemset(flushbuf, r, fb)); else k_read<<<528, 512>>>((const int4*)flushbuf, fb / 16, sink);
          CK(cudaDeviceSynchronize());
          if (form == 0) k_cpasync<<<grid, 512, S>>>(src, S, st);
          else k_bulk<<<grid, 512, S>>>(src, S, form == 1 ? 16384 : 4096, st);
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(h.data(), st, 2 * grid * 8, cudaMemcpyDeviceToHost));
          uint64_t lo = ~0ull, hi = 0; double sum = 0;
          for (int i = 0; i < grid; ++i) { lo = std::min(lo, h[2 * i]); hi = std::max(hi, h[2 * i + 1]); sum += h[2 * i + 1] - h[2 * i]; }
          if (r) { span.push_back((hi - lo) / 1e3); mean_lat.push_back(sum / grid / 1e3); }
        }
        const double sp = med(span);
        printf("%s grid %3d  %3lld KiB/CTA  %-12s  span %.2f us (%.0f GB/s)  mean CTA %.2f us\n", dirty ? "memset-flush" : "read-flush  ", grid, (long long)(S >> 10),
               form == 0 ? "cp.async" : form == 1 ? "bulk 16K" : "bulk 4K", sp, grid * S / sp / 1e3, med(mean_lat));
      }
  // read-only rate, 256 MiB
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int blocks : {132 * 4, 132 * 8}) {
    std::vector<double> t;
    for (int r = 0; r < 10; ++r) {
      CK(cudaMemset(flushbuf, r, fb));
      CK(cudaEventRecord(a)); k_read<<<blocks, 512>>>((const int4*)src, sb / 16, sink); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r) t.push_back(ms * 1e3);
    }
    printf("read-only 256 MiB, %d x 512 threads: %.2f us, %.0f GB/s\n", blocks, med(t), sb / med(t) / 1e3);
  }
  printf("done\n");
}
