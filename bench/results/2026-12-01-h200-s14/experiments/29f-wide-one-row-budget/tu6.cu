#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
using B = __nv_bfloat16; using H = __half;
void* ks[] = {
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 64, 8, 64, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 96, 8, 96, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 128, 8, 128, false>,
 (void*)&registers_kernel<layer_norm_op<H>, H, 8, 64, 8, 64, false>,
 (void*)&registers_kernel<layer_norm_op<H>, H, 8, 128, 8, 128, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 32, 8, 128, false>};
