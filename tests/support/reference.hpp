// tests/support/reference.hpp — fp64 host references for every rowwise op, one row at a time.
//
// The semantics are those of DESIGN.md ("Public API"): what the kernels compute in fp32 and round
// once to T, these compute in double and do not round, so the difference between the two is the
// kernel's arithmetic error alone (the tolerance of tests/support/tolerance.hpp bounds it).
//
//   softmax_ref / log_softmax_ref   max-subtracted. All -inf row: softmax zeros, log_softmax -inf.
//                                   Any NaN or any +inf in the row: NaN across the row (as PyTorch).
//   layer_norm_ref                  two-pass in double (plus a correction pass), population variance,
//                                   rstd = 1/sqrt(var + eps); y = (x - mean) * rstd * gamma + beta.
//   rms_norm_ref                    y = x / sqrt(mean(x^2) + eps) * weight.
//   fused_add_rms_norm_ref          residual_out = T(float(x) + float(residual)) (the kernel adds in
//                                   fp32 and rounds once to T); x_out = rms_norm of residual_out,
//                                   i.e. of the residual AS STORED.
// Norms on rows holding NaN or inf give whatever IEEE arithmetic gives (NaN across the row for a
// NaN; an inf makes the statistics non-finite): DESIGN.md prescribes nothing more there.
//
// eps: the kernels take a float, so pass double(float_eps) to compare like with like.
// Header-only, host C++17; usable from .cpp and .cu (host code) alike.
#pragma once

#include <rowwise/numeric/dtype.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace rowwise_test {

// --- conversions through the storage type ----------------------------------------------------

/// Storage element -> double (exact: every T value is a float, every float a double).
template <class T>
double to_double(T x) {
  return static_cast<double>(rowwise::dtype_traits<T>::to_float(x));
}

/// double -> storage element, via float (as the kernels' one rounding is float -> T). For a value
/// already representable in T (see quantize() in inputs.hpp) the result is exact.
template <class T>
T from_double(double v) {
  return rowwise::dtype_traits<T>::from_float(static_cast<float>(v));
}

/// The value the GPU sees after v goes through float and is rounded (to nearest even) to T.
template <class T>
double round_through(double v) {
  return to_double<T>(rowwise::from_float<T>(static_cast<float>(v)));
}

/// Convert n storage elements to doubles.
template <class T>
void to_doubles(const T* in, size_t n, double* out) {
  for (size_t i = 0; i < n; ++i) out[i] = to_double<T>(in[i]);
}
template <class T>
std::vector<double> to_doubles(const T* in, size_t n) {
  std::vector<double> out(n);
  to_doubles<T>(in, n, out.data());
  return out;
}

/// Convert n doubles to storage elements (exact when they were quantize()d to T first).
template <class T>
void from_doubles(const double* in, size_t n, T* out) {
  for (size_t i = 0; i < n; ++i) out[i] = from_double<T>(in[i]);
}
template <class T>
std::vector<T> from_doubles(const double* in, size_t n) {
  std::vector<T> out(n);
  from_doubles<T>(in, n, out.data());
  return out;
}

// --- softmax family ----------------------------------------------------------------------------

namespace detail {

struct row_scan {
  bool any_nan = false;
  bool any_pos_inf = false;
  double max = -std::numeric_limits<double>::infinity();
};

inline row_scan scan_row(const double* x, int64_t cols) {
  row_scan s;
  for (int64_t i = 0; i < cols; ++i) {
    const double v = x[i];
    if (std::isnan(v)) {
      s.any_nan = true;
    } else {
      if (v == std::numeric_limits<double>::infinity()) s.any_pos_inf = true;
      if (v > s.max) s.max = v;
    }
  }
  return s;
}

inline void fill(double* y, int64_t cols, double v) {
  for (int64_t i = 0; i < cols; ++i) y[i] = v;
}

}  // namespace detail

/// y = exp(x - max) / sum exp(x - max). All -inf -> zeros; any NaN or +inf -> all NaN.
inline void softmax_ref(const double* x, int64_t cols, double* y) {
  const detail::row_scan s = detail::scan_row(x, cols);
  if (s.any_nan || s.any_pos_inf) return detail::fill(y, cols, std::numeric_limits<double>::quiet_NaN());
  if (s.max == -std::numeric_limits<double>::infinity()) return detail::fill(y, cols, 0.0);
  double d = 0.0;
  for (int64_t i = 0; i < cols; ++i) d += std::exp(x[i] - s.max);  // each term in (0, 1], d >= 1
  const double inv = 1.0 / d;
  for (int64_t i = 0; i < cols; ++i) y[i] = std::exp(x[i] - s.max) * inv;
}

/// y = (x - max) - log(sum exp(x - max)). All -inf -> all -inf; any NaN or +inf -> all NaN.
inline void log_softmax_ref(const double* x, int64_t cols, double* y) {
  const detail::row_scan s = detail::scan_row(x, cols);
  if (s.any_nan || s.any_pos_inf) return detail::fill(y, cols, std::numeric_limits<double>::quiet_NaN());
  if (s.max == -std::numeric_limits<double>::infinity())
    return detail::fill(y, cols, -std::numeric_limits<double>::infinity());
  double d = 0.0;
  for (int64_t i = 0; i < cols; ++i) d += std::exp(x[i] - s.max);
  const double log_d = std::log(d);
  for (int64_t i = 0; i < cols; ++i) y[i] = (x[i] - s.max) - log_d;  // -inf stays -inf
}

// --- norms -------------------------------------------------------------------------------------

/// LayerNorm of one row. gamma/beta/mean_out/rstd_out may be null (gamma null = 1, beta null = 0).
/// mean_out / rstd_out receive one double each (the row's statistics).
inline void layer_norm_ref(const double* x, int64_t cols, const double* gamma, const double* beta,
                           double eps, double* y, double* mean_out, double* rstd_out) {
  const double n = static_cast<double>(cols);
  double sum = 0.0;
  for (int64_t i = 0; i < cols; ++i) sum += x[i];
  double mean = sum / n;
  // Correction pass: sum(x - mean) is 0 in exact arithmetic; what is left is the rounding error of
  // the first mean, removed here (matters for rows like mean 1e4, std 1e-2 at large cols).
  double corr = 0.0;
  for (int64_t i = 0; i < cols; ++i) corr += x[i] - mean;
  mean += corr / n;
  double m2 = 0.0;
  for (int64_t i = 0; i < cols; ++i) {
    const double dlt = x[i] - mean;
    m2 += dlt * dlt;
  }
  const double var = m2 / n;  // population variance (divisor n), as PyTorch's layer_norm
  const double rstd = 1.0 / std::sqrt(var + eps);
  for (int64_t i = 0; i < cols; ++i) {
    double v = (x[i] - mean) * rstd;
    if (gamma) v *= gamma[i];
    if (beta) v += beta[i];
    y[i] = v;
  }
  if (mean_out) *mean_out = mean;
  if (rstd_out) *rstd_out = rstd;
}

/// RMSNorm of one row: y = x / sqrt(mean(x^2) + eps) * weight (weight null = 1).
inline void rms_norm_ref(const double* x, int64_t cols, const double* weight, double eps, double* y) {
  double ss = 0.0;
  for (int64_t i = 0; i < cols; ++i) ss += x[i] * x[i];
  const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps);
  for (int64_t i = 0; i < cols; ++i) {
    double v = x[i] * rstd;
    if (weight) v *= weight[i];
    y[i] = v;
  }
}

/// fused_add_rms_norm of one row. x and residual are the inputs as stored in T (as doubles);
/// round_to_t is a double -> double callable giving the value after rounding to T, e.g.
/// rowwise_test::round_through<__half>. Outputs: residual_out (the new residual, exactly what the
/// kernel must store: compare it with zero tolerance) and x_out (unrounded; compare with the
/// rms_norm tolerance). residual_out may alias residual, x_out may alias x.
template <class RoundToT>
void fused_add_rms_norm_ref(const double* x, const double* residual, int64_t cols,
                            const double* weight, double eps, RoundToT round_to_t, double* x_out,
                            double* residual_out) {
  for (int64_t i = 0; i < cols; ++i) {
    // The kernel converts both to fp32, adds in fp32 (one rounding to float), then rounds to T.
    const float sum = static_cast<float>(x[i]) + static_cast<float>(residual[i]);
    residual_out[i] = round_to_t(static_cast<double>(sum));
  }
  rms_norm_ref(residual_out, cols, weight, eps, x_out);  // normalise the residual AS STORED
}

}  // namespace rowwise_test
