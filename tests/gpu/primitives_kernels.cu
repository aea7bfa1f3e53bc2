// tests/gpu/primitives_kernels.cu — kernels that exercise warp_all_reduce, block_all_reduce and
// cluster_all_reduce with every reduction operator, and their plain C++ launch wrappers.
// The Catch2 cases that drive them live in tests/gpu/test_primitives.cpp.
//
// Instantiations: warp 6 group sizes x 4 operators, block 8 sizes x 4, cluster 4 sizes x 4.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "primitives_kernels.hpp"
#include "rowwise/primitives/block_all_reduce.cuh"
#include "rowwise/primitives/cluster_all_reduce.cuh"
#include "rowwise/primitives/warp_all_reduce.cuh"
#include "rowwise/reduce/max_sum.cuh"
#include "rowwise/reduce/online_softmax.cuh"
#include "rowwise/reduce/welford.cuh"

namespace rowwise_test {
namespace prim {

namespace {

// --- device side --------------------------------------------------------------------------------

/// The reduction value of one input: the float itself for sum/max, Reducer::of(x) otherwise.
template <class Reducer>
__device__ __forceinline__ typename Reducer::value_type leaf_value(float x) {
  if constexpr (std::is_same<typename Reducer::value_type, float>::value) {
    return x;
  } else {
    return Reducer::of(x);
  }
}

/// Writes the words of v to out[i * W .. i * W + W).
template <class V>
__device__ __forceinline__ void store_result(float* out, size_t i, const V& v) {
  static_assert(sizeof(V) % sizeof(float) == 0, "reduction values are whole 4-byte words");
  constexpr int words = static_cast<int>(sizeof(V) / sizeof(float));
  float w[words];
  memcpy(w, &v, sizeof(V));
#pragma unroll
  for (int k = 0; k < words; ++k) out[i * words + k] = w[k];
}

template <int GroupSize, class Reducer>
__global__ void warp_all_reduce_kernel(const float* __restrict__ in, float* __restrict__ out) {
  const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const typename Reducer::value_type v =
      rowwise::warp_all_reduce<GroupSize>(leaf_value<Reducer>(in[t]), Reducer{});
  store_result(out, t, v);
}

template <int BlockThreads, class Reducer>
__global__ void __launch_bounds__(BlockThreads)
    block_all_reduce_kernel(const float* __restrict__ in, float* __restrict__ out, int rows) {
  using block_reduce = rowwise::block_all_reduce<BlockThreads, Reducer>;
  // Two storages, alternated row by row with no other barrier in between: the pattern the
  // contract of block_all_reduce allows (the barrier of call i+1 orders the reads of call i
  // before the writes of call i+2).
  __shared__ typename block_reduce::storage storage[2];
  const size_t threads = static_cast<size_t>(gridDim.x) * BlockThreads;
  const size_t t = static_cast<size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  for (int r = 0; r < rows; ++r) {
    const size_t i = static_cast<size_t>(r) * threads + t;
    const typename Reducer::value_type v =
        block_reduce::reduce(leaf_value<Reducer>(in[i]), storage[r & 1], Reducer{});
    store_result(out, i, v);
  }
}

template <int MaxClusterSize, class Reducer>
__global__ void __launch_bounds__(cluster_test_block_threads)
    cluster_all_reduce_kernel(const float* __restrict__ in, float* __restrict__ out, int rows) {
  using block_reduce = rowwise::block_all_reduce<cluster_test_block_threads, Reducer>;
  using cluster_reduce = rowwise::cluster_all_reduce<MaxClusterSize, Reducer>;
  __shared__ typename block_reduce::storage block_storage[2];
  __shared__ typename cluster_reduce::storage cluster_storage;  // same offset in every CTA
  // The contract: start once at entry, reduce for steps 0, 1, ..., finish before exit.
  cluster_reduce::start(cluster_storage);
  const size_t threads = static_cast<size_t>(gridDim.x) * cluster_test_block_threads;
  const size_t t = static_cast<size_t>(blockIdx.x) * cluster_test_block_threads + threadIdx.x;
  for (int r = 0; r < rows; ++r) {
    const size_t i = static_cast<size_t>(r) * threads + t;
    typename Reducer::value_type v =
        block_reduce::reduce(leaf_value<Reducer>(in[i]), block_storage[r & 1], Reducer{});
    v = cluster_reduce::reduce(v, cluster_storage, r, Reducer{});
    store_result(out, i, v);
  }
  cluster_reduce::finish(rows);
}

// --- host side ----------------------------------------------------------------------------------

std::string describe(cudaError_t e, const char* call) {
  std::string s = call;
  s += ": ";
  s += cudaGetErrorName(e);
  s += " (";
  s += cudaGetErrorString(e);
  s += ")";
  return s;
}

device_run failure(cudaError_t e, const char* call) {
  device_run r;
  r.error = e;
  r.message = describe(e, call);
  return r;
}

device_run bad_argument(const std::string& why) {
  device_run r;
  r.error = cudaErrorInvalidValue;
  r.message = "test wrapper argument check: " + why;
  return r;
}

/// cudaMalloc'd floats, freed on scope exit.
struct device_floats {
  float* ptr = nullptr;
  device_floats() = default;
  device_floats(const device_floats&) = delete;
  device_floats& operator=(const device_floats&) = delete;
  ~device_floats() {
    if (ptr != nullptr) (void)cudaFree(ptr);
  }
};

/// Copies `in` to the device, poisons out_floats output floats with 0xFF bytes, calls
/// launch(d_in, d_out) (which returns the launch's cudaError_t and sets *call to its name on
/// failure), synchronises and copies the output back.
template <class Launch>
device_run run_on_device(const std::vector<float>& in, size_t out_floats, Launch&& launch) {
  if (in.empty() || out_floats == 0) return bad_argument("empty input");
  device_floats d_in, d_out;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&d_in.ptr), in.size() * sizeof(float));
  if (e != cudaSuccess) return failure(e, "cudaMalloc(input)");
  e = cudaMalloc(reinterpret_cast<void**>(&d_out.ptr), out_floats * sizeof(float));
  if (e != cudaSuccess) return failure(e, "cudaMalloc(output)");
  e = cudaMemcpy(d_in.ptr, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return failure(e, "cudaMemcpy(input)");
  e = cudaMemset(d_out.ptr, 0xFF, out_floats * sizeof(float));  // NaN pattern 0xFFFFFFFF
  if (e != cudaSuccess) return failure(e, "cudaMemset(output poison)");
  const char* call = "kernel launch";
  e = launch(d_in.ptr, d_out.ptr, &call);
  if (e != cudaSuccess) return failure(e, call);
  e = cudaGetLastError();
  if (e != cudaSuccess) return failure(e, "cudaGetLastError after launch");
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return failure(e, "cudaDeviceSynchronize (kernel execution)");
  device_run r;
  r.out.resize(out_floats);
  e = cudaMemcpy(r.out.data(), d_out.ptr, out_floats * sizeof(float), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return failure(e, "cudaMemcpy(output)");
  return r;
}

/// Calls f(Reducer{}) for the reducer of `kind`.
template <class F>
cudaError_t with_reducer(reducer_kind kind, F&& f) {
  switch (kind) {
    case reducer_kind::sum:
      return f(rowwise::sum_reducer{});
    case reducer_kind::max:
      return f(rowwise::max_reducer{});
    case reducer_kind::online_softmax:
      return f(rowwise::online_softmax_reducer{});
    case reducer_kind::welford:
      return f(rowwise::welford_reducer{});
  }
  return cudaErrorInvalidValue;
}

/// Calls f(std::integral_constant<int, N>{}) for the N in Ns equal to n; false if none is.
template <int... Ns, class F>
bool with_size(int n, cudaError_t& result, F&& f) {
  return ((n == Ns ? (result = f(std::integral_constant<int, Ns>{}), true) : false) || ...);
}

bool reducer_known(reducer_kind kind) {
  return kind == reducer_kind::sum || kind == reducer_kind::max || kind == reducer_kind::online_softmax ||
         kind == reducer_kind::welford;
}

}  // namespace

int result_words(reducer_kind kind) {
  switch (kind) {
    case reducer_kind::sum:
      return 1;
    case reducer_kind::max:
      return 1;
    case reducer_kind::online_softmax:
      return 2;
    case reducer_kind::welford:
      return 3;
  }
  return 0;
}

const char* reducer_name(reducer_kind kind) {
  switch (kind) {
    case reducer_kind::sum:
      return "sum_reducer";
    case reducer_kind::max:
      return "max_reducer";
    case reducer_kind::online_softmax:
      return "online_softmax_reducer";
    case reducer_kind::welford:
      return "welford_reducer";
  }
  return "?";
}

static_assert(sizeof(rowwise::online_softmax_value) == 2 * sizeof(float), "m, d");
static_assert(sizeof(rowwise::welford_value) == 3 * sizeof(float), "n, mean, m2");

device_info query_device() {
  device_info info;
  cudaError_t e = cudaGetDevice(&info.device);
  if (e != cudaSuccess) {
    info.error = e;
    info.message = describe(e, "cudaGetDevice");
    return info;
  }
  cudaDeviceProp prop{};
  e = cudaGetDeviceProperties(&prop, info.device);
  if (e != cudaSuccess) {
    info.error = e;
    info.message = describe(e, "cudaGetDeviceProperties");
    return info;
  }
  info.major = prop.major;
  info.minor = prop.minor;
  info.message = std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
                 ", " + std::to_string(prop.multiProcessorCount) + " SMs";
  return info;
}

device_run run_warp_all_reduce(reducer_kind kind, int group_size, int block_threads,
                               const std::vector<float>& in) {
  if (!reducer_known(kind)) return bad_argument("unknown reducer");
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0 ||
      in.size() % static_cast<size_t>(block_threads) != 0) {
    return bad_argument("block_threads must be a multiple of 32 in [32, 1024] dividing in.size()");
  }
  const unsigned blocks = static_cast<unsigned>(in.size() / static_cast<size_t>(block_threads));
  const size_t out_floats = in.size() * static_cast<size_t>(result_words(kind));
  bool known_size = true;
  device_run r = run_on_device(in, out_floats, [&](const float* d_in, float* d_out, const char** call) {
    return with_reducer(kind, [&](auto op) {
      using Reducer = decltype(op);
      cudaError_t e = cudaSuccess;
      known_size = with_size<1, 2, 4, 8, 16, 32>(group_size, e, [&](auto g) {
        warp_all_reduce_kernel<decltype(g)::value, Reducer><<<blocks, block_threads>>>(d_in, d_out);
        *call = "warp_all_reduce_kernel<<<>>>";
        return cudaGetLastError();
      });
      return known_size ? e : cudaErrorInvalidValue;
    });
  });
  if (!known_size) return bad_argument("group size not instantiated: " + std::to_string(group_size));
  return r;
}

device_run run_block_all_reduce(reducer_kind kind, int block_threads, int rows,
                                const std::vector<float>& in) {
  if (!reducer_known(kind)) return bad_argument("unknown reducer");
  if (rows < 1 || block_threads < 32 ||
      in.size() % (static_cast<size_t>(rows) * static_cast<size_t>(block_threads)) != 0) {
    return bad_argument("in.size() must be rows * blocks * block_threads");
  }
  const unsigned blocks =
      static_cast<unsigned>(in.size() / (static_cast<size_t>(rows) * static_cast<size_t>(block_threads)));
  const size_t out_floats = in.size() * static_cast<size_t>(result_words(kind));
  bool known_size = true;
  device_run r = run_on_device(in, out_floats, [&](const float* d_in, float* d_out, const char** call) {
    return with_reducer(kind, [&](auto op) {
      using Reducer = decltype(op);
      cudaError_t e = cudaSuccess;
      known_size = with_size<32, 64, 96, 128, 256, 384, 512, 1024>(block_threads, e, [&](auto b) {
        constexpr int block = decltype(b)::value;
        block_all_reduce_kernel<block, Reducer><<<blocks, block>>>(d_in, d_out, rows);
        *call = "block_all_reduce_kernel<<<>>>";
        return cudaGetLastError();
      });
      return known_size ? e : cudaErrorInvalidValue;
    });
  });
  if (!known_size) return bad_argument("block size not instantiated: " + std::to_string(block_threads));
  return r;
}

device_run run_cluster_all_reduce(reducer_kind kind, int cluster_size, int max_cluster_size, int rows,
                                  const std::vector<float>& in) {
  if (!reducer_known(kind)) return bad_argument("unknown reducer");
  constexpr size_t block = static_cast<size_t>(cluster_test_block_threads);
  if (rows < 1 || in.size() % (static_cast<size_t>(rows) * block) != 0) {
    return bad_argument("in.size() must be rows * CTAs * cluster_test_block_threads");
  }
  if (cluster_size < 1 || cluster_size > max_cluster_size) {
    return bad_argument("cluster_size must be in [1, max_cluster_size]");
  }
  const size_t ctas = in.size() / (static_cast<size_t>(rows) * block);
  if (ctas % static_cast<size_t>(cluster_size) != 0) {
    return bad_argument("the number of CTAs must be a multiple of the cluster size");
  }
  if (cluster_size > 1) {
    const device_info dev = query_device();
    if (dev.error != cudaSuccess) {
      device_run r;
      r.error = dev.error;
      r.message = dev.message;
      return r;
    }
    if (dev.major < 9) {
      device_run r;
      r.error = cudaErrorNotSupported;
      r.message = "thread-block clusters need sm_90; the device is " + dev.message;
      return r;
    }
  }
  const size_t out_floats = in.size() * static_cast<size_t>(result_words(kind));
  bool known_size = true;
  device_run r = run_on_device(in, out_floats, [&](const float* d_in, float* d_out, const char** call) {
    return with_reducer(kind, [&](auto op) {
      using Reducer = decltype(op);
      cudaError_t e = cudaSuccess;
      known_size = with_size<2, 4, 8, 16>(max_cluster_size, e, [&](auto c) -> cudaError_t {
        auto* kernel = &cluster_all_reduce_kernel<decltype(c)::value, Reducer>;
        const dim3 grid(static_cast<unsigned>(ctas));
        const dim3 threads(static_cast<unsigned>(cluster_test_block_threads));
        if (cluster_size == 1) {  // no clusters at all
          kernel<<<grid, threads>>>(d_in, d_out, rows);
          *call = "cluster_all_reduce_kernel<<<>>> (no clusters)";
          return cudaGetLastError();
        }
        if (cluster_size > 8) {  // beyond the portable cluster size: opt in
          const cudaError_t a =
              cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
          if (a != cudaSuccess) {
            *call = "cudaFuncSetAttribute(NonPortableClusterSizeAllowed)";
            return a;
          }
        }
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = static_cast<unsigned>(cluster_size);
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = threads;
        config.dynamicSmemBytes = 0;
        config.stream = nullptr;
        config.attrs = attr;
        config.numAttrs = 1;
        int max_clusters = 0;
        const cudaError_t q = cudaOccupancyMaxActiveClusters(&max_clusters, kernel, &config);
        if (q != cudaSuccess) {
          *call = "cudaOccupancyMaxActiveClusters";
          return q;
        }
        if (max_clusters < 1) {
          *call = "cudaOccupancyMaxActiveClusters reported 0 co-resident clusters of this size";
          return cudaErrorInvalidConfiguration;
        }
        *call = "cudaLaunchKernelEx(cluster_all_reduce_kernel)";
        return cudaLaunchKernelEx(&config, kernel, d_in, d_out, rows);
      });
      return known_size ? e : cudaErrorInvalidValue;
    });
  });
  if (!known_size) {
    return bad_argument("max cluster size not instantiated: " + std::to_string(max_cluster_size));
  }
  return r;
}

}  // namespace prim
}  // namespace rowwise_test
