#include <rowwise/rowwise.cuh>
using namespace rowwise; using namespace rowwise::kernels;
void* ks[] = {(void*)&registers_kernel<layer_norm_op<float>, float, 4, 128, 8, 128, false>};
