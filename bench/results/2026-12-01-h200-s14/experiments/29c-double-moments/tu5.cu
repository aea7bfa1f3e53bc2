#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
using B = __nv_bfloat16;
void* ks[] = {
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 128, 4, 128, true>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 128, 4, 128, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, true>,
 (void*)&registers_kernel<layer_norm_op<float>, float, 4, 128, 8, 128, false>,
 (void*)&registers_kernel<layer_norm_op<float>, float, 4, 256, 8, 256, true>,
 (void*)&registers_kernel<layer_norm_op<float>, float, 4, 32, 8, 128, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 4, 2, 128, false>};
