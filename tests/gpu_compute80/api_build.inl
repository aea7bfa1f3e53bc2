// tests/gpu_compute80/api_build.inl — the body of one rowwise_build (api_builds.hpp), included by
// api_compute80.cu and api_native.cu, which differ only in the targets they are compiled for.
// The includer defines ROWWISE_TEST_BUILD (the rowwise_build object's name).
#include <rowwise/rowwise.cuh>

#include <cuda_bf16.h>

#include <algorithm>
#include <initializer_list>

#include "gpu_compute80/api_builds.hpp"

#define ROWWISE_TEST_STR_(...) #__VA_ARGS__
#define ROWWISE_TEST_STR(...) ROWWISE_TEST_STR_(__VA_ARGS__)

namespace rowwise_test {
namespace {

cudaError_t loaded_code_arch(int& arch) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  return rowwise::dispatch::loaded_code_arch(device, arch);
}

rowwise::status softmax_f32(const float* in, float* out, int64_t rows, int64_t cols, int64_t stride,
                            cudaStream_t stream) {
  return rowwise::softmax(rowwise::matrix(in, rows, cols, stride), rowwise::matrix(out, rows, cols, stride), stream);
}

const __nv_bfloat16* bf16(const uint16_t* p) { return reinterpret_cast<const __nv_bfloat16*>(p); }
__nv_bfloat16* bf16(uint16_t* p) { return reinterpret_cast<__nv_bfloat16*>(p); }

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

}  // namespace

extern const rowwise_build ROWWISE_TEST_BUILD;
const rowwise_build ROWWISE_TEST_BUILD{
    ROWWISE_TEST_STR(ROWWISE_TEST_BUILD),
    ROWWISE_TEST_STR(ROWWISE_ABI_NAMESPACE),
    std::max({__CUDA_ARCH_LIST__}) / 10,
    &loaded_code_arch,
    &softmax_f32,
    &layer_norm_bf16,
    &rms_norm_bf16,
};

}  // namespace rowwise_test
