// rowwise/dispatch/launch.cuh — from a plan to a launched kernel: pick the instantiation, size
// the grid by occupancy, set the attributes it needs, launch, check.
#pragma once

// Every op header (softmax.cuh, layer_norm.cuh, rms_norm.cuh, rowwise.cuh) comes through here.
#if !defined(__CUDACC__)
#error "rowwise's op headers hold CUDA kernels and need a CUDA compiler (nvcc, or clang in CUDA mode); host-compiler code may include rowwise/status.hpp, rowwise/views.hpp and rowwise/version.hpp"
#endif

#include <cuda_runtime.h>

#include <mutex>
#include <type_traits>
#include <utility>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/alignment.hpp"
#include "rowwise/dispatch/cluster_fallback.hpp"
#include "rowwise/dispatch/code_arch.cuh"
#include "rowwise/dispatch/device_limits.hpp"
#include "rowwise/dispatch/launch_setup.hpp"
#include "rowwise/dispatch/plan.hpp"
#include "rowwise/kernels/chunked_kernel.cuh"
#include "rowwise/kernels/registers_kernel.cuh"
#include "rowwise/kernels/staged_kernel.cuh"
#include "rowwise/status.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

template <class Op, class T>
using row_kernel_fn = void (*)(kernels::row_io<T>, Op, int64_t);

/// The op_kind (policy.hpp) of an op type, from the traits run_rows gives its problem.
template <class Op>
inline constexpr unsigned op_kind_v =
    op_kind_for(Op::column_params, kernels::op_staged_long_rows<Op>::value, Op::fuses_residual ? 2 : 1);
// The kernel's and the plan's view of an op of two weight vectors (their register budget) agree.
template <class Op>
inline constexpr bool two_weights_agree = kernels::op_has_two_weights<Op> == (op_kind_v<Op> == layer_norm_kind);

template <class Op, class T, int N, bool Staged, bool Wrap, int I>
constexpr row_kernel_fn<Op, T> registers_instance() {
  constexpr registers_config c = registers_configs[I];
  // Wide configs are compiled only where the plan can choose them (wide_config_reachable), the
  // few-rows one for the rows few_rows_block serves.
  if constexpr (I == few_rows_block_config &&
                !few_rows_block_serves(static_cast<int>(N * sizeof(T)), Op::fuses_residual ? 2 : 1))
    return nullptr;
  else if constexpr (c.values > 32 &&
                (N * sizeof(T) != 16 || !wide_config_reachable(I, static_cast<int>(sizeof(T)), op_kind_v<Op>, Staged)))
    return nullptr;
  else
    return &kernels::registers_kernel<Op, T, N, c.g, registers_k(I, N), c.block, Staged, Wrap>;
}

template <class Op, class T, int N, bool Staged, bool Wrap, std::size_t... I>
row_kernel_fn<Op, T> registers_kernel_at(int config, std::index_sequence<I...>) {
  constexpr row_kernel_fn<Op, T> table[] = {registers_instance<Op, T, N, Staged, Wrap, static_cast<int>(I)>()...};
  return table[config];
}

/// The registers kernel of a plan's config, with or without the wrap's code (plan.hpp:
/// wrap_instance). Widths whose rows never wrap have only the instance without; the ops of
/// policy.hpp's wrap_instance_only_ops only the instance with it, for every plan.
template <class Op, class T, int N, bool Staged>
row_kernel_fn<Op, T> registers_kernel_for(const plan& pl) {
  constexpr auto configs = std::make_index_sequence<registers_config_count>{};
  if constexpr (!kernels::packs_wrap(N)) {
    return registers_kernel_at<Op, T, N, Staged, false>(pl.config, configs);
  } else if constexpr (wrap_instance_only(op_kind_v<Op>, N)) {
    return registers_kernel_at<Op, T, N, Staged, true>(pl.config, configs);
  } else {
    return pl.wrap_instance ? registers_kernel_at<Op, T, N, Staged, true>(pl.config, configs)
                           : registers_kernel_at<Op, T, N, Staged, false>(pl.config, configs);
  }
}

/// Whether registers plans of this op and pack width may stage weights (plan.hpp:
/// column_stage_bytes gives them shared memory only then): only those instances are compiled.
template <class Op, class T, int N>
inline constexpr bool may_stage_columns = kernels::op_column_params<Op>::count > 0 && N * sizeof(T) == 16;

/// The kernel a plan names, for pack width N.
template <class Op, class T, int N>
row_kernel_fn<Op, T> kernel_for(const plan& pl) {
  switch (pl.kind) {
    case strategy::registers:
      if constexpr (may_stage_columns<Op, T, N>) {
        if (pl.dynamic_smem > 0) return registers_kernel_for<Op, T, N, true>(pl);
      }
      return registers_kernel_for<Op, T, N, false>(pl);
    case strategy::cached:
      return &kernels::chunked_kernel<Op, T, N, chunked_block, chunked_unroll_for(N), true>;
    case strategy::streaming:
      return &kernels::chunked_kernel<Op, T, N, chunked_block, chunked_unroll_for(N), false>;
    case strategy::staged:
      // Only 16-byte packs of ops that stage long rows are staged (plan.hpp: staged_layout); no
      // other instance is compiled (layer_norm had four that no plan could reach).
      if constexpr (N * sizeof(T) == 16 && kernels::op_staged_long_rows<Op>::value) {
        if (pl.partial_packs)
          return &kernels::staged_kernel<Op, T, N, staged_block, staged_stages, staged_unroll_for(N),
                                         staged_min_blocks, true>;
        return &kernels::staged_kernel<Op, T, N, staged_block, staged_stages, staged_unroll_for(N),
                                       staged_min_blocks, false>;
      } else
        return nullptr;
  }
  return nullptr;
}

/// The launch attributes a plan's kernel needs: a cluster dimension when it has one.
inline unsigned cluster_attributes(int cluster, cudaLaunchAttribute* attr) {
  if (cluster <= 1) return 0;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  return 1;
}

/// The one-time set-up of a launch key (launch_setup.hpp): the opt-ins its kernel needs and the
/// CTAs of it that can be resident at once (for persistent grids).
template <class Kernel>
cudaError_t prepare_launch(Kernel kernel, const launch_setup_key& key, const device_limits& dev,
                           launch_setup& out) {
  cudaError_t e = cudaSuccess;
  // Any dynamic shared memory opts in: the static shared memory of the kernel adds to it, so
  // even 48 KiB of dynamic memory can exceed the default limit.
  // No carveout preference: it is an attribute of the function, shared by the launches that
  // stage (a one-wave grid) and those that do not, and the latter need L1 for their weights
  // (bench/NOTES.md 21).
  // The limit is the function's, shared by every key of that kernel (layer_norm with both weights
  // stages twice the bytes of gamma only, in the same instance): only ever raised. Lowered by a
  // smaller key, it failed the larger key's next (remembered) launch, which inside a stream
  // capture invalidates the capture (bench/NOTES.md session 34 e, experiment 89).
  // The same read gives the kernel's target as loaded (launch_kernel checks it against the plan).
  {
    static std::mutex raise;  // the read and the raise as one step across threads
    const std::lock_guard<std::mutex> lock(raise);
    cudaFuncAttributes attributes = {};
    e = cudaFuncGetAttributes(&attributes, kernel);
    if (e != cudaSuccess) return e;
    out.code_arch = attributes.ptxVersion;
    if (key.dynamic_smem > 0 && attributes.maxDynamicSharedSizeBytes < key.dynamic_smem) {
      e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(key.dynamic_smem));
      if (e != cudaSuccess) return e;
    }
  }
  if (key.cluster > 8) {
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e != cudaSuccess) return e;
  }
  // A cluster must fit one GPC, so clusters are counted as such, not as SMs / cluster size.
  if (key.cluster > 1) {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1];
    config.gridDim = dim3(static_cast<unsigned>(key.cluster));
    config.blockDim = dim3(static_cast<unsigned>(key.block));
    config.dynamicSmemBytes = static_cast<size_t>(key.dynamic_smem);
    config.attrs = attr;
    config.numAttrs = cluster_attributes(key.cluster, attr);
    int clusters = 0;
    e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
    if (e != cudaSuccess) return e;
    // No cluster of this size can be resident (a MIG slice or a part whose GPCs hold fewer SMs):
    // the launch would fail. run_rows lowers the device's cluster cap and plans again.
    if (clusters == 0) return cudaErrorInvalidClusterSize;
    out.resident_ctas = static_cast<int64_t>(clusters) * key.cluster;
  } else {
    int per_sm = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, key.block,
                                                      static_cast<size_t>(key.dynamic_smem));
    if (e != cudaSuccess) return e;
    out.resident_ctas = static_cast<int64_t>(per_sm > 0 ? per_sm : 1) * dev.sm_count;
  }
  return cudaSuccess;
}

/// Launch `kernel`, an instantiation of the strategy `pl` names, with the plan's block, cluster
/// and shared memory. Every CUDA call's error is returned.
template <class Msg, class Op, class T>
status launch_kernel(const plan& pl, row_kernel_fn<Op, T> kernel, const kernels::row_io<T>& io,
                     const Op& op, const device_limits& dev, cudaStream_t stream) {
  if (kernel == nullptr) return status::not_supported(Msg::plan);
  const launch_setup_key key{reinterpret_cast<const void*>(kernel), dev.device, pl.block, pl.cluster,
                             pl.dynamic_smem};
  // Without a cluster, one CTA per row step: measured on the H200 (bench/NOTES.md) this beat an
  // occupancy-sized grid looping over rows by 3-7 % of the copy floor: the hardware starts a new
  // CTA as soon as one retires, so loads of new rows overlap the stores of finished ones instead
  // of each CTA serialising its own. Clusters keep a persistent grid: each cluster launch and
  // start barrier costs more than a loop step. gridDim.x is capped; the kernels loop for the rest.
  auto launch = [&](const launch_setup& setup) {
    int64_t grid = pl.max_useful_blocks;
    // As many CTAs (clusters) as can be resident at once, so that none waits for a second wave.
    if (pl.persistent && grid > setup.resident_ctas) grid = setup.resident_ctas;
    constexpr int64_t max_grid = 0x7fffffff;
    if (grid > max_grid) grid = max_grid;
    grid -= grid % pl.cluster;
    if (grid < pl.cluster) grid = pl.cluster;
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[2];
    unsigned attrs = cluster_attributes(pl.cluster, attr);
    if (programmatic_dependent_launch && code_runs_sm90(dev, setup.code_arch)) {
      // The kernels wait for the previous grid before touching memory (grid_dependency.cuh): sm_90
      // code only. Older code does not wait, so it must not start before the previous grid ends.
      attr[attrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[attrs].val.programmaticStreamSerializationAllowed = 1;
      ++attrs;
    }
    config.gridDim = dim3(static_cast<unsigned>(grid));
    config.blockDim = dim3(static_cast<unsigned>(pl.block));
    config.dynamicSmemBytes = static_cast<size_t>(pl.dynamic_smem);
    config.stream = stream;
    config.attrs = attrs > 0 ? attr : nullptr;
    config.numAttrs = attrs;
    return cudaLaunchKernelEx(&config, kernel, io, op, pl.segment_packs);
  };
  launch_setup setup;
  const bool remembered = launch_setup_cache::find(key, setup);
  if (!remembered) {
    if (const cudaError_t e = prepare_launch(kernel, key, dev, setup); e != cudaSuccess)
      return status::from_cuda(e, Msg::launch);
    launch_setup_cache::remember(key, setup);
  }
  // The plan is made for the library's target (run_rows: loaded_code_arch); a kernel of an older
  // one can only be here when translation units of one program were compiled for different
  // targets and this instance came from an older one. It would see one CTA per cluster (or copy
  // nothing into its stages): refused, not run wrong.
  if (plan_needs_sm90_code(pl) && !code_runs_sm90(dev, setup.code_arch))
    return status::not_supported(Msg::target);
  cudaError_t e = launch(setup);
  if (e != cudaSuccess && remembered) {
    // The remembered set-up may be stale (a device reset drops the opt-ins): redo it once.
    (void)cudaGetLastError();  // the failed launch's error is not sticky; do not leave it behind
    launch_setup_cache::forget(key);
    e = prepare_launch(kernel, key, dev, setup);
    if (e == cudaSuccess) {
      launch_setup_cache::remember(key, setup);
      e = launch(setup);
    }
  }
  return status::from_cuda(e, Msg::launch);
}

/// Launch `pl` (already planned for pack width N).
template <class Msg, class Op, class T, int N>
status launch_plan(const plan& pl, const kernels::row_io<T>& io, const Op& op,
                   const device_limits& dev, cudaStream_t stream) {
  return launch_kernel<Msg>(pl, kernel_for<Op, T, N>(pl), io, op, dev, stream);
}

/// Plan and launch an op over validated matrices. `layouts` lists every matrix of the call
/// (input, output, residual) for the choice of vector width.
template <class Msg, class Op, class T>
status run_rows(const Op& op, const kernels::row_io<T>& io, const row_layout* layouts,
                int layout_count, cudaStream_t stream) {
  static_assert(two_weights_agree<Op>, "plan.hpp has_two_weights and the kernel's op_has_two_weights must agree");
  if (io.rows == 0) return {};
  device_limits dev;
  if (const cudaError_t e = current_device_limits(dev); e != cudaSuccess)
    return status::from_cuda(e, Msg::device);
  // Planned for what the loaded kernels can use (code_arch.cuh), not for the device alone.
  int code_arch = 0;
  if (const cudaError_t e = loaded_code_arch(dev.device, code_arch); e != cudaSuccess)
    return status::from_cuda(e, Msg::code_target);
  dev = limits_for_code(dev, code_arch);
  constexpr int widest = max_pack_elems_v<T>;
  problem p;
  p.rows = io.rows;
  p.cols = io.cols;
  p.elem_bytes = static_cast<int>(sizeof(T));
  p.pack_elems = choose_pack_elems(layouts, layout_count, p.elem_bytes, widest);
  p.head = uniform_head(layouts[0], p.elem_bytes, p.pack_elems);
  p.row_inputs = Op::fuses_residual ? 2 : 1;
  p.staged_op = kernels::op_staged_long_rows<Op>::value;
  p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0
                             ? static_cast<int>(sizeof(typename kernels::op_column_params<Op>::type))
                             : 0;
  // Planned again under a smaller cluster if the device cannot hold the planned one
  // (cluster_fallback.hpp); on the H200 clusters of 16 fit, and the first plan is launched.
  return launch_with_cluster_fallback(
      dev, [&](const device_limits& d) { return plan_rows(p, d); },
      [&](const plan& pl) {
        return pl.pack_elems == widest ? launch_plan<Msg, Op, T, widest>(pl, io, op, dev, stream)
                                       : launch_plan<Msg, Op, T, 1>(pl, io, op, dev, stream);
      },
      Msg::plan);
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
