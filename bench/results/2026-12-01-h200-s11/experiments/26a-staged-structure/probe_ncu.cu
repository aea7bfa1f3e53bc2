// Lead's scratch (session 11): one library call per process for ncu (op dtype cols), 256 MiB of traffic.
#include <rowwise/rowwise.cuh>
#include <cstdio>
#include <cstdlib>
#include <cstring>
using namespace rowwise;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class T> int go(const char* op, int64_t cols) {
  void *in, *out, *w;
  cudaMalloc(&in, 300 << 20); cudaMalloc(&out, 300 << 20); cudaMalloc(&w, 4 << 20);
  fill<<<2048, 256>>>((T*)in, (300ll << 20) / sizeof(T)); fill<<<256, 256>>>((T*)w, (4 << 20) / sizeof(T));
  const int64_t rows = (256ll << 20) / (2 * cols * (int64_t)sizeof(T));
  auto i = matrix<const T>((const T*)in, rows, cols); auto o = matrix<T>((T*)out, rows, cols);
  auto g = vector<const T>((const T*)w, cols); auto b = vector<const T>((const T*)w + 300000, cols);
  for (int r = 0; r < 2; ++r) {
    status s;
    if (!strcmp(op, "softmax")) s = softmax(i, o, 0);
    else if (!strcmp(op, "layer_norm")) s = layer_norm(i, o, g, b, 1e-5f, 0);
    else if (!strcmp(op, "rms_norm")) s = rms_norm(i, o, g, 1e-6f, 0);
    if (!s) { printf("failed\n"); return 1; }
  }
  cudaDeviceSynchronize();
  printf("%s %s %lld x %lld done\n", op, sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols);
  return 0;
}
int main(int argc, char** argv) {
  const int64_t cols = atoll(argv[3]);
  return !strcmp(argv[2], "fp32") ? go<float>(argv[1], cols) : go<__nv_bfloat16>(argv[1], cols);
}
