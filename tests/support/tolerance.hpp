// tests/support/tolerance.hpp — how close a kernel's output must be to the fp64 reference, and
// an element-by-element checker that names the first element out of tolerance.
//
// DESIGN.md "Correctness method": |got - ref| <= atol + rtol * |ref| for EVERY element, with
//   rtol = max(table_rtol, 4 * 2^-mantissa_bits * sqrt(cols))
// where mantissa_bits is that of the ARITHMETIC, fp32 (23): the growth term is the accumulation
// over the row, which is fp32 for every T (DESIGN.md: "Arithmetic is fp32 throughout"); the output
// type's rounding, done once, is the table's. Any non-finite output where the reference is finite
// fails; NaN must meet NaN and +-inf the same inf.
// (Until session 36 the growth used the OUTPUT type's mantissa: 4 * 2^-7 * sqrt(cols) reaches 1 at
// bf16 cols = 1024 and fp16 cols = 65536, where an all-zero output passed: no check at all.)
//
// Which error the numbers below cover. A kernel computes in fp32 and rounds each output once to T:
//   * the final rounding to T: at most half an ulp of T, i.e. 2^-(mantissa_bits+1) relative for a
//     normal result; fp32 error just before it can push a value across a rounding midpoint, so one
//     full ulp (2^-mantissa_bits) relative is the honest floor for fp16/bf16 outputs: their table
//     rtol. The growth term 4 * 2^-23 * sqrt(cols) passes it only past 2^26 (fp16) / 2^32 (bf16)
//     columns.
//   * fp32 arithmetic: exp/log/rsqrt (approximate intrinsics are within a few ulps), and for
//     softmax the argument of exp: exp2(x * log2e - m * log2e) and the like carry an error of
//     about |x| * 2^-24 in the exponent, i.e. a relative error of ~|x| * 2^-24 in y. With logits
//     up to |120| (the adversarial rows) a host simulation of that formulation needed rtol 5.2e-6;
//     expf(x - m) needed 2e-7. Hence 1e-5 for fp32 (about 84 fp32 ulps).
//   * accumulation over the row (sum of exp, sum of squares, Welford): grows like sqrt(cols)
//     for random rounding; that is the growth term, not the table.
//   * atol is only for where relative error is meaningless: results that underflow (subnormal or
//     flushed to zero) and results that are ~0 by cancellation (log_softmax near 0, LayerNorm of
//     an element equal to the mean, or gamma*xhat ~ -beta).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace rowwise_test {

struct tolerance {
  double atol;
  double rtol;
};

enum class op_kind { softmax, log_softmax, layer_norm, rms_norm, fused_add_rms_norm };

inline const char* to_string(op_kind op) {
  switch (op) {
    case op_kind::softmax: return "softmax";
    case op_kind::log_softmax: return "log_softmax";
    case op_kind::layer_norm: return "layer_norm";
    case op_kind::rms_norm: return "rms_norm";
    case op_kind::fused_add_rms_norm: return "fused_add_rms_norm";
  }
  return "?";
}

/// The mantissa bits of the arithmetic every kernel accumulates in (fp32).
inline constexpr int fp32_mantissa_bits = 23;

/// DESIGN.md's growth rule: rtol = max(table_rtol, 4 * 2^-mantissa_bits * sqrt(cols)).
inline double grown_rtol(double table_rtol, int mantissa_bits, int64_t cols) {
  const double grown =
      4.0 * std::ldexp(1.0, -mantissa_bits) * std::sqrt(static_cast<double>(std::max<int64_t>(cols, 1)));
  return std::max(table_rtol, grown);
}

/// The tolerance for op with an output type of `mantissa_bits` explicit mantissa bits (23 fp32,
/// 10 fp16, 7 bf16; other values are treated like the nearest of those three classes) and rows of
/// `cols` elements. The rtol returned is already grown (grown_rtol with fp32's 23 bits: the
/// accumulation's).
///
/// fused_add_rms_norm: this is the tolerance of x_out (the normalised output). Its residual output
/// must match fused_add_rms_norm_ref's residual_out EXACTLY (tolerance{0, 0}): fp32 add + one
/// rounding to T is deterministic IEEE arithmetic on both sides.
///
/// layer_norm: assumes rows whose |mean| / std is at most ~10 and |beta| <= ~10. Rows with a large
/// mean relative to their spread (mean 1e4, std 1e-2; constant rows) need layer_norm_row_tolerance.
inline tolerance default_tolerance(op_kind op, int mantissa_bits, int64_t cols) {
  enum class cls { fp32, fp16, bf16 };
  // fp16 is the only narrow-exponent type: its outputs go subnormal below 2^-14 (spacing 2^-24).
  const cls c = mantissa_bits >= 16 ? cls::fp32 : (mantissa_bits >= 9 ? cls::fp16 : cls::bf16);
  const double one_ulp_t = std::ldexp(1.0, -mantissa_bits);  // one ulp of T, relative
  const double fp16_subnormal = std::ldexp(1.0, -24);        // 5.96e-8: spacing of fp16 subnormals

  double table_rtol = 0.0;
  double atol = 0.0;
  switch (op) {
    case op_kind::softmax:
      // rtol fp32 1e-5: exp argument error for |logits| <= 120 (measured 5.2e-6 worst) + a few
      //   ulps of exp / reciprocal. fp16/bf16: one ulp of T (see the header comment).
      table_rtol = c == cls::fp32 ? 1e-5 : one_ulp_t;
      // atol: softmax outputs only lose relative accuracy when they underflow: up to there the
      //   relative error is ~|x - m| * 2^-24 * 1.5 <= 1e-5 (|x - m| <= ~104 before fp32 results
      //   go below its smallest subnormal). fp32 and bf16 (8-bit exponent) underflow / flush to
      //   zero below ~1.2e-38; 1e-9 is far above that and far below any softmax value that
      //   matters (1/cols for cols <= 1e8).
      //   fp16: results below 2^-14 are subnormal with absolute spacing 2^-24, so half a spacing
      //   of rounding plus fp32 error across a midpoint is one spacing: 2^-24.
      atol = c == cls::fp16 ? fp16_subnormal : 1e-9;
      break;
    case op_kind::log_softmax:
      // y = (x - m) - log(d): both terms have the same sign, so |y| >= each and the relative
      //   error of either term carries over; 1e-5 as softmax for fp32, one ulp of T otherwise.
      table_rtol = c == cls::fp32 ? 1e-5 : one_ulp_t;
      // atol 1e-6: y ~ 0 when one logit dominates (d ~ 1): the absolute error of log(d) is then
      //   the relative error of d (a few fp32 ulps of accumulation) plus __logf's absolute error
      //   (2^-21.4 = 3.6e-7 near 1). For fp16 the rounding of y ~ 1e-6 is 3e-8 absolute: covered.
      atol = 1e-6;
      break;
    case op_kind::layer_norm:
      // rtol fp32 1e-5: rstd's relative error (half the variance's, a few ulps + rsqrt) and the
      //   product with gamma; long rows again via the growth term.
      table_rtol = c == cls::fp32 ? 1e-5 : one_ulp_t;
      // atol 1e-5: an output near 0 (x near the mean, or gamma*xhat near -beta) keeps the
      //   absolute error of its terms: ~ (|x| + |mean|) * rstd * 2^-24 + |beta| * 2^-24 — for
      //   |mean|/std <= 10 and |beta| <= 10 that is < 2e-6; 1e-5 leaves 5x. fp16's subnormal
      //   spacing (6e-8) is far below.
      atol = 1e-5;
      break;
    case op_kind::rms_norm:
    case op_kind::fused_add_rms_norm:
      // y = x * rstd * w is a product: relative error everywhere (rsqrt approximation <= 2 ulps,
      //   two multiplies, the sum of squares of a short row). fp32: 4e-6 (~34 ulps).
      table_rtol = c == cls::fp32 ? 4e-6 : one_ulp_t;
      // atol: only underflow breaks relative accuracy. fp16 outputs below 2^-14 round with
      //   absolute spacing 2^-24. fp32/bf16 results underflow below 1.2e-38; a kernel built with
      //   flush-to-zero turns subnormal INPUTS (~1e-40) into 0 while the reference gives
      //   1e-40 * rstd (<= 1e-37 with rstd = 1/sqrt(1e-6)): 1e-30 covers that and nothing else.
      atol = c == cls::fp16 ? fp16_subnormal : 1e-30;
      break;
  }
  return tolerance{atol, grown_rtol(table_rtol, fp32_mantissa_bits, cols)};
}

/// LayerNorm rows whose mean is large compared with their spread: a kernel holding the mean in
/// fp32 holds it to ~|mean| * 2^-24 at best (round to nearest) and a few times that after the
/// merges of a Welford or two-pass reduction; every output then moves by that error times rstd
/// (and gamma), and the variance computed around a mean off by e is off by ~e^2. With
/// s = k * 2^-24 * max_row(|mean| * rstd):
///   atol += s * max|gamma|,   rtol += s^2.
/// For mean 1e4, std 1e-2 (rstd 100) and k = 8: s = 0.48, rtol += 0.23 — loose, but E[x^2]-E[x]^2
/// (variance garbage of order 8 against 1e-4) still fails it by far.
/// k: host simulations of fp32 LayerNorm at mean 1e4 / std 1e-2, n = 64..16384, gave the smallest
/// k that passes every element as: corrected two-pass (or statistics of x - x[0]) 0.8, plain
/// two-pass 2.2, Welford over per-thread runs of <= 64 elements then trees 5.5; Welford folded
/// sequentially over runs of thousands of elements stagnates (its running mean stops moving once
/// |x - mean| / n < half an ulp) and needs ~13+: that is a real accuracy loss, not test noise.
/// Default k = 8 (1.5x over chunked Welford). Computing the statistics on x - x[0] (a pivot, exact
/// by Sterbenz) and normalising x - x[0] - mean' removes the term; a kernel doing that can be
/// held to `base` with k = 1.
/// means / rstds: the reference's per-row statistics (layer_norm_ref's mean_out / rstd_out).
inline tolerance layer_norm_row_tolerance(tolerance base, const double* means, const double* rstds,
                                          int64_t rows, double max_abs_gamma = 1.0, double k = 8.0) {
  double worst = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    const double v = std::fabs(means[r]) * rstds[r];
    if (std::isfinite(v)) worst = std::max(worst, v);
  }
  const double s = k * std::ldexp(1.0, -24) * worst;
  return tolerance{base.atol + s * max_abs_gamma, base.rtol + s * s};
}

/// Outcome of check_close. When ok is false, row/col/got/ref are those of the FIRST failing
/// element (row-major order) and message says why; `failures` counts all failing elements.
struct check_result {
  bool ok = true;
  int64_t row = -1;
  int64_t col = -1;
  double got = 0.0;
  double ref = 0.0;
  std::string message;
  int64_t checked = 0;   // elements checked (always rows * cols: every element is checked)
  int64_t failures = 0;  // elements out of tolerance
  double worst_ratio = 0.0;  // max over finite pairs of |got - ref| / (atol + rtol * |ref|)
};

namespace detail {

inline std::string format_failure(int64_t row, int64_t col, double got, double ref, tolerance tol,
                                  const char* why) {
  char buf[512];
  const double allowed = tol.atol + tol.rtol * std::fabs(ref);
  std::snprintf(buf, sizeof buf,
                "row %lld, col %lld: got %.9g, ref %.17g (%s; |got-ref| = %.3g, allowed = atol %.3g "
                "+ rtol %.3g * |ref| = %.3g)",
                static_cast<long long>(row), static_cast<long long>(col), got, ref, why,
                std::fabs(got - ref), tol.atol, tol.rtol, allowed);
  return buf;
}

}  // namespace detail

/// Check EVERY element of a row-major rows x cols pair (ref from the fp64 references, got from
/// the kernel converted with to_double): |got - ref| <= atol + rtol * |ref|; NaN in ref needs NaN
/// in got; +-inf in ref needs the same inf; a non-finite got where ref is finite fails.
inline check_result check_close(const double* ref, const double* got, int64_t rows, int64_t cols,
                                tolerance tol) {
  check_result res;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double e = ref[r * cols + c];
      const double g = got[r * cols + c];
      ++res.checked;
      const char* why = nullptr;
      if (std::isnan(e)) {
        if (!std::isnan(g)) why = "reference is NaN, output is not";
      } else if (std::isinf(e)) {
        if (g != e) why = e > 0 ? "reference is +inf, output is not" : "reference is -inf, output is not";
      } else if (!std::isfinite(g)) {
        why = std::isnan(g) ? "output is NaN, reference is finite" : "output is inf, reference is finite";
      } else {
        const double err = std::fabs(g - e);
        const double allowed = tol.atol + tol.rtol * std::fabs(e);
        const double ratio = allowed > 0.0 ? err / allowed : (err > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
        res.worst_ratio = std::max(res.worst_ratio, ratio);
        if (!(err <= allowed)) why = "out of tolerance";
      }
      if (why) {
        if (res.ok) {
          res.ok = false;
          res.row = r;
          res.col = c;
          res.got = g;
          res.ref = e;
          res.message = detail::format_failure(r, c, g, e, tol, why);
        }
        ++res.failures;
      }
    }
  }
  if (!res.ok) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "; %lld of %lld elements failed", static_cast<long long>(res.failures),
                  static_cast<long long>(res.checked));
    res.message += buf;
  }
  return res;
}

/// One line for INFO()/FAIL(): the failure message, or a summary of a pass.
inline std::string describe(const check_result& r) {
  if (!r.ok) return r.message;
  char buf[160];
  std::snprintf(buf, sizeof buf, "all %lld elements within tolerance (worst |err|/allowed = %.3g)",
                static_cast<long long>(r.checked), r.worst_ratio);
  return buf;
}

}  // namespace rowwise_test
