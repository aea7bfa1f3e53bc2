// A minimal rowwise consumer (also the README's usage example): softmax and RMSNorm of a small
// bf16 matrix through the public API, checked on the host. It is a build test first: without
// a GPU it says so and succeeds.
#include <rowwise/rowwise.cuh>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: built; no CUDA device, nothing to run\n");
    return 0;
  }
  constexpr int64_t rows = 4, cols = 1000;
  std::vector<__nv_bfloat16> host(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) host[i] = __float2bfloat16(static_cast<float>(i % 97) / 10.0f);
  std::vector<float> weight(cols, 2.0f);

  __nv_bfloat16 *x = nullptr, *y = nullptr;
  float* w = nullptr;
  cudaMalloc(&x, rows * cols * sizeof(__nv_bfloat16));
  cudaMalloc(&y, rows * cols * sizeof(__nv_bfloat16));
  cudaMalloc(&w, cols * sizeof(float));
  cudaMemcpy(x, host.data(), rows * cols * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);
  cudaMemcpy(w, weight.data(), cols * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // y = softmax(x) row by row; then x = rms_norm(x) * w in place (bf16 data, fp32 weight).
  rowwise::status s = rowwise::softmax(rowwise::matrix<const __nv_bfloat16>(x, rows, cols),
                                       rowwise::matrix(y, rows, cols), stream);
  if (s) s = rowwise::rms_norm(rowwise::matrix<const __nv_bfloat16>(x, rows, cols),
                               rowwise::matrix(x, rows, cols), rowwise::vector<const float>(w, cols),
                               1e-6f, stream);
  if (!s) {
    std::printf("consumer: %s (%s)\n", s.message(), cudaGetErrorString(s.cuda_error()));
    return 1;
  }
  std::vector<__nv_bfloat16> sm(rows * cols), rn(rows * cols);
  cudaMemcpyAsync(sm.data(), y, sm.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(rn.data(), x, rn.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost, stream);
  if (cudaStreamSynchronize(stream) != cudaSuccess) return 1;

  // Row 0 against fp64: softmax sums to 1; RMSNorm element 5.
  double sum = 0.0, ss = 0.0;
  for (int64_t c = 0; c < cols; ++c) sum += __bfloat162float(sm[c]);
  for (int64_t c = 0; c < cols; ++c) ss += std::pow(__bfloat162float(host[c]), 2);
  const double ref5 = __bfloat162float(host[5]) / std::sqrt(ss / cols + 1e-6) * 2.0;
  const bool good = std::fabs(sum - 1.0) < 0.02 && std::fabs(__bfloat162float(rn[5]) - ref5) < 0.01 * ref5;
  std::printf("consumer: softmax row sum %.4f, rms_norm[5] %.4f (ref %.4f): %s\n", sum,
              __bfloat162float(rn[5]), ref5, good ? "ok" : "MISMATCH");
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
  cudaStreamDestroy(stream);
  return good ? 0 : 1;
}
