// one call of each small-shape norm (for ncu): layer_norm without weights / rms_norm without weights, fp32 1 x 4096
#include <rowwise/rowwise.cuh>
#include <cstdio>
using namespace rowwise;
int main() {
  float *in, *out, *w; cudaMalloc(&in, 1 << 20); cudaMalloc(&out, 1 << 20); cudaMalloc(&w, 1 << 20);
  cudaMemset(in, 0, 1 << 20); cudaMemset(w, 0, 1 << 20);
  for (int i = 0; i < 3; ++i) {
    (void)layer_norm(matrix<const float>(in, 1, 4096), matrix<float>(out, 1, 4096), vector_view<const float>{}, vector_view<const float>{}, 1e-5f, 0);
    (void)rms_norm(matrix<const float>(in, 1, 4096), matrix<float>(out, 1, 4096), vector_view<const float>{}, 1e-5f, 0);
    (void)layer_norm(matrix<const float>(in, 1, 4096), matrix<float>(out, 1, 4096), vector<const float>(w, 4096), vector<const float>(w, 4096), 1e-5f, 0);
  }
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
