// rowwise/kernels/column_stage_size.hpp — the size of the column stage (kernels/column_stage.cuh)
// in one place, for the kernel that lays it out and the plan that reserves it
// (dispatch/plan.hpp: column_stage_bytes). Plain C++: the plan is host code.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// Elements of a per-column parameter of param_bytes bytes per aligned access, for packs of n
/// elements: the whole pack's parameters, or 16 bytes of them.
constexpr int column_param_step_for(int n, int param_bytes) {
  const int widest = 16 / param_bytes;
  return n < widest ? n : widest;
}

/// Whether such an access is a cp.async size (4, 8 or 16 bytes): the stage copies nothing else.
constexpr bool column_stage_copyable(int n, int param_bytes) {
  const int bytes = column_param_step_for(n, param_bytes) * param_bytes;
  return bytes == 4 || bytes == 8 || bytes == 16;
}

/// Shared memory per present parameter vector: the parameters of each of `block` threads' k
/// packs of n columns.
constexpr int64_t column_stage_bytes_per_param(int k, int n, int param_bytes, int block) {
  return static_cast<int64_t>(k) * n * param_bytes * block;
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
