// tests/gpu/api_rms_norm.cu — rowwise::rms_norm instantiated for T in {float, __half,
// __nv_bfloat16} and W in {T, float} behind the plain function of api_wrappers.hpp.
// (fused_add_rms_norm is in api_fused_add_rms_norm.cu: one op per file keeps each under the
// compile-time budget.)
#include <rowwise/rms_norm.cuh>

#include "gpu/api_types.cuh"

namespace rowwise_test {
namespace api {
namespace {

template <class T, class W>
rowwise::status rms_norm_t(mat in, mat out, vec weight, float eps, cudaStream_t stream) {
  const auto vout = rowwise::matrix(static_cast<T*>(out.data), out.rows, out.cols, out.stride);
  const auto w = rowwise::vector(static_cast<const W*>(weight.data), weight.size);
  if (in.data != nullptr && in.data == out.data) {
    const auto vin = rowwise::matrix(static_cast<T*>(in.data), in.rows, in.cols, in.stride);
    return rowwise::rms_norm(vin, vout, w, eps, stream);
  }
  const auto vin = rowwise::matrix(static_cast<const T*>(in.data), in.rows, in.cols, in.stride);
  return rowwise::rms_norm(vin, vout, w, eps, stream);
}

}  // namespace

rowwise::status run_rms_norm(dtype t, wtype w, mat in, mat out, vec weight, float eps, cudaStream_t stream) {
  return with_types(t, w, "run_rms_norm: unknown dtype", [&](auto tt, auto wt) {
    return rms_norm_t<typename decltype(tt)::type, typename decltype(wt)::type>(in, out, weight, eps, stream);
  });
}

}  // namespace api
}  // namespace rowwise_test
