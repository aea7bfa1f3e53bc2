// rowwise/dispatch/launch_setup.hpp — the host-side set-up of a kernel launch, done once per
// (kernel, device, block, cluster, dynamic shared memory) and remembered.
//
// Why: a launch with dynamic shared memory must opt the kernel into it (cudaFuncSetAttribute),
// a cluster of more than 8 CTAs must be allowed, and a persistent grid is sized by an occupancy
// query (cudaOccupancyMaxActiveClusters for clusters: clusters must fit a GPC). Each of those is a
// driver call that used to run on every launch, i.e. host time on every eager call. They depend
// only on the key, so the first launch of a key does them and later ones read the result.
//
// Contract
// - find() and remember() are thread-safe (one mutex; a few dozen keys per process).
// - A remembered set-up can go stale when the device is reset (cudaDeviceReset drops the
//   attributes): a launch that fails with a remembered set-up calls forget() and redoes it once
//   (launch.cuh).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

struct launch_setup_key {
  const void* kernel = nullptr;
  int device = -1;
  int block = 0;
  int cluster = 1;
  int64_t dynamic_smem = 0;

  bool operator==(const launch_setup_key& o) const {
    return kernel == o.kernel && device == o.device && block == o.block && cluster == o.cluster &&
           dynamic_smem == o.dynamic_smem;
  }
};

struct launch_setup {
  int64_t resident_ctas = 0;  // CTAs of this key resident at once on the whole device (>= cluster)
  int code_arch = 0;          // the kernel's target as loaded (__CUDA_ARCH__ / 10: ptxVersion)
};

class launch_setup_cache {
 public:
  /// The set-up remembered for `key`, if any.
  static bool find(const launch_setup_key& key, launch_setup& out) {
    std::lock_guard<std::mutex> lock(mutex());
    for (const entry& e : entries()) {
      if (e.key == key) {
        out = e.setup;
        return true;
      }
    }
    return false;
  }

  static void remember(const launch_setup_key& key, const launch_setup& setup) {
    std::lock_guard<std::mutex> lock(mutex());
    for (entry& e : entries()) {
      if (e.key == key) {
        e.setup = setup;
        return;
      }
    }
    entries().push_back({key, setup});
  }

  static void forget(const launch_setup_key& key) {
    std::lock_guard<std::mutex> lock(mutex());
    std::vector<entry>& v = entries();
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i].key == key) {
        v[i] = v.back();
        v.pop_back();
        return;
      }
    }
  }

 private:
  struct entry {
    launch_setup_key key;
    launch_setup setup;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<entry>& entries() {
    static std::vector<entry> v;
    return v;
  }
};

}  // namespace dispatch
ROWWISE_NAMESPACE_END
