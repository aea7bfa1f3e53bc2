#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
namespace rowwise { namespace kernels {
using B = __nv_bfloat16;
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 256, 4, 256, true>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 224, 4, 224, true>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<__half>, __half, 8, 256, 4, 256, true>(row_io<__half>, layer_norm_op<__half>, int64_t);
}}
