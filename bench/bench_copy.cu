// bench/bench_copy.cu — the copy floor as a benchmark, and the benchmark executable's main.
//
// copy/bytes/<N>: a device-to-device cudaMemcpyAsync of N/2 bytes (N bytes of traffic: N/2 read
// plus N/2 written), L2 flushed before each timed copy. It is the yardstick every other row is
// divided by; its own pct_of_floor (against the separately measured, cached floor of the same
// size) should sit near 100 and shows the run-to-run noise of the floor.
#include "harness.cuh"

namespace {

using namespace rowwise_bench;

void bm_copy(benchmark::State& state, int64_t traffic) {
  const int64_t half = traffic / 2;
  unsigned char* src = pool_get<unsigned char>(state, slot::in, half);
  if (!src) return;
  unsigned char* dst = pool_get<unsigned char>(state, slot::out, half);
  if (!dst) return;
  RWB_CUDA_CHECK(state, fill_uniform(src, half, 0xC0DEull, 0.f, 255.f));
  auto launch = [=](cudaStream_t s) {
    return cudaMemcpyAsync(dst, src, static_cast<size_t>(half), cudaMemcpyDeviceToDevice, s);
  };
  time_kernel(state, launch, 2 * half, /*flush_l2=*/true);
}

void register_copy() {
  constexpr int64_t MiB = int64_t(1) << 20;
  for (int64_t traffic : {256 * MiB, 512 * MiB, 1024 * MiB}) {
    add("copy/bytes/" + std::to_string(traffic),
        [traffic](benchmark::State& st) { bm_copy(st, traffic); })
        ->Iterations(kLargeIterations);
  }
}

RWB_REGISTER(0, &register_copy);

}  // namespace

int main(int argc, char** argv) { return rowwise_bench::bench_main(argc, argv); }
