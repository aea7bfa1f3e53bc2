// bench/experiments/probe_common.cuh — what the public-API probes from experiment 90 on share: the
// CUDA error check, a hashed fill of device buffers, the median. (Earlier probes carry their own
// copies: each is kept as the exact program behind its results.)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);    \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

/// p[i] := lo + (hi - lo) * u(i), u from a hash of (i, seed) in [0, 1), rounded to T.
template <class T>
__global__ void fill_hashed(T* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u + seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = static_cast<T>(lo + (hi - lo) * ((h & 0xffff) / 65536.0f));
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
