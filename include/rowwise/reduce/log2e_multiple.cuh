// rowwise/reduce/log2e_multiple.cuh — the shift of softmax's exponentials: m * log2e split into an
// fp32 part that an FFMA subtracts from every x * log2e and a remainder taken out once, or, for a
// maximum too large for that split, an exact-only form.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace kernels {

/// log2(e), rounded to fp32.
inline constexpr float log2e = 1.4426950408889634f;

/// The exponent of 2 that every exponential of a thread or row evaluates, 2^(fma(x, slope, -hi)),
/// and the factor 2^lo that this leaves over exp(x - m), taken out once.
struct log2e_multiple {
  float hi;     // fp32(m * log2e); m itself on the exact-only path
  float lo;     // m * log2e - hi, exact (by fma); 0 on the exact-only path
  float slope;  // log2e; 1 on the exact-only path
};

/// Ordinary m: hi + lo = m * log2e exactly, and |lo| <= half an ulp of hi.
/// |m| >= ~1.49e9 (a finite mask fill: -1e10, the dtype's lowest): that half ulp reaches 2^7 and
/// beyond (inf once m * log2e overflows), where 2^lo and 2^-lo overflow and underflow (inf * 0:
/// a NaN row). There every other fp32 value is at least 128 from m (|m| >= 2^30), so exp(x - m) is
/// 1 at x = m and below fp32's range for every other x (e^-128 < 2^-149): 2^(x - m), exact at 0
/// and flushed to 0 below 2^-126, gives exactly that, with no remainder to take out.
/// The test is on lo: NaN (m = +inf, whose row must come out NaN) keeps the ordinary path.
/// (Host and device: the host tests check these properties over fp32's range.)
__host__ __device__ __forceinline__ log2e_multiple times_log2e(float m) {
#if defined(__CUDA_ARCH__)
  const float hi = __fmul_rn(m, log2e);  // never contracted into a neighbouring add
#else
  volatile float product = m * log2e;  // rounded to fp32 here, whatever the host's contraction
  const float hi = product;
#endif
  const float lo = fmaf(m, log2e, -hi);
  if (fabsf(lo) > 64.0f) return {m, 0.0f, 1.0f};
  return {hi, lo, log2e};
}

}  // namespace kernels
ROWWISE_NAMESPACE_END
