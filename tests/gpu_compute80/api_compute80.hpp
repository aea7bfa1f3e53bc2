// tests/gpu_compute80/api_compute80.hpp — rowwise instantiated in a translation unit compiled for
// compute_80 PTX only (tests/CMakeLists.txt: CUDA_ARCHITECTURES 80-virtual), behind plain
// functions for the Catch cases of test_compute80.cpp. On a newer GPU the driver JIT-compiles that
// PTX: the kernels run with __CUDA_ARCH__ 800 (no clusters, bulk copies or grid-dependency
// control), which the dispatch must plan for (dispatch/code_arch.cuh).
//
// A binary of its own: the same kernel templates instantiated in an sm_90 translation unit of the
// same program would share their host-side names with these, and the runtime would launch one
// image for both.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include <rowwise/status.hpp>

namespace rowwise_test {
namespace compute80 {

/// What rowwise's dispatch reads as its kernels' target on the current device
/// (dispatch::loaded_code_arch: 80 when the compute_80 PTX was JIT-compiled for it).
cudaError_t loaded_code_arch(int& arch);

/// rowwise::softmax over fp32 rows (row r at in + r * stride).
rowwise::status softmax_f32(const float* in, float* out, int64_t rows, int64_t cols, int64_t stride,
                            cudaStream_t stream);

/// rowwise::layer_norm over bf16 rows (uint16_t: the raw bits), fp32 gamma and beta, fp32 mean / rstd.
rowwise::status layer_norm_bf16(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                                const float* gamma, const float* beta, float eps, float* mean, float* rstd,
                                cudaStream_t stream);

/// rowwise::rms_norm over bf16 rows with a bf16 weight.
rowwise::status rms_norm_bf16(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                              const uint16_t* weight, float eps, cudaStream_t stream);

}  // namespace compute80
}  // namespace rowwise_test
