// rowwise/dispatch/device_limits.hpp — the device properties the plan depends on.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

/// sm_90's largest (non-portable) thread-block cluster, in CTAs.
inline constexpr int sm90_max_cluster = 16;
/// Device ordinals the per-device memos below keep (past them, asked at every call).
inline constexpr int per_device_slots = 64;

struct device_limits {
  int device = -1;          // the CUDA device ordinal these limits are of (-1: not a real device)
  int sm_count = 0;
  int cc_major = 0;         // compute capability: the device's, or the loaded kernels' older
  int cc_minor = 0;         // target after limits_for_code (what the plan may use)
  int max_smem_optin = 0;   // bytes of dynamic + static shared memory one block may opt into
  int smem_per_sm = 0;      // bytes of shared memory per SM (all resident blocks together)
  int regs_per_sm = 0;      // 32-bit registers per SM
  bool clusters = false;    // thread-block clusters (sm_90+ device and code)
  int max_cluster = sm90_max_cluster;  // the largest cluster the plan may use: sm_90's 16, less
                            // where a launch found that no cluster of a size fits (MIG slices,
                            // parts with smaller GPCs: cluster_cap), 1 without clusters
};

/// The largest cluster for a plan rule allowing up to `limit` CTAs on `dev`.
constexpr int cluster_limit(const device_limits& dev, int limit) {
  if (!dev.clusters) return 1;
  return dev.max_cluster < limit ? dev.max_cluster : limit;
}

/// `query(device, value)` run once per device ordinal and its value remembered (thread-safe; Tag
/// keeps each kind of value in a cache of its own). A failed query is not remembered: the next
/// call asks again, so that a transient or sticky error that the caller clears (a device reset)
/// does not fail every later call on that device. Ordinals past the cache are queried each time.
template <class Tag, class Value, class Query>
cudaError_t once_per_device(int device, Value& out, Query query) {
  static Value cache[per_device_slots];
  static std::atomic<bool> ready[per_device_slots];  // static storage: all false at start
  static std::mutex lock;
  if (device < 0 || device >= per_device_slots) return query(device, out);
  if (!ready[device].load(std::memory_order_acquire)) {
    const std::lock_guard<std::mutex> hold(lock);
    if (!ready[device].load(std::memory_order_relaxed)) {
      Value v{};
      if (const cudaError_t e = query(device, v); e != cudaSuccess) return e;
      cache[device] = v;
      ready[device].store(true, std::memory_order_release);
    }
  }
  out = cache[device];
  return cudaSuccess;
}

/// Query the current device: a handful of attribute reads, done once per device and cached
/// (thread-safe); no sync, no allocation, safe inside stream capture. These are the device's own
/// limits; what the loaded kernels can use of them is limits_for_code's.
inline cudaError_t current_device_limits(device_limits& out) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  struct tag {};
  return once_per_device<tag>(dev, out, [](int d_id, device_limits& d) -> cudaError_t {
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
    d.max_cluster = d.clusters ? sm90_max_cluster : 1;
    d.device = d_id;
    return cudaSuccess;
  });
}

/// The device's limits as kernels compiled for `code_arch` can use them (its __CUDA_ARCH__ / 10,
/// e.g. 90; dispatch/code_arch.cuh reads it from the loaded image; 0: unknown, the device's).
/// Kernels compiled for an older target than the device (sm_80 code as the driver's JIT of its PTX
/// on an sm_90 GPU) run without what that target lacks: their compute capability is the code's,
/// and without sm_90 code there are no clusters (the kernels would see one CTA per cluster),
/// no staged kernel and no programmatic dependent launch.
constexpr device_limits limits_for_code(device_limits d, int code_arch) {
  if (code_arch > 0 && code_arch < d.cc_major * 10 + d.cc_minor) {
    d.cc_major = code_arch / 10;
    d.cc_minor = code_arch % 10;
  }
  d.clusters = d.clusters && d.cc_major >= 9;
  if (!d.clusters) d.max_cluster = 1;
  return d;
}

/// The largest cluster known to fit on a device, learned from launches (launch.cuh: run_rows);
/// 16 until a launch finds that no cluster of a planned size can be resident. Per device ordinal,
/// thread-safe; ordinals past the table are not remembered (16: found again at each call).
inline std::atomic<int>* cluster_cap_slot(int device) {
  static std::atomic<int> caps[per_device_slots];  // static storage: 0 = nothing learned
  return device >= 0 && device < per_device_slots ? &caps[device] : nullptr;
}
inline int cluster_cap(int device) {
  const std::atomic<int>* slot = cluster_cap_slot(device);
  const int c = slot != nullptr ? slot->load(std::memory_order_relaxed) : 0;
  return c > 0 ? c : sm90_max_cluster;
}
/// Lower the device's cap to `c` (never raises it).
inline void lower_cluster_cap(int device, int c) {
  std::atomic<int>* slot = cluster_cap_slot(device);
  if (slot == nullptr) return;
  int old = slot->load(std::memory_order_relaxed);
  while ((old == 0 || old > c) && !slot->compare_exchange_weak(old, c, std::memory_order_relaxed)) {
  }
}

/// Whether kernels compiled for `code_arch` (0: unknown, taken as the device's) have sm_90's
/// features on `d`: clusters, bulk copies, grid-dependency control.
constexpr bool code_runs_sm90(const device_limits& d, int code_arch) {
  return limits_for_code(d, code_arch).cc_major >= 9;
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
