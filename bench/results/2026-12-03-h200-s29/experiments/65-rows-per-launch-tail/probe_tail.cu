// Session 29 probe: how a persistent cluster grid's last, partly busy row step costs. Time per
// launch (L2 flushed by memset as in the sweep, median of 15) at rows = k * clusters and at the
// sweep's rows between them.
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
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static double time_us(cudaStream_t s, const std::function<rowwise::status()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); if (!f().ok()) { printf("launch failed\n"); exit(1); }
    CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  return med(t);
}
template <class T>
void sweep_rows(const char* nm, int op, int64_t cols, std::vector<int64_t> rows_list, T* in, T* out, T* g, T* b, cudaStream_t s) {
  for (int round = 0; round < 2; ++round) {
    printf("%s %lld cols, round %d:", nm, (long long)cols, round);
    for (int64_t rows : rows_list) {
      auto f = [&]() -> rowwise::status {
        if (op == 0) return rowwise::layer_norm(rowwise::matrix<const T>(in, rows, cols), rowwise::matrix<T>(out, rows, cols),
                                                rowwise::vector<const T>(g, cols), rowwise::vector<const T>(b, cols), 1e-5f, s);
        if (op == 1) return rowwise::rms_norm(rowwise::matrix<const T>(in, rows, cols), rowwise::matrix<T>(out, rows, cols),
                                              rowwise::vector<const T>(g, cols), 1e-6f, s);
        return rowwise::softmax(rowwise::matrix<const T>(in, rows, cols), rowwise::matrix<T>(out, rows, cols), s);
      };
      printf("  %lld: %.2f", (long long)rows, time_us(s, f));
    }
    printf("\n");
  }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const size_t bytes = size_t(160) << 20;
  void *in, *out, *g, *b;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&g, 1 << 20)); CK(cudaMalloc(&b, 1 << 20));
  fillk<float><<<1024, 256>>>((float*)in, bytes / 4, 7, -2.f, 2.f);
  fillk<float><<<64, 256>>>((float*)g, (1 << 20) / 4, 3, 0.5f, 1.5f);
  fillk<float><<<64, 256>>>((float*)b, (1 << 20) / 4, 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  // layer_norm fp32 16384: 4 x 128 threads, 5 CTAs per SM -> up to 165 clusters
  sweep_rows<float>("layer_norm fp32", 0, 16384, {1155, 1320, 1485, 1650, 1815, 1980, 2048, 2145, 2310}, (float*)in, (float*)out, (float*)g, (float*)b, s);
  // rms_norm fp32 16384: 2 x 256, 3 per SM -> up to 198 clusters
  sweep_rows<float>("rms_norm fp32", 1, 16384, {1782, 1980, 2048, 2178, 2376}, (float*)in, (float*)out, (float*)g, (float*)b, s);
  sweep_rows<float>("softmax fp32", 2, 262144, {105, 112, 119, 126, 128, 133, 140}, (float*)in, (float*)out, (float*)g, (float*)b, s);
  fillk<__nv_bfloat16><<<1024, 256>>>((__nv_bfloat16*)in, bytes / 2, 7, -2.f, 2.f);
  fillk<__nv_bfloat16><<<64, 256>>>((__nv_bfloat16*)g, (1 << 20) / 2, 3, 0.5f, 1.5f);
  fillk<__nv_bfloat16><<<64, 256>>>((__nv_bfloat16*)b, (1 << 20) / 2, 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  sweep_rows<__nv_bfloat16>("softmax bf16", 2, 65536, {924, 990, 1024, 1056, 1122}, (__nv_bfloat16*)in, (__nv_bfloat16*)out, (__nv_bfloat16*)g, (__nv_bfloat16*)b, s);
  sweep_rows<__nv_bfloat16>("softmax bf16", 2, 262144, {210, 225, 240, 255, 256, 270}, (__nv_bfloat16*)in, (__nv_bfloat16*)out, (__nv_bfloat16*)g, (__nv_bfloat16*)b, s);
  sweep_rows<__nv_bfloat16>("layer_norm bf16", 0, 65536, {924, 990, 1024, 1056, 1122}, (__nv_bfloat16*)in, (__nv_bfloat16*)out, (__nv_bfloat16*)g, (__nv_bfloat16*)b, s);
  printf("done\n");
  return 0;
}
