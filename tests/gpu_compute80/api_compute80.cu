// tests/gpu_compute80/api_compute80.cu — see api_compute80.hpp. Compiled for compute_80 PTX only.
#include <rowwise/rowwise.cuh>

#include <cuda_bf16.h>

#include "gpu_compute80/api_compute80.hpp"

namespace rowwise_test {
namespace compute80 {

cudaError_t loaded_code_arch(int& arch) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  return rowwise::dispatch::loaded_code_arch(device, arch);
}

rowwise::status softmax_f32(const float* in, float* out, int64_t rows, int64_t cols, int64_t stride,
                            cudaStream_t stream) {
  return rowwise::softmax(rowwise::matrix(in, rows, cols, stride), rowwise::matrix(out, rows, cols, stride), stream);
}

namespace {
const __nv_bfloat16* bf16(const uint16_t* p) { return reinterpret_cast<const __nv_bfloat16*>(p); }
__nv_bfloat16* bf16(uint16_t* p) { return reinterpret_cast<__nv_bfloat16*>(p); }
}  // namespace

rowwise::status layer_norm_bf16(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                                const float* gamma, const float* beta, float eps, float* mean, float* rstd,
                                cudaStream_t stream) {
  return rowwise::layer_norm(rowwise::matrix(bf16(in), rows, cols, stride), rowwise::matrix(bf16(out), rows, cols, stride),
                             rowwise::vector(gamma, cols), rowwise::vector(beta, cols), eps, stream, mean, rstd);
}

rowwise::status rms_norm_bf16(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                              const uint16_t* weight, float eps, cudaStream_t stream) {
  return rowwise::rms_norm(rowwise::matrix(bf16(in), rows, cols, stride), rowwise::matrix(bf16(out), rows, cols, stride),
                           rowwise::vector(bf16(weight), cols), eps, stream);
}

}  // namespace compute80
}  // namespace rowwise_test
