// rowwise/kernels/ops/row_op.cuh — what an op is: how to reduce a row and how to rewrite it.
//
// Strategies (kernels/*_kernel.cuh) move and split rows; ops (this folder) say what happens to
// the numbers. An op is a small trivially-copyable struct passed by value to the kernel:
//
//   using reducer = ...;                        // an operator from reduce/
//   using value = typename reducer::value_type;
//   struct state { ... };                       // what the write-back needs once the row is reduced
//   static constexpr bool fuses_residual;       // input = round_T(in + residual), stored to residual
//   static constexpr bool column_params;        // apply() reads per-column weights (a register
//                                               // budget choice, dispatch/policy.hpp)
//   static constexpr float pad;                 // value of slots outside the row: chosen neutral
//                                               // for the op's reduction where one exists
//
//   template <int M> value partial(const float (&v)[M], slot_mask<M> ok) const;
//       summary of the slots with ok[i]; slots without hold `pad` (ops whose pad is neutral,
//       softmax's -inf and RMSNorm's 0, never look at the mask: no per-element test)
//   state finalize(value total) const;          // from the whole row's summary
//   template <int N, class Columns = checked_columns>
//   void apply(float (&v)[N], int64_t col0, const state&, Columns = {}) const;
//       turns the input values of the pack at column col0 into outputs (in place); ops with
//       column_params read them with load_column_params(..., Columns{}) (row_io.cuh)
//   template <int N> bool columns_aligned(int64_t col0) const;
//       whether every column parameter vector is aligned for packs of N at col0 (row_op_base:
//       true, for ops without parameters)
//   void store_stats(int64_t row, const state&) const;  // per-row side outputs, one thread per row
//
// Optionally, exact two-pass moments for the strategy that holds rows in registers
// (registers_kernel); the single-reducer path above remains for the others:
//
//   static constexpr bool two_pass = true;
//   first_partial(v, ok) -> float          sum of the slots (pad must be 0)
//   second_partial(v, ok, shift) -> float_pair {sum (x - shift)^2, sum (x - shift)} over ok
//   finalize_moments(shifted_welford_value) -> state
//
// The strategy forms the shift (a warp's mean) and merges the warps' shifted Welford summaries
// (reduce/shifted_welford.cuh). Where dispatch::two_pass_thread_shifts holds (fp32 rows; 16-bit
// rows of the 128-register kernels with a column stage), each
// thread's own two-pass instead, its values left centred on its shift:
//
//   thread_centre(v, ok) -> shifted_two_pass   {n, s, sum (x - s), sum (x - s)^2} over ok; v -= s
//   finalize_centred(shifted_welford_value, shifted_two_pass mine) -> a state that
//       apply_in_place takes for centred values
//
// Optionally `static constexpr bool staged_long_rows = true;`: rows longer than registers hold
// go to staged_kernel instead of chunked_kernel (a measured choice per op, dispatch/plan.hpp).
//
// Optionally, for staged_kernel (a thread's packs of a row segment stay in shared memory, so it
// can read them twice): `static constexpr bool sweeps = true;` and pass 1 forms the thread's
// partial in two sweeps over its packs instead of merging one partial per step (softmax: the
// max, then every exponential with that one shift):
//
//   template <class T, int N> struct sweep;            // default-constructed per row
//   void sweep_first(const aligned_array<T, N>& x, sweep<T, N>&) const;  // every pack, as stored
//   void sweep_turn(sweep<T, N>&) const;                                  // between the sweeps
//   template <int M> void sweep_second(const float (&v)[M], sweep<T, N>&) const;  // every value
//   value sweep_value(const sweep<T, N>&) const;                          // the partial
//
// Slots outside the row hold `pad` in both sweeps, which must be neutral for them.
//
// and three hooks for strategies that hold the whole row segment of a thread in registers,
// which lets an op keep intermediate results instead of recomputing them (softmax keeps
// exp(x - m_thread), so it needs one exponential per element, not two). row_op_base gives the
// defaults that simply call the raw versions:
//
//   template <int M> value partial_in_place(float (&v)[M], slot_mask<M> ok) const;
//   state finalize_in_place(value total, value mine) const;
//   template <int N, class Columns> void apply_in_place(float (&v)[N], int64_t col0, const state&,
//                                                      Columns) const;

#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/kernels/row_io.cuh"
#include "rowwise/kernels/slot_mask.cuh"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

template <class Derived>
struct row_op_base {
  // The Derived type is incomplete while this base is instantiated, so every hook is a
  // template whose body names Derived only when a kernel calls it.
  template <int M, class D = Derived>
  __device__ __forceinline__ auto partial_in_place(float (&v)[M], slot_mask<M> ok) const {
    return static_cast<const D&>(*this).partial(v, ok);
  }
  template <class V, class D = Derived>
  __device__ __forceinline__ auto finalize_in_place(V total, V /*mine*/) const {
    return static_cast<const D&>(*this).finalize(total);
  }
  template <int N, class S, class Columns, class D = Derived>
  __device__ __forceinline__ void apply_in_place(float (&v)[N], int64_t col0, const S& s,
                                                 Columns columns) const {
    static_cast<const D&>(*this).apply(v, col0, s, columns);
  }
  template <int N>
  __device__ __forceinline__ bool columns_aligned(int64_t) const {
    return true;
  }
  template <class S>
  __device__ __forceinline__ void store_stats(int64_t, const S&) const {}
};

}  // namespace kernels
ROWWISE_NAMESPACE_END
