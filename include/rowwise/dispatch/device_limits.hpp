// rowwise/dispatch/device_limits.hpp — the device properties the plan depends on.
#pragma once

#include <cuda_runtime_api.h>

#include <mutex>

namespace rowwise {
namespace dispatch {

struct device_limits {
  int device = -1;          // the CUDA device ordinal these limits are of (-1: not a real device)
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  int max_smem_optin = 0;   // bytes of dynamic + static shared memory one block may opt into
  int smem_per_sm = 0;      // bytes of shared memory per SM (all resident blocks together)
  int regs_per_sm = 0;      // 32-bit registers per SM
  bool clusters = false;    // thread-block clusters (sm_90+)
};

/// Query the current device: a handful of attribute reads, done once per device and cached
/// (thread-safe); no sync, no allocation, safe inside stream capture.
inline cudaError_t current_device_limits(device_limits& out) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  constexpr int cached_devices = 64;
  static device_limits cache[cached_devices];
  static cudaError_t result[cached_devices];
  static std::once_flag once[cached_devices];
  auto query = [](int d_id, device_limits& d) -> cudaError_t {
    cudaError_t err;
    if ((err = cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, d_id))) return err;
    if ((err = cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, d_id))) return err;
    if ((err = cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, d_id))) return err;
    if ((err = cudaDeviceGetAttribute(&d.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_id))) return err;
    if ((err = cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, d_id))) return err;
    if ((err = cudaDeviceGetAttribute(&d.regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor, d_id))) return err;
    int cluster_launch = 0;
    if ((err = cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, d_id))) return err;
    d.clusters = cluster_launch != 0 && d.cc_major >= 9;
    d.device = d_id;
    return cudaSuccess;
  };
  if (dev < 0 || dev >= cached_devices) return query(dev, out);
  std::call_once(once[dev], [&] { result[dev] = query(dev, cache[dev]); });
  out = cache[dev];
  return result[dev];
}

}  // namespace dispatch
}  // namespace rowwise
