// Experiment 92 — one library version's softmax behind a plain function (see probe92.cu). Built
// twice: once against 625279d's headers (-DVERSION_NAME=before) and once against the tree's
// (-DVERSION_NAME=after). Since 84e6231 the tree's kernels live in rowwise::abi_0_1_0_sm_900 and
// 625279d's in rowwise itself, so the two instances are distinct symbols in one program.
#include <rowwise/rowwise.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)

cudaError_t PASTE(softmax_, VERSION_NAME)(int dtype, const void* in, void* out, long long rows, long long cols,
                                          cudaStream_t s) {
  rowwise::status st;
  if (dtype == 0)
    st = rowwise::softmax(rowwise::matrix(static_cast<const __nv_bfloat16*>(in), rows, cols),
                          rowwise::matrix(static_cast<__nv_bfloat16*>(out), rows, cols), s);
  else if (dtype == 1)
    st = rowwise::softmax(rowwise::matrix(static_cast<const __half*>(in), rows, cols),
                          rowwise::matrix(static_cast<__half*>(out), rows, cols), s);
  else
    st = rowwise::softmax(rowwise::matrix(static_cast<const float*>(in), rows, cols),
                          rowwise::matrix(static_cast<float*>(out), rows, cols), s);
  if (!st.ok()) return st.cuda_error() != cudaSuccess ? st.cuda_error() : cudaErrorInvalidValue;
  return cudaSuccess;
}
