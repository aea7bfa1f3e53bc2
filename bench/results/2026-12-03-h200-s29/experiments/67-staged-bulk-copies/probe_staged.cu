// Session 29 probe: the staged kernel's shapes at the sweep's sizes (L2 flushed by memset before
// each launch, median of 15, us per launch). Built against the library and against a variant.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
template <class T> __global__ void fillk(T* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (T)(lo + (hi - lo) * ((h & 0xffff) / 65536.0f));
  }
}
__global__ void cks(const unsigned* p, size_t n, unsigned long long* o) {
  unsigned long long a = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a += (unsigned long long)p[i] * (1 + (i & 1023));
  atomicAdd(o, a);
}
static unsigned long long* d_ck; static void* g_out; static size_t g_bytes;
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static cudaStream_t s;
static void time_us(const char* nm, double bytes, const std::function<rowwise::status()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); if (!f().ok()) { printf("launch failed\n"); exit(1); }
    CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaGetLastError());
  CK(cudaMemsetAsync(d_ck, 0, 8, s)); cks<<<264, 512, 0, s>>>((const unsigned*)g_out, g_bytes / 4, d_ck);
  unsigned long long h; CK(cudaMemcpyAsync(&h, d_ck, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s));
  printf("  %-34s %7.2f us  %5.0f GB/s  out %016llx\n", nm, med(t), bytes / med(t) / 1e3, h);
}
template <class T> void shapes(const char* dt, T* in, T* out, T* w) {
  const size_t B = sizeof(T);
  auto sm = [&](int64_t r, int64_t c, bool log) {
    char nm[64]; snprintf(nm, 64, "%s %s %lld x %lld", log ? "log_softmax" : "softmax", dt, (long long)r, (long long)c);
    time_us(nm, 2.0 * r * c * B, [&]() { auto i = rowwise::matrix<const T>(in, r, c); auto o = rowwise::matrix<T>(out, r, c);
      return log ? rowwise::log_softmax(i, o, s) : rowwise::softmax(i, o, s); });
  };
  auto fu = [&](int64_t r, int64_t c) {
    char nm[64]; snprintf(nm, 64, "fused_add_rms_norm %s %lld x %lld", dt, (long long)r, (long long)c);
    time_us(nm, 4.0 * r * c * B + c * B, [&]() { return rowwise::fused_add_rms_norm(rowwise::matrix<T>(in, r, c), rowwise::matrix<T>(out, r, c),
      rowwise::vector<const T>(w, c), 1e-6f, s); });
  };
  if (B == 4) { sm(128, 262144, false); sm(128, 262144, true); sm(256, 152064, false); fu(512, 65536); fu(1024, 16384); }
  else { sm(256, 262144, false); sm(256, 262144, true); sm(512, 152064, false); sm(1024, 65536, false); sm(1024, 65536, true); fu(1024, 65536); fu(4096, 12288); }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const size_t bytes = size_t(160) << 20;
  void *in, *out, *g;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&g, 1 << 20));
  CK(cudaMalloc(&d_ck, 8)); g_out = out; g_bytes = bytes;
  for (int round = 0; round < 2; ++round) {
    printf("round %d\n", round);
    fillk<float><<<1024, 256>>>((float*)in, bytes / 4, 7, -2.f, 2.f); fillk<float><<<1024, 256>>>((float*)out, bytes / 4, 9, -2.f, 2.f);
    fillk<float><<<64, 256>>>((float*)g, (1 << 20) / 4, 3, 0.5f, 1.5f);
    CK(cudaDeviceSynchronize());
    shapes<float>("fp32", (float*)in, (float*)out, (float*)g);
    fillk<__nv_bfloat16><<<1024, 256>>>((__nv_bfloat16*)in, bytes / 2, 7, -2.f, 2.f); fillk<__nv_bfloat16><<<1024, 256>>>((__nv_bfloat16*)out, bytes / 2, 9, -2.f, 2.f);
    fillk<__nv_bfloat16><<<64, 256>>>((__nv_bfloat16*)g, (1 << 20) / 2, 3, 0.5f, 1.5f);
    CK(cudaDeviceSynchronize());
    shapes<__nv_bfloat16>("bf16", (__nv_bfloat16*)in, (__nv_bfloat16*)out, (__nv_bfloat16*)g);
  }
  printf("done\n");
  return 0;
}
