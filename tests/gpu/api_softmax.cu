// tests/gpu/api_softmax.cu — rowwise::softmax / log_softmax instantiated for float, __half and
// __nv_bfloat16 behind the plain functions of api_wrappers.hpp; and the device-side input fill
// of the > 2^31-element tests.
#include <rowwise/softmax.cuh>

#include "gpu/api_wrappers.hpp"

namespace rowwise_test {
namespace api {
namespace {

template <class T>
rowwise::status softmax_t(bool log, mat in, mat out, cudaStream_t stream) {
  const auto vout = rowwise::matrix(static_cast<T*>(out.data), out.rows, out.cols, out.stride);
  if (in.data != nullptr && in.data == out.data) {
    // In place: the input view is mutable (In = T), the other overload of the template.
    const auto vin = rowwise::matrix(static_cast<T*>(in.data), in.rows, in.cols, in.stride);
    return log ? rowwise::log_softmax(vin, vout, stream) : rowwise::softmax(vin, vout, stream);
  }
  const auto vin = rowwise::matrix(static_cast<const T*>(in.data), in.rows, in.cols, in.stride);
  return log ? rowwise::log_softmax(vin, vout, stream) : rowwise::softmax(vin, vout, stream);
}

__device__ __forceinline__ uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__global__ void fill_uniform_kernel(T* data, int64_t n, uint64_t seed, float lo, float width) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const uint64_t h = mix64(seed ^ mix64(static_cast<uint64_t>(i)));
    const float u = static_cast<float>(h >> 40) * 0x1.0p-24f;  // 24 random bits: exact, in [0, 1)
    data[i] = rowwise::from_float<T>(lo + width * u);
  }
}

template <class T>
cudaError_t fill_t(void* data, int64_t n, uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  int sms = 0, dev = 0;
  if (cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev); e != cudaSuccess) return e;
  const int64_t want = (n + 255) / 256;
  const unsigned grid = static_cast<unsigned>(want < int64_t{sms} * 8 ? want : int64_t{sms} * 8);
  fill_uniform_kernel<T><<<grid, 256, 0, stream>>>(static_cast<T*>(data), n, seed, lo, hi - lo);
  return cudaGetLastError();
}

}  // namespace

rowwise::status run_softmax(dtype t, bool log, mat in, mat out, cudaStream_t stream) {
  switch (t) {
    case dtype::f32: return softmax_t<float>(log, in, out, stream);
    case dtype::f16: return softmax_t<__half>(log, in, out, stream);
    case dtype::bf16: return softmax_t<__nv_bfloat16>(log, in, out, stream);
  }
  return rowwise::status::invalid("run_softmax: unknown dtype");
}

cudaError_t fill_uniform_device(dtype t, void* data, int64_t n, uint64_t seed, float lo, float hi,
                                cudaStream_t stream) {
  switch (t) {
    case dtype::f32: return fill_t<float>(data, n, seed, lo, hi, stream);
    case dtype::f16: return fill_t<__half>(data, n, seed, lo, hi, stream);
    case dtype::bf16: return fill_t<__nv_bfloat16>(data, n, seed, lo, hi, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace api
}  // namespace rowwise_test
