// tests/gpu/primitives_kernels.hpp — host entry points of the primitives' test kernels.
//
// The kernels (tests/gpu/primitives_kernels.cu) give every thread one input float, turn it into
// a reduction value (sum/max: the float itself; online softmax and Welford: Reducer::of(x)), call
// one primitive of include/rowwise/primitives/, and write the value the primitive returned in
// EVERY thread to the output. The output is poisoned with 0xFF bytes (a NaN pattern) before the
// launch, so a thread that writes nothing leaves 0xFFFFFFFF words behind.
//
// These functions are plain C++ (no templates, no CUDA types beyond cudaError_t): they copy the
// host input to the device, launch, synchronise, and copy the output back. They never throw and
// never abort; a CUDA failure is returned in device_run::error with the call that failed.
//
// Layouts (thread t of a launch is blockIdx.x * blockDim.x + threadIdx.x, T = threads per launch):
//   warp    in[t]            -> out[t * W + w]          one warp_all_reduce<G>
//   block   in[r * T + t]    -> out[(r * T + t) * W + w] rows r = 0..rows-1, block_all_reduce
//                                                        called once per row, storages alternating
//   cluster in[r * T + t]    -> out[(r * T + t) * W + w] per row: block_all_reduce (storages
//                                                        alternating), then cluster_all_reduce
//                                                        step r (start / finish around the rows)
// where W = result_words(kind): 1 (sum, max), 2 (online softmax: m, d), 3 (Welford: n, mean, m2).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace rowwise_test {
namespace prim {

enum class reducer_kind { sum, max, online_softmax, welford };

/// Floats per reduction value: sum/max 1, online softmax 2 (m, d), Welford 3 (n, mean, m2).
int result_words(reducer_kind kind);
/// "sum_reducer", "max_reducer", "online_softmax_reducer", "welford_reducer".
const char* reducer_name(reducer_kind kind);

/// Threads per CTA of the cluster test kernel (each CTA first runs block_all_reduce over these).
constexpr int cluster_test_block_threads = 128;

/// Sizes the kernels are instantiated for.
inline constexpr int warp_group_sizes[] = {1, 2, 4, 8, 16, 32};
inline constexpr int block_sizes[] = {32, 64, 96, 128, 256, 384, 512, 1024};
inline constexpr int cluster_sizes[] = {2, 4, 8, 16};  // MaxClusterSize template arguments

struct device_run {
  cudaError_t error = cudaSuccess;  // the first CUDA error; cudaSuccess when everything ran
  std::string message;              // on error: "<call>: <error name> (<error string>)"
  std::vector<float> out;           // result_words(kind) floats per thread (per row); empty on error
};

struct device_info {
  cudaError_t error = cudaSuccess;
  std::string message;  // on error: as device_run::message; else "<name>, sm_XY, N SMs"
  int device = -1;
  int major = 0;  // compute capability
  int minor = 0;
};

/// The current device and its compute capability.
device_info query_device();

/// warp_all_reduce<group_size>: in.size() threads in blocks of block_threads (a multiple of 32
/// that divides in.size()); group_size in warp_group_sizes.
device_run run_warp_all_reduce(reducer_kind kind, int group_size, int block_threads,
                               const std::vector<float>& in);

/// block_all_reduce<block_threads>, called `rows` times in a row by every thread, alternating two
/// storages; in.size() must be rows * blocks * block_threads. block_threads in block_sizes.
device_run run_block_all_reduce(reducer_kind kind, int block_threads, int rows, const std::vector<float>& in);

/// Per row: block_all_reduce<cluster_test_block_threads>, then
/// cluster_all_reduce<max_cluster_size> (max_cluster_size in cluster_sizes), one step per row.
/// Grid = in.size() / (rows * cluster_test_block_threads) CTAs, a multiple of cluster_size.
/// cluster_size 2..max_cluster_size: launched with cudaLaunchKernelEx and a cluster dimension
/// (the primitive reads the actual size at run time); needs sm_90 (cudaErrorNotSupported, with
/// nothing launched, on older devices). cluster_size 1: a plain launch without clusters, where
/// the primitive must return the block value (any architecture).
device_run run_cluster_all_reduce(reducer_kind kind, int cluster_size, int max_cluster_size, int rows,
                                  const std::vector<float>& in);

}  // namespace prim
}  // namespace rowwise_test
