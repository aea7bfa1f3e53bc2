// tests/host/test_launch_setup.cpp — the memo of per-(kernel, device, block, cluster, smem) launch
// set-up (include/rowwise/dispatch/launch_setup.hpp): keys differ in every field, later
// remember() calls replace, forget() removes, and concurrent use is safe; and the per-device memo
// of device queries (device_limits.hpp: once_per_device).
#include <catch2/catch.hpp>

#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/launch_setup.hpp>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace dsp = rowwise::dispatch;

namespace {
int kernel_a;  // stand-ins for kernel addresses
int kernel_b;
}  // namespace

TEST_CASE("launch_setup_cache: every field of the key tells set-ups apart", "[host][launch]") {
  const dsp::launch_setup_key base{&kernel_a, 0, 256, 4, 0};
  dsp::launch_setup_cache::remember(base, dsp::launch_setup{512});
  dsp::launch_setup got;
  REQUIRE(dsp::launch_setup_cache::find(base, got));
  CHECK(got.resident_ctas == 512);
  const dsp::launch_setup_key others[] = {
      {&kernel_b, 0, 256, 4, 0}, {&kernel_a, 1, 256, 4, 0}, {&kernel_a, 0, 128, 4, 0},
      {&kernel_a, 0, 256, 8, 0}, {&kernel_a, 0, 256, 4, 1024},
  };
  for (const dsp::launch_setup_key& k : others) {
    INFO("device " << k.device << ", block " << k.block << ", cluster " << k.cluster << ", smem "
                   << k.dynamic_smem);
    CHECK_FALSE(dsp::launch_setup_cache::find(k, got));
  }
  dsp::launch_setup_cache::remember(base, dsp::launch_setup{264});
  REQUIRE(dsp::launch_setup_cache::find(base, got));
  CHECK(got.resident_ctas == 264);
  dsp::launch_setup_cache::forget(base);
  CHECK_FALSE(dsp::launch_setup_cache::find(base, got));
}

TEST_CASE("launch_setup_cache: concurrent remember / find / forget", "[host][launch]") {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 2000; ++i) {
        const dsp::launch_setup_key k{&kernel_b, t, 32 * (i % 8 + 1), 1, 0};
        dsp::launch_setup_cache::remember(k, dsp::launch_setup{t * 10000 + i % 8});
        dsp::launch_setup got;
        if (!dsp::launch_setup_cache::find(k, got) || got.resident_ctas != t * 10000 + i % 8) std::abort();
        if (i % 3 == 0) dsp::launch_setup_cache::forget(k);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t)
    for (int j = 0; j < 8; ++j) dsp::launch_setup_cache::forget(dsp::launch_setup_key{&kernel_b, t, 32 * (j + 1), 1, 0});
  dsp::launch_setup got;
  CHECK_FALSE(dsp::launch_setup_cache::find(dsp::launch_setup_key{&kernel_b, 0, 32, 1, 0}, got));
}

// once_per_device (dispatch/device_limits.hpp): the per-device memo of the device limits and of the
// loaded kernels' target (dispatch/code_arch.cuh), exercised with a counting stand-in query.
namespace {
struct first_cache {};
struct second_cache {};
}  // namespace

TEST_CASE("once_per_device: one query per device and tag, a failed query asked again, ordinals past the "
          "cache queried each time, concurrent first use",
          "[host][launch]") {
  std::atomic<int> calls{0};
  bool device3_fails = true;
  const auto query = [&](int device, int& v) -> cudaError_t {
    ++calls;
    v = 100 + device;
    return device == 3 && device3_fails ? cudaErrorInvalidDevice : cudaSuccess;
  };
  int v = 0;
  CHECK(dsp::once_per_device<first_cache>(0, v, query) == cudaSuccess);
  CHECK(v == 100);
  CHECK(dsp::once_per_device<first_cache>(0, v, query) == cudaSuccess);
  CHECK(v == 100);
  CHECK(calls == 1);
  CHECK(dsp::once_per_device<first_cache>(1, v, query) == cudaSuccess);
  CHECK(v == 101);
  CHECK(calls == 2);
  // Another tag keeps its own cache.
  CHECK(dsp::once_per_device<second_cache>(0, v, query) == cudaSuccess);
  CHECK(calls == 3);
  // A failed query is not remembered: asked again until it succeeds, then remembered.
  CHECK(dsp::once_per_device<first_cache>(3, v, query) == cudaErrorInvalidDevice);
  CHECK(dsp::once_per_device<first_cache>(3, v, query) == cudaErrorInvalidDevice);
  CHECK(calls == 5);
  device3_fails = false;
  v = 0;
  CHECK(dsp::once_per_device<first_cache>(3, v, query) == cudaSuccess);
  CHECK(v == 103);
  CHECK(dsp::once_per_device<first_cache>(3, v, query) == cudaSuccess);
  CHECK(calls == 6);
  // Past the cache (and negative ordinals): asked every time.
  for (int device : {64, 64, -1}) {
    CHECK(dsp::once_per_device<first_cache>(device, v, query) == cudaSuccess);
    CHECK(v == 100 + device);
  }
  CHECK(calls == 9);
  // Many threads' first use of one device: one query, the same value everywhere.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      int mine = 0;
      if (dsp::once_per_device<second_cache>(5, mine, query) != cudaSuccess || mine != 105) ++wrong;
    });
  for (std::thread& t : threads) t.join();
  CHECK(wrong == 0);
  CHECK(calls == 10);
}
