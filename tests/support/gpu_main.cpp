// main() of rowwise_gpu_tests: a Catch2 runner that first makes sure there is a CUDA device.
//
// Without a usable device it prints "SKIPPED: no CUDA device (<reason>)" and exits 77, which
// ctest reports as "Skipped" (SKIP_RETURN_CODE 77). With one it prints the device, its SM count
// and the driver/runtime versions, then runs the Catch2 session.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr int kSkipped = 77;

// Listing tests or printing help needs no device.
bool wants_listing_only(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--list", 6) == 0 || std::strcmp(a, "-l") == 0 || std::strcmp(a, "-t") == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "-?") == 0 || std::strcmp(a, "--help") == 0) {
      return true;
    }
  }
  return false;
}

void print_version(const char* what, int v) { std::printf("%s %d.%d", what, v / 1000, (v % 1000) / 10); }

}  // namespace

int main(int argc, char* argv[]) {
  if (!wants_listing_only(argc, argv)) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      std::printf("SKIPPED: no CUDA device (%s)\n",
                  err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount reported 0 devices");
      std::fflush(stdout);
      return kSkipped;
    }
    int device = 0;
    cudaDeviceProp prop{};
    int driver = 0;
    int runtime = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
      std::printf("SKIPPED: no CUDA device (cannot query device properties)\n");
      return kSkipped;
    }
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    std::printf("device %d of %d: %s, sm_%d%d, %d SMs, %.1f GiB; ", device, count, prop.name, prop.major,
                prop.minor, prop.multiProcessorCount,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
    print_version("driver", driver);
    std::printf(", ");
    print_version("runtime", runtime);
    std::printf("\n");
    std::fflush(stdout);
  }

  const int result = Catch::Session().run(argc, argv);
  // Catch returns the number of failed assertions (capped at 255); 77 must not read as "skipped".
  return result == kSkipped ? 1 : result;
}
