// rowwise/kernels/grid_dependency.cuh — programmatic dependent launch (sm_90+): a kernel that is
// launched while the previous kernel of its stream is still running.
//
// The launcher sets cudaLaunchAttributeProgrammaticStreamSerialization, so the GPU may start this
// grid before the previous grid of the stream has finished. Every kernel therefore calls
// wait_for_prior_grids() before its first access to global memory: it returns once the previous
// grid has completed and its writes are visible (a no-op when there is no such dependency, or
// before sm_90). allow_dependent_grids() then lets the next grid of the stream be scheduled
// early, so that its launch and prologue overlap this grid's tail; it changes no memory
// ordering, since that next grid waits in turn. Why: in a CUDA graph of back-to-back small
// calls the launch gap is a large part of each call (bench/NOTES.md).
#pragma once

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
