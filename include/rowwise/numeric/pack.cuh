// rowwise/numeric/pack.cuh — aligned arrays of N elements moved as one access.
//
// aligned_array<T, N> is the single vector type of the library: N * sizeof(T) is 1..16 bytes
// and the array is aligned to its own size, so one load or store of it compiles to a single
// LDG/STG of that width (16 bytes: LDG.E.128) when the address is aligned to that size.
// Callers are responsible for alignment: the dispatch layer only picks a width for which every
// pointer and row stride involved is aligned (see dispatch/alignment.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "rowwise/abi.hpp"
#include "rowwise/numeric/dtype.cuh"
#include "rowwise/numeric/load_policy.hpp"

ROWWISE_NAMESPACE_BEGIN

/// Elements in one 16-byte access of T: 4 for fp32, 8 for fp16/bf16.
template <class T>
inline constexpr int max_pack_elems_v = 16 / static_cast<int>(sizeof(T));

template <class T, int N>
struct alignas(sizeof(T) * N) aligned_array {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "pack length must be a power of two");
  static_assert(sizeof(T) * N <= 16, "a pack is at most 16 bytes");
  T v[N];
  __host__ __device__ T& operator[](int i) { return v[i]; }
  __host__ __device__ const T& operator[](int i) const { return v[i]; }
};


/// The integer type of a pack's size: packs move as one such value, so that every element type
/// (including the 16-bit float structs, whose copies may be split element-wise) is one access.
template <int Bytes> struct pack_word;
template <> struct pack_word<1> { using type = uint8_t; };
template <> struct pack_word<2> { using type = uint16_t; };
template <> struct pack_word<4> { using type = uint32_t; };
template <> struct pack_word<8> { using type = uint2; };
template <> struct pack_word<16> { using type = uint4; };

/// Load one aligned pack from global memory. `p` must be aligned to sizeof(T) * N.
template <load_policy P = load_policy::keep, class T, int N>
__device__ __forceinline__ void load_pack(aligned_array<T, N>& dst, const T* p) {
  using A = aligned_array<T, N>;
  using W = typename pack_word<sizeof(A)>::type;
  W raw;
  if constexpr (P == load_policy::stream) {
    raw = __ldcs(reinterpret_cast<const W*>(p));
  } else {
    raw = *reinterpret_cast<const W*>(p);
  }
  dst = *reinterpret_cast<const A*>(&raw);
}

/// Store one aligned pack to global memory as store_policy S says (numeric/load_policy.hpp).
template <store_policy S = store_policy::keep, class T, int N>
__device__ __forceinline__ void store_pack(T* p, const aligned_array<T, N>& src) {
  using A = aligned_array<T, N>;
  using W = typename pack_word<sizeof(A)>::type;
  const W raw = *reinterpret_cast<const W*>(&src);
  if constexpr (S == store_policy::stream) {
    __stcs(reinterpret_cast<W*>(p), raw);
  } else if constexpr (S == store_policy::vector) {
    __stwb(reinterpret_cast<W*>(p), raw);
  } else {
    *reinterpret_cast<W*>(p) = raw;
  }
}

/// Convert a pack to fp32 values.
template <class T, int N>
__device__ __forceinline__ void pack_to_float(const aligned_array<T, N>& a, float (&out)[N]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&a.v[i]));
      out[i] = f.x;
      out[i + 1] = f.y;
    }
  } else if constexpr (std::is_same_v<T, __half> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&a.v[i]));
      out[i] = f.x;
      out[i + 1] = f.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = to_float(a.v[i]);
  }
}

/// pack_to_float with bf16 pairs taken apart by their bits: the low value is the 32-bit word
/// shifted left by 16, the high one the word with its low half cleared (one instruction per
/// value; __bfloat1622float2 takes a PRMT and an IMAD for the high one). For kernels with
/// registers to spare: the staged kernel (bf16 softmax 152064 / 262144 columns +1-2 points,
/// bench/NOTES.md 26); at the row kernels' 64-register cap ptxas allocated worse with it (23a).
template <class T, int N>
__device__ __forceinline__ void pack_to_float_by_bits(const aligned_array<T, N>& a, float (&out)[N]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const unsigned w = *reinterpret_cast<const unsigned*>(&a.v[i]);
      out[i] = __uint_as_float(w << 16);
      out[i + 1] = __uint_as_float(w & 0xffff0000u);
    }
  } else {
    pack_to_float(a, out);
  }
}

/// Round fp32 values into a pack (each value rounded once). 16-bit types convert in pairs: one
/// F2FP instruction per two values instead of two conversions and a merge.
template <class T, int N>
__device__ __forceinline__ void float_to_pack(const float (&in)[N], aligned_array<T, N>& a) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2)
      *reinterpret_cast<__nv_bfloat162*>(&a.v[i]) = __floats2bfloat162_rn(in[i], in[i + 1]);
  } else if constexpr (std::is_same_v<T, __half> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2)
      *reinterpret_cast<__half2*>(&a.v[i]) = __floats2half2_rn(in[i], in[i + 1]);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) a.v[i] = from_float<T>(in[i]);
  }
}

/// x + r in fp32, rounded once to T: the residual that fused_add_rms_norm stores and then
/// normalises (as stored, so that it agrees with the two-call composition).
template <class T, int N>
__device__ __forceinline__ aligned_array<T, N> rounded_sum(const aligned_array<T, N>& x,
                                                          const aligned_array<T, N>& r) {
  float a[N], b[N];
  pack_to_float(x, a);
  pack_to_float(r, b);
#pragma unroll
  for (int j = 0; j < N; ++j) a[j] += b[j];
  aligned_array<T, N> sum;
  float_to_pack(a, sum);
  return sum;
}

ROWWISE_NAMESPACE_END
