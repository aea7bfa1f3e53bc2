// tests/gpu_compute80/api_builds.hpp — two builds of rowwise in one program, behind plain functions
// for the Catch cases of test_compute80.cpp:
//   compute80_build (api_compute80.cu): compiled for compute_80 PTX only (tests/CMakeLists.txt:
//     CUDA_ARCHITECTURES 80-virtual). On a newer GPU the driver JIT-compiles that PTX: the kernels
//     run with __CUDA_ARCH__ 800 (no clusters, bulk copies or grid-dependency control), which the
//     dispatch must plan for (dispatch/code_arch.cuh);
//   native_build (api_native.cu): compiled for the project's own CUDA targets.
// Both instantiate the same templates (rowwise::softmax<const float, float>, ...). Their target
// lists differ, so rowwise's inline ABI namespace (abi.hpp) makes them distinct symbols, each with
// its own kernels and plans; without it the linker would keep one host-side copy for both.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include <rowwise/status.hpp>

namespace rowwise_test {

/// One translation unit's instances of rowwise (api_build.inl defines them).
struct rowwise_build {
  const char* name;
  /// The ABI namespace its rowwise was compiled into (ROWWISE_ABI_NAMESPACE, as a string).
  const char* abi_namespace;
  /// The highest entry of its target list (__CUDA_ARCH_LIST__ / 10: 80 for compute_80).
  int highest_target;
  /// What its rowwise's dispatch reads as its kernels' target on the current device
  /// (dispatch::loaded_code_arch).
  cudaError_t (*loaded_code_arch)(int& arch);
  /// rowwise::softmax over fp32 rows (row r at in + r * stride).
  rowwise::status (*softmax_f32)(const float* in, float* out, int64_t rows, int64_t cols, int64_t stride,
                                 cudaStream_t stream);
  /// rowwise::layer_norm over bf16 rows (uint16_t: the raw bits), fp32 gamma and beta, fp32 mean / rstd.
  rowwise::status (*layer_norm_bf16)(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                                     const float* gamma, const float* beta, float eps, float* mean, float* rstd,
                                     cudaStream_t stream);
  /// rowwise::rms_norm over bf16 rows with a bf16 weight.
  rowwise::status (*rms_norm_bf16)(const uint16_t* in, uint16_t* out, int64_t rows, int64_t cols, int64_t stride,
                                   const uint16_t* weight, float eps, cudaStream_t stream);
};

extern const rowwise_build compute80_build;  // api_compute80.cu: compute_80 PTX only
extern const rowwise_build native_build;     // api_native.cu: the project's targets

}  // namespace rowwise_test
