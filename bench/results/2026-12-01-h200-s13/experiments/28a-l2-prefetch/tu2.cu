#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
using B = __nv_bfloat16;
static_assert(registers_kernel_prefetches<layer_norm_op<B>, B, 256, 64>, "");
static_assert(!registers_kernel_prefetches<layer_norm_op<float>, float, 384, 32>, "");
static_assert(!registers_kernel_prefetches<rms_norm_op<float, false>, float, 256, 32>, "");
static_assert(registers_kernel_prefetches<rms_norm_op<B, true>, B, 256, 32>, "");
void* ks[] = {
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, true>,
 (void*)&registers_kernel<layer_norm_op<B>, B, 8, 256, 8, 256, false>,
 (void*)&registers_kernel<layer_norm_op<float>, float, 4, 384, 8, 384, false>,
 (void*)&registers_kernel<rms_norm_op<B, true>, B, 8, 256, 4, 256, false>,
 (void*)&registers_kernel<softmax_op<false>, B, 8, 256, 8, 256, false>,
 (void*)&registers_kernel<softmax_op<false>, float, 4, 256, 8, 256, false>};
