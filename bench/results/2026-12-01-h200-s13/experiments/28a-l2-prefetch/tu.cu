#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
using B = __nv_bfloat16;
void* ks[] = {
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, true>,
 (void*)&registers_kernel<layer_norm_op<float>, float, 4, 256, 8, 256, true>,
 (void*)&registers_kernel<rms_norm_op<float, false>, float, 4, 256, 8, 256, true>,
 (void*)&registers_kernel<rms_norm_op<B, false>, B, 8, 256, 8, 256, true>,
 (void*)&registers_kernel<softmax_op<false>, float, 4, 256, 8, 256, false>};
