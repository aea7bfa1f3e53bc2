// session 7 scratch (reused in session 9): one library call per listed shape (twice), for ncu. Random data.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
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
template <class T> void run(const char* op, int64_t rows, int64_t cols) {
  T *in, *out, *w; size_t n = (size_t)rows * cols;
  cudaMalloc(&in, n * sizeof(T)); cudaMalloc(&out, n * sizeof(T)); cudaMalloc(&w, cols * sizeof(T));
  fill<<<1024, 256>>>(in, n); fill<<<64, 256>>>(w, cols);
  for (int i = 0; i < 2; ++i) {
    status s;
    if (!strcmp(op, "softmax")) s = softmax(matrix<const T>(in, rows, cols), matrix<T>(out, rows, cols), 0);
    else if (!strcmp(op, "layer_norm")) s = layer_norm(matrix<const T>(in, rows, cols), matrix<T>(out, rows, cols), vector<const T>(w, cols), vector<const T>(w, cols), 1e-5f, 0);
    else s = rms_norm(matrix<const T>(in, rows, cols), matrix<T>(out, rows, cols), vector<const T>(w, cols), 1e-5f, 0);
    if (!s) { printf("%s\n", s.message()); exit(1); }
  }
  printf("%s %lld x %lld: %s\n", op, (long long)rows, (long long)cols, cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(in); cudaFree(out); cudaFree(w);
}
int main(int argc, char** argv) {
  // argv: op dtype rows cols
  const char* op = argv[1]; const char* dt = argv[2]; int64_t rows = atoll(argv[3]), cols = atoll(argv[4]);
  if (!strcmp(dt, "fp32")) run<float>(op, rows, cols);
  else run<__nv_bfloat16>(op, rows, cols);
}
