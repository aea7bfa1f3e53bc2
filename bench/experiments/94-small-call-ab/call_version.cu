// Experiment 94 — one library version's small calls behind a plain function (see probe94.cu).
// Built once per version: -DVERSION_NAME=v<commit> against that commit's headers. Versions before
// 84e6231 (no inline ABI namespace) are also built with -Drowwise=rowwise_v<commit>, which renames
// their namespace (header names in #include are not macro-expanded), so that every version's
// kernels are distinct symbols in one program.
#include <rowwise/rowwise.cuh>

#include <cuda_bf16.h>

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)

namespace {
template <class T>
rowwise::status call(int op, void* a, void* b, void* r, const void* w, long long rows,
                     long long cols, cudaStream_t s) {
  using namespace rowwise;
  const auto x = matrix<const T>(static_cast<const T*>(a), rows, cols);
  const auto y = matrix<T>(static_cast<T*>(b), rows, cols);
  const auto g = vector<const T>(static_cast<const T*>(w), cols);
  switch (op) {
    case 0: return softmax(x, y, s);
    case 1: return fused_add_rms_norm(matrix<T>(static_cast<T*>(a), rows, cols), matrix<T>(static_cast<T*>(r), rows, cols), g, 1e-6f, s);
    default: return rms_norm(x, y, g, 1e-6f, s);
  }
}
}  // namespace

/// op 0 softmax, 1 fused_add_rms_norm (in place on a, residual r), 2 rms_norm; dtype 0 bf16, 2
/// fp32; weights of T (beta: unused, kept for the signature).
cudaError_t PASTE(call_, VERSION_NAME)(int op, int dtype, void* a, void* b, void* r, const void* w,
                                       const void* beta, long long rows, long long cols, cudaStream_t s) {
  const rowwise::status st = dtype == 0 ? call<__nv_bfloat16>(op, a, b, r, w, rows, cols, s)
                                        : call<float>(op, a, b, r, w, rows, cols, s);
  if (!st.ok()) return st.cuda_error() != cudaSuccess ? st.cuda_error() : cudaErrorInvalidValue;
  return cudaSuccess;
}
