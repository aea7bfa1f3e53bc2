// tests/gpu/api_wrappers.hpp — the public rowwise API behind plain, non-template functions.
//
// The Catch cases (tests/gpu/test_softmax.cpp, test_norms.cpp) are compiled by the host compiler
// and cannot instantiate rowwise's templates (they hold kernels); tests/gpu/api_softmax.cu,
// api_layer_norm.cu and api_rms_norm.cu do, for every element type T (float, __half,
// __nv_bfloat16) and, for the norms, both weight types (W = T and W = float). These functions
// only convert the type-erased arguments into rowwise::matrix_view / vector_view and forward them:
// no validation, no synchronisation, no allocation of their own, so what the tests see (status,
// launches, bytes written) is the library's alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include <rowwise/status.hpp>

#include "support/device_matrix.hpp"

namespace rowwise_test {
namespace api {

/// A matrix_view with its element type erased: row r at data + r * stride elements.
struct mat {
  void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t stride = 0;
};

/// A vector_view with its element type erased (data null or size 0: absent).
struct vec {
  const void* data = nullptr;
  int64_t size = 0;
};

/// The weight type of a norm: the same as the matrices' T, or float.
enum class wtype { same, f32 };

inline const char* to_string(wtype w) { return w == wtype::same ? "W=T" : "W=float"; }
/// The dtype of the weights for matrices of type t.
inline dtype weight_dtype(dtype t, wtype w) { return w == wtype::same ? t : dtype::f32; }

inline mat as_mat(device_matrix& m) { return {m.data(), m.rows(), m.cols(), m.stride()}; }

/// rowwise::softmax (log = false) or rowwise::log_softmax (log = true) on matrices of type t.
/// When in.data == out.data (in place) the input is passed as matrix_view<T> (the non-const
/// overload of the template), else as matrix_view<const T>.
rowwise::status run_softmax(dtype t, bool log, mat in, mat out, cudaStream_t stream);

/// rowwise::layer_norm with gamma / beta of type weight_dtype(t, w) (each may be absent) and
/// optional fp32 mean / rstd outputs (rows floats each).
rowwise::status run_layer_norm(dtype t, wtype w, mat in, mat out, vec gamma, vec beta, float eps,
                               cudaStream_t stream, float* mean = nullptr, float* rstd = nullptr);

/// rowwise::rms_norm with an optional weight of type weight_dtype(t, w).
rowwise::status run_rms_norm(dtype t, wtype w, mat in, mat out, vec weight, float eps, cudaStream_t stream);

/// rowwise::fused_add_rms_norm: residual = round_T(x + residual); x = rms_norm(residual) * weight.
rowwise::status run_fused_add_rms_norm(dtype t, wtype w, mat x, mat residual, vec weight, float eps,
                                       cudaStream_t stream);

/// Fill n elements of type t at data with values uniform in [lo, hi) (each rounded once to T),
/// drawn from a hash of (seed, index): for the > 2^31-element tests, whose inputs are too large to
/// generate on the host. Launch errors are returned; nothing is synchronised.
cudaError_t fill_uniform_device(dtype t, void* data, int64_t n, uint64_t seed, float lo, float hi,
                                cudaStream_t stream);

}  // namespace api
}  // namespace rowwise_test
