// tests/host/test_launch_setup.cpp — the memo of per-(kernel, device, block, cluster, smem) launch
// set-up (include/rowwise/dispatch/launch_setup.hpp): keys differ in every field, later
// remember() calls replace, forget() removes, and concurrent use is safe.
#include <catch2/catch.hpp>

#include <rowwise/dispatch/launch_setup.hpp>

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

// balanced_persistent_grid against its definition, by brute force: the grid is a whole number of
// clusters, never more than resident (nor than useful), takes exactly as many steps per cluster
// as the full resident grid would, and is the smallest grid that does.
TEST_CASE("balanced_persistent_grid: fewest clusters that keep the number of waves", "[host][launch]") {
  // The case that motivated it: 512 rows of 65536 fp32 over clusters of 8, 396 resident CTAs.
  CHECK(dsp::balanced_persistent_grid(512 * 8, 396, 8) == 47 * 8);  // 11 steps either way
  CHECK(dsp::balanced_persistent_grid(490 * 8, 392, 8) == 49 * 8);  // 10 whole waves: unchanged
  CHECK(dsp::balanced_persistent_grid(10 * 8, 396, 8) == 10 * 8);   // fewer rows than clusters
  CHECK(dsp::balanced_persistent_grid(3, 396, 1) == 3);
  CHECK(dsp::balanced_persistent_grid(16, 4, 16) == 16);  // fewer resident CTAs than a cluster
  const auto steps_per_cluster = [](int64_t steps, int64_t clusters) { return (steps + clusters - 1) / clusters; };
  for (int cluster : {1, 2, 3, 4, 8, 16}) {
    for (int64_t resident_clusters = 1; resident_clusters <= 60; ++resident_clusters) {
      const int64_t resident = resident_clusters * cluster + (resident_clusters % 3 == 0 ? cluster - 1 : 0);
      for (int64_t steps = 1; steps <= 400; ++steps) {
        INFO("cluster " << cluster << ", resident CTAs " << resident << ", row steps " << steps);
        const int64_t grid = dsp::balanced_persistent_grid(steps * cluster, resident, cluster);
        REQUIRE(grid % cluster == 0);
        const int64_t clusters = grid / cluster;
        REQUIRE(clusters >= 1);
        REQUIRE(clusters <= resident_clusters);
        REQUIRE(clusters <= steps);
        const int64_t full = steps_per_cluster(steps, resident_clusters < steps ? resident_clusters : steps);
        REQUIRE(steps_per_cluster(steps, clusters) == full);
        if (clusters > 1) REQUIRE(steps_per_cluster(steps, clusters - 1) > full);
      }
    }
  }
}
