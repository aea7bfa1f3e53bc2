#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
namespace rowwise { namespace kernels {
using B = __nv_bfloat16;
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, true>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, false>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 128, 8, 128, false>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 64, 8, 64, false>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 128, 4, 128, true>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<B>, B, 8, 128, 4, 128, false>(row_io<B>, layer_norm_op<B>, int64_t);
template __global__ void registers_kernel<layer_norm_op<float>, B, 8, 256, 8, 256, true>(row_io<B>, layer_norm_op<float>, int64_t);
}}
