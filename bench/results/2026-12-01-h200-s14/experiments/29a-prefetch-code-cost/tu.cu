#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
using B = __nv_bfloat16;
void* ks[] = {
 (void*)&registers_kernel<rms_norm_op<B, true>, B, 8, 128, 4, 128, true>,
 (void*)&registers_kernel<rms_norm_op<B, true>, B, 8, 128, 4, 128, false>,
 (void*)&registers_kernel<softmax_op<false>, float, 4, 128, 8, 128, false>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 128, 4, 128, true>,
 (void*)&registers_kernel<softmax_op<false>, B, 8, 256, 4, 256, false>};
