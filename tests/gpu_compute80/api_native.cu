// tests/gpu_compute80/api_native.cu — rowwise compiled for the project's targets (api_builds.hpp).
#define ROWWISE_TEST_BUILD native_build
#include "gpu_compute80/api_build.inl"
