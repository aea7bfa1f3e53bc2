// rowwise/primitives/cluster_push_reduce.cuh — all-reduce over the CTAs of a cluster without a
// cluster barrier: each CTA pushes its partial into every CTA's shared memory with asynchronous
// remote stores that count bytes on the receiver's transaction barrier (sm_90+).
//
// Why not a cluster barrier per row: its arrive waits for the CTA's earlier global stores to
// drain (release semantics), and every CTA waits for every other's arrival. Here a CTA only waits
// until all partials of the row have landed in its own shared memory. cluster_all_reduce wraps
// this as one push and collect per step; staged_kernel pushes row k + 1 before collecting row k.
//
// Contract
// - Threads [0, Threads) of every CTA of a 1-D cluster call push() then collect() for row steps
//   i = 0, 1, 2, ... (the same steps in every CTA), each holding its CTA's aggregate (the same
//   in every such thread, e.g. from block_all_reduce); collect() is called by whole warps (it
//   merges by shuffles). It returns the cluster aggregate, bit-identical across the cluster:
//   with G the cluster size rounded up to a power of two, lane r of every warp takes rank
//   (r mod G)'s partial, or the reducer's identity past the cluster, and warp_all_reduce_replicated<G>
//   merges them (the same butterfly in every group of G lanes of every CTA). Between push(i)
//   and collect(i) a CTA may push(i + 1) (work of the next row overlaps this row's exchange).
//   Why lanes: a rank-order fold in every thread cost ~15 dependent merges per row step (two
//   exponentials each for softmax: ~110 instructions per warp of a cluster of 8; ncu,
//   bench/NOTES.md 22), against log2(G) shuffle steps.
// - init() by one thread before use, then a block barrier; then every thread of every CTA
//   arrives on the cluster barrier (start_arrive, release) and waits on it (start_wait,
//   acquire) before its CTA's first reduce(): a CTA's barriers must be initialised before any
//   peer pushes into it. Before exiting, every thread of every CTA does finish() (a full
//   cluster barrier): pushes into a CTA must land before it exits.
// - Sets slot sets rotate by step. With pushes at most one step ahead of collects, a CTA pushes
//   step i + 1 once it has collected step i - 1, which only proves that every peer has collected
//   step i - 3: 4 sets keep the push of step i + 1 off every set a peer may still be reading.
// - The value type is trivially copyable, at most 16 bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/primitives/transaction_barrier.cuh"
#include "rowwise/primitives/warp_all_reduce.cuh"

ROWWISE_NAMESPACE_BEGIN

template <int Threads, int MaxClusterSize, class Reducer, int Sets = 4>
struct cluster_push_reduce {
  using value_type = typename Reducer::value_type;
  static_assert(sizeof(value_type) <= 16, "a partial is pushed as one 16-byte store");
  static_assert(MaxClusterSize >= 1 && MaxClusterSize <= 16 && Threads >= MaxClusterSize, "");
  static_assert(Sets >= 2, "");
  /// Lanes that merge the partials: MaxClusterSize rounded up to a power of two.
  static constexpr int group = warp_group_for(MaxClusterSize);

  struct alignas(16) word4 {
    uint32_t w[4];
  };
  struct storage {
    word4 slot[Sets][MaxClusterSize];
    mbarrier::barrier landed[Sets];
  };

  __device__ __forceinline__ static void init(storage& s) {
#pragma unroll
    for (int i = 0; i < Sets; ++i) mbarrier::init(&s.landed[i], 1);
  }

  /// All threads of the CTA, once, after init's block barrier (no-op for a cluster of one).
  __device__ __forceinline__ static void start_arrive(unsigned csize) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize > 1) asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
  }
  __device__ __forceinline__ static void start_wait(unsigned csize) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize > 1) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
  }
  /// All threads of the CTA, once, before exit.
  __device__ __forceinline__ static void finish(unsigned csize) {
    start_arrive(csize);
    start_wait(csize);
  }

  /// Send this CTA's partial of step `step` to every CTA of the cluster (threads [0, csize)
  /// store, thread 0 arms the local barrier). Returns at once.
  __device__ __forceinline__ static void push(const value_type& mine, storage& s, unsigned csize,
                                              unsigned rank, int64_t step) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize <= 1) return;
    const int q = static_cast<int>(step % Sets);
    const int tid = static_cast<int>(threadIdx.x);
    if (tid < static_cast<int>(csize)) {
      word4 w = {};
      memcpy(&w, &mine, sizeof(value_type));
      const uint32_t slot = mbarrier::shared_address(&s.slot[q][rank]);
      const uint32_t bar = mbarrier::shared_address(&s.landed[q]);
      uint32_t remote_slot, remote_bar;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(slot), "r"(tid));
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(bar), "r"(tid));
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
              remote_slot),
          "r"(w.w[0]), "r"(w.w[1]), "r"(w.w[2]), "r"(w.w[3]), "r"(remote_bar)
          : "memory");
    }
    if (tid == 0) mbarrier::expect_bytes(&s.landed[q], csize * static_cast<uint32_t>(sizeof(word4)));
#endif
  }

  /// Wait for every CTA's partial of step `step` and merge them across the lanes of each warp
  /// (same bits in every thread of every CTA). With a cluster of one, returns `mine`.
  __device__ __forceinline__ static value_type collect(const value_type& mine, storage& s,
                                                       unsigned csize, int64_t step,
                                                       Reducer op = {}) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize <= 1) return mine;
    const int q = static_cast<int>(step % Sets);
    mbarrier::wait(&s.landed[q], static_cast<uint32_t>((step / Sets) & 1));
    // Over the fewest lanes that hold the cluster (a uniform branch): merges with padding cost
    // as much as real ones (a Welford merge divides), so a cluster of 2 takes one step, not 4.
    const auto merge_over = [&](auto lanes) {
      constexpr int G = decltype(lanes)::value;
      const int r = static_cast<int>(threadIdx.x) % G;
      value_type v = Reducer::identity();  // merge(identity, x) == x: padding changes nothing
      if (r < static_cast<int>(csize)) memcpy(&v, &s.slot[q][r], sizeof(value_type));
      return warp_all_reduce_replicated<G>(v, op);  // every group of G lanes holds the same
    };
    if (group <= 2 || csize <= 2) return merge_over(std::integral_constant<int, (group < 2 ? group : 2)>{});
    if (group <= 4 || csize <= 4) return merge_over(std::integral_constant<int, (group < 4 ? group : 4)>{});
    if (group <= 8 || csize <= 8) return merge_over(std::integral_constant<int, (group < 8 ? group : 8)>{});
    return merge_over(std::integral_constant<int, group>{});
#else
    return mine;
#endif
  }
};

ROWWISE_NAMESPACE_END
