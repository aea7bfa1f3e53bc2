// A minimal rowwise consumer: one kernel computes the softmax normaliser (max m and
// d = sum exp(x - m)) of one row with rowwise's block all-reduce, and main() checks it
// against the host. It is a build test first: without a GPU it says so and succeeds.
//
// TODO(lead): switch to the public API — #include <rowwise/rowwise.cuh> and call
// rowwise::softmax(...) — once the kernels/dispatch layers land. Until then it uses the
// primitives only, so that this build test does not depend on work in progress.
#include <rowwise/primitives/block_all_reduce.cuh>
#include <rowwise/reduce/online_softmax.cuh>
#include <rowwise/status.hpp>
#include <rowwise/views.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int kBlock = 256;

using reduce_t = rowwise::block_all_reduce<kBlock, rowwise::online_softmax_reducer>;

__global__ void __launch_bounds__(kBlock)
    softmax_normaliser(rowwise::matrix_view<const float> in, rowwise::online_softmax_value* out) {
  __shared__ reduce_t::storage storage;
  const float* row = in.data + blockIdx.x * in.row_stride;
  rowwise::online_softmax_reducer op;
  auto acc = rowwise::online_softmax_reducer::identity();
  for (int64_t c = threadIdx.x; c < in.cols; c += kBlock) acc = op(acc, rowwise::online_softmax_reducer::of(row[c]));
  acc = reduce_t::reduce(acc, storage, op);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

rowwise::status check(cudaError_t e, const char* what) { return rowwise::status::from_cuda(e, what); }

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::printf("consumer: built; no CUDA device (%s), nothing to run\n",
                probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
    return 0;
  }

  constexpr int64_t cols = 1000;
  std::vector<float> host(cols);
  for (int64_t c = 0; c < cols; ++c) host[c] = static_cast<float>((c * 37) % 101) / 10.0f;
  double m_ref = -INFINITY;
  for (float x : host) m_ref = std::fmax(m_ref, static_cast<double>(x));
  double d_ref = 0.0;
  for (float x : host) d_ref += std::exp(static_cast<double>(x) - m_ref);

  float* d_in = nullptr;
  rowwise::online_softmax_value* d_out = nullptr;
  rowwise::online_softmax_value got{};
  rowwise::status st = check(cudaMalloc(&d_in, cols * sizeof(float)), "cudaMalloc(in)");
  if (st) st = check(cudaMalloc(&d_out, sizeof(got)), "cudaMalloc(out)");
  if (st) st = check(cudaMemcpy(d_in, host.data(), cols * sizeof(float), cudaMemcpyHostToDevice), "copy in");
  if (st) {
    softmax_normaliser<<<1, kBlock>>>(rowwise::matrix<const float>(d_in, 1, cols), d_out);
    st = check(cudaGetLastError(), "launch");
  }
  if (st) st = check(cudaMemcpy(&got, d_out, sizeof(got), cudaMemcpyDeviceToHost), "copy out");
  cudaFree(d_in);
  cudaFree(d_out);
  if (!st) {
    std::printf("consumer: %s: %s\n", st.message(), cudaGetErrorString(st.cuda_error()));
    return 1;
  }

  const bool good = got.m == static_cast<float>(m_ref) && std::fabs(got.d - d_ref) <= 1e-4 * d_ref;
  std::printf("consumer: m = %g (ref %g), d = %.7g (ref %.7g): %s\n", got.m, m_ref, got.d, d_ref,
              good ? "ok" : "MISMATCH");
  return good ? 0 : 1;
}
