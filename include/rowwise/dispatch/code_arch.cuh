// rowwise/dispatch/code_arch.cuh — the target the library's kernels were compiled for, as the
// current device runs them.
//
// Why: the plan reads the device's compute capability, but a kernel can use only what its code
// was compiled for. A program built for an older target alone (say sm_80 with its PTX) runs on an
// sm_90 GPU through the driver's JIT of that PTX, with __CUDA_ARCH__ 800: no clusters, no bulk
// copies, no grid-dependency control. A plan made for the device (a row split over a cluster, the
// staged kernel) would then run code that sees one CTA per cluster and leaves the other segments
// of the row unwritten. So the plan is made for what the loaded code has
// (device_limits.hpp: limits_for_code).
#pragma once

#include <cuda_runtime.h>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/device_limits.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Never launched: an empty kernel compiled with the library's others (the same translation unit,
/// the same targets), whose attributes are those of the image the runtime loads for them.
template <class = void>
__global__ void code_arch_probe() {}

}  // namespace kernels

namespace dispatch {

/// __CUDA_ARCH__ / 10 of the library's kernels as the current device (ordinal `device`) runs
/// them: cudaFuncAttributes::ptxVersion of code_arch_probe (90 for sm_90 code; 80 for sm_80 PTX
/// JIT-compiled on a newer GPU), as CUB's PtxVersion reads it. Once per device, cached. An error
/// here (no image for this device) is the one any launch would return.
inline cudaError_t loaded_code_arch(int device, int& arch) {
  struct tag {};
  return once_per_device<tag>(device, arch, [](int, int& a) -> cudaError_t {
    cudaFuncAttributes attributes = {};
    const cudaError_t e = cudaFuncGetAttributes(&attributes, kernels::code_arch_probe<void>);
    a = e == cudaSuccess ? attributes.ptxVersion : 0;
    return e;
  });
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
