// tests/gpu_compute80/api_compute80.cu — rowwise compiled for compute_80 PTX only (api_builds.hpp).
#define ROWWISE_TEST_BUILD compute80_build
#include "gpu_compute80/api_build.inl"
