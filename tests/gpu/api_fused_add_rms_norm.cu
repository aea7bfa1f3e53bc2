// tests/gpu/api_fused_add_rms_norm.cu — rowwise::fused_add_rms_norm instantiated for T in
// {float, __half, __nv_bfloat16} and W in {T, float} behind the plain function of
// api_wrappers.hpp.
#include <rowwise/rms_norm.cuh>

#include "gpu/api_types.cuh"

namespace rowwise_test {
namespace api {
namespace {

template <class T, class W>
rowwise::status fused_t(mat x, mat residual, vec weight, float eps, cudaStream_t stream) {
  const auto vx = rowwise::matrix(static_cast<T*>(x.data), x.rows, x.cols, x.stride);
  const auto vr = rowwise::matrix(static_cast<T*>(residual.data), residual.rows, residual.cols, residual.stride);
  const auto w = rowwise::vector(static_cast<const W*>(weight.data), weight.size);
  return rowwise::fused_add_rms_norm(vx, vr, w, eps, stream);
}

}  // namespace

rowwise::status run_fused_add_rms_norm(dtype t, wtype w, mat x, mat residual, vec weight, float eps,
                                       cudaStream_t stream) {
  return with_types(t, w, "run_fused_add_rms_norm: unknown dtype", [&](auto tt, auto wt) {
    return fused_t<typename decltype(tt)::type, typename decltype(wt)::type>(x, residual, weight, eps, stream);
  });
}

}  // namespace api
}  // namespace rowwise_test
