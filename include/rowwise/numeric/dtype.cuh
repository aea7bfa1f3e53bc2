// rowwise/numeric/dtype.cuh — the element types rowwise accepts and their fp32 conversions.
//
// All arithmetic in rowwise is fp32; a storage type T only says how elements are read and
// how the one final rounding is done. dtype_traits<T> is usable on the host too (the tests'
// fp64 references round through it), which is why every member is __host__ __device__.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

template <class T>
struct dtype_traits;  // only the three specialisations below exist: using another type is an error

template <>
struct dtype_traits<float> {
  static constexpr const char* name = "fp32";
  static constexpr int mantissa_bits = 23;  // explicit bits; the unit roundoff is 2^-(bits+1)
  __host__ __device__ static float to_float(float x) { return x; }
  __host__ __device__ static float from_float(float x) { return x; }
};

template <>
struct dtype_traits<__half> {
  static constexpr const char* name = "fp16";
  static constexpr int mantissa_bits = 10;
  __host__ __device__ static float to_float(__half x) { return __half2float(x); }
  __host__ __device__ static __half from_float(float x) { return __float2half_rn(x); }
};

template <>
struct dtype_traits<__nv_bfloat16> {
  static constexpr const char* name = "bf16";
  static constexpr int mantissa_bits = 7;
  __host__ __device__ static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  __host__ __device__ static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
};

template <class T>
inline constexpr bool is_supported_dtype_v =
    std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/// Convert a storage element to fp32.
template <class T>
__host__ __device__ __forceinline__ float to_float(T x) {
  return dtype_traits<T>::to_float(x);
}

/// Round an fp32 value to the storage type (round to nearest even): the one rounding of an output.
template <class T>
__host__ __device__ __forceinline__ T from_float(float x) {
  return dtype_traits<T>::from_float(x);
}

ROWWISE_NAMESPACE_END
