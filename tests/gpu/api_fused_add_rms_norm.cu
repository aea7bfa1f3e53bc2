// tests/gpu/api_fused_add_rms_norm.cu — rowwise::fused_add_rms_norm instantiated for T in
// {float, __half, __nv_bfloat16} and W in {T, float} behind the plain function of
// api_wrappers.hpp.
#include <rowwise/rms_norm.cuh>

#include "gpu/api_wrappers.hpp"

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

template <class T>
rowwise::status fused_w(wtype w, mat x, mat residual, vec weight, float eps, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float>) {
    (void)w;
    return fused_t<float, float>(x, residual, weight, eps, stream);
  } else {
    return w == wtype::same ? fused_t<T, T>(x, residual, weight, eps, stream)
                            : fused_t<T, float>(x, residual, weight, eps, stream);
  }
}

}  // namespace

rowwise::status run_fused_add_rms_norm(dtype t, wtype w, mat x, mat residual, vec weight, float eps,
                                       cudaStream_t stream) {
  switch (t) {
    case dtype::f32: return fused_w<float>(w, x, residual, weight, eps, stream);
    case dtype::f16: return fused_w<__half>(w, x, residual, weight, eps, stream);
    case dtype::bf16: return fused_w<__nv_bfloat16>(w, x, residual, weight, eps, stream);
  }
  return rowwise::status::invalid("run_fused_add_rms_norm: unknown dtype");
}

}  // namespace api
}  // namespace rowwise_test
