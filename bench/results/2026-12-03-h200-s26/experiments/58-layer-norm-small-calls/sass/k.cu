#include <rowwise/rowwise.cuh>
using namespace rowwise;
// The fp32 128-thread, 8-pack (4096-column) registers kernels of softmax and log_softmax.
auto* a = &kernels::registers_kernel<kernels::softmax_op<false>, float, 4, 128, 8, 128, false>;
auto* b = &kernels::registers_kernel<kernels::softmax_op<true>, float, 4, 128, 8, 128, false>;
