#include <rowwise/rowwise.cuh>
#include <rowwise/kernels/registers_kernel.cuh>
namespace rowwise { namespace kernels {
template __global__ void registers_kernel<layer_norm_op<float>, float, 4, 128, 8, 128, false>(row_io<float>, layer_norm_op<float>, int64_t);
template __global__ void registers_kernel<layer_norm_op<__nv_bfloat16>, __nv_bfloat16, 8, 128, 8, 128, false>(row_io<__nv_bfloat16>, layer_norm_op<__nv_bfloat16>, int64_t);
}}
