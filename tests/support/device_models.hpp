// tests/support/device_models.hpp — device limits of GPUs the host tests plan for without one:
// the H200 the benchmarks run on, the same with smaller cluster caps, and an A100 (no clusters).
// Values as cudaGetDeviceProperties reports them on those parts (dispatch/device_limits.hpp).
#pragma once

#include <rowwise/dispatch/device_limits.hpp>

namespace rowwise_test {

inline rowwise::dispatch::device_limits h200_like() {
  rowwise::dispatch::device_limits d;
  d.sm_count = 132;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.max_smem_optin = 232448;
  d.smem_per_sm = 233472;
  d.regs_per_sm = 65536;
  d.clusters = true;
  return d;
}

/// An H200-like device whose GPCs hold clusters of at most `max_cluster` CTAs (a MIG slice, a
/// smaller part): what run_rows plans with after a launch found no larger cluster resident.
inline rowwise::dispatch::device_limits h200_capped(int max_cluster) {
  rowwise::dispatch::device_limits d = h200_like();
  d.max_cluster = max_cluster;
  return d;
}

inline rowwise::dispatch::device_limits a100_like() {
  rowwise::dispatch::device_limits d;
  d.sm_count = 108;
  d.cc_major = 8;
  d.cc_minor = 0;
  d.max_smem_optin = 166912;
  d.smem_per_sm = 167936;
  d.regs_per_sm = 65536;
  d.clusters = false;
  return d;
}

}  // namespace rowwise_test
