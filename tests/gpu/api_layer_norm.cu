// tests/gpu/api_layer_norm.cu — rowwise::layer_norm instantiated for T in {float, __half,
// __nv_bfloat16} and W in {T, float} behind the plain function of api_wrappers.hpp.
#include <rowwise/layer_norm.cuh>

#include "gpu/api_types.cuh"

namespace rowwise_test {
namespace api {
namespace {

template <class T, class W>
rowwise::status layer_norm_t(mat in, mat out, vec gamma, vec beta, float eps, cudaStream_t stream,
                             float* mean, float* rstd) {
  const auto vout = rowwise::matrix(static_cast<T*>(out.data), out.rows, out.cols, out.stride);
  const auto g = rowwise::vector(static_cast<const W*>(gamma.data), gamma.size);
  const auto b = rowwise::vector(static_cast<const W*>(beta.data), beta.size);
  if (in.data != nullptr && in.data == out.data) {
    const auto vin = rowwise::matrix(static_cast<T*>(in.data), in.rows, in.cols, in.stride);
    return rowwise::layer_norm(vin, vout, g, b, eps, stream, mean, rstd);
  }
  const auto vin = rowwise::matrix(static_cast<const T*>(in.data), in.rows, in.cols, in.stride);
  return rowwise::layer_norm(vin, vout, g, b, eps, stream, mean, rstd);
}

}  // namespace

rowwise::status run_layer_norm(dtype t, wtype w, mat in, mat out, vec gamma, vec beta, float eps,
                               cudaStream_t stream, float* mean, float* rstd) {
  return with_types(t, w, "run_layer_norm: unknown dtype", [&](auto tt, auto wt) {
    return layer_norm_t<typename decltype(tt)::type, typename decltype(wt)::type>(in, out, gamma, beta, eps, stream,
                                                                                   mean, rstd);
  });
}

}  // namespace api
}  // namespace rowwise_test
