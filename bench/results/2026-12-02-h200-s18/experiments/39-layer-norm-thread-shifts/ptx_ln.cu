#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
using T = __nv_bfloat16;
bool go(const T* i, T* o, const T* w, int64_t r, int64_t c, cudaStream_t s) {
  using namespace rowwise;
  return (bool)layer_norm(matrix<const T>(i, r, c), matrix<T>(o, r, c), vector<const T>(w, c), vector<const T>(w, c), 1e-5f, s)
      && (bool)layer_norm(matrix<const T>(i, r, c), matrix<T>(o, r, c), vector_view<const T>{}, vector_view<const T>{}, 1e-5f, s);
}
