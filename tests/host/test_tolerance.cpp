// Host tests of tests/support/tolerance.hpp: the growth rule, the per-op table and check_close.
#include <catch2/catch.hpp>

#include "support/inputs.hpp"
#include "support/tolerance.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace rowwise_test;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("grown_rtol = max(table, 4 * 2^-mantissa_bits * sqrt(cols))", "[host][tolerance]") {
  // bf16 at 4096 cols: 4 * 2^-7 * 64 = 2^2 * 2^-7 * 2^6 = 2.
  CHECK(grown_rtol(1e-2, 7, 4096) == 2.0);
  // fp16, one column: 4 * 2^-10 = 2^-8 = 0.00390625 > 1e-3.
  CHECK(grown_rtol(1e-3, 10, 1) == 0.00390625);
  // fp32: 4 * 2^-23 * sqrt(cols); the table wins until sqrt(cols) > 1e-5 * 2^21 = 20.97 (cols 440).
  CHECK(grown_rtol(1e-5, 23, 1) == 1e-5);
  CHECK(grown_rtol(1e-5, 23, 439) == 1e-5);
  CHECK(grown_rtol(1e-5, 23, 441) > 1e-5);
  CHECK(grown_rtol(1e-5, 23, 4096) == std::ldexp(1.0, -15));  // 2^2 * 2^-23 * 2^6
  CHECK(grown_rtol(0.0, 23, 1 << 20) == std::ldexp(1.0, -11));  // sqrt(2^20) = 2^10
  CHECK(grown_rtol(0.0, 10, 0) == grown_rtol(0.0, 10, 1));     // cols < 1 treated as 1
}

TEST_CASE("default_tolerance: rtol grown with fp32's mantissa (the accumulation), T's rounding in the table, "
          "atol per output type",
          "[host][tolerance]") {
  const op_kind ops[] = {op_kind::softmax, op_kind::log_softmax, op_kind::layer_norm, op_kind::rms_norm,
                         op_kind::fused_add_rms_norm};
  for (op_kind op : ops) {
    for (int mb : {23, 10, 7}) {
      for (int64_t cols : {1, 7, 1024, 4096, 100000, 262144, 1 << 20}) {
        INFO(to_string(op) << " mantissa_bits " << mb << " cols " << cols);
        const tolerance t = default_tolerance(op, mb, cols);
        CHECK(t.rtol >= grown_rtol(0.0, 23, cols));        // never tighter than fp32 accumulation
        CHECK(t.rtol >= std::ldexp(1.0, -(mb + 1)));       // never tighter than T's rounding
        CHECK(t.atol >= 0.0);
        CHECK(t.atol <= 1e-5);
        // 16-bit: one ulp of T, whatever the row length (the growth term stays below it).
        if (mb < 23) CHECK(t.rtol == std::ldexp(1.0, -mb));
        // The check has teeth: an output off by a factor of 2 (or all zero) fails at every width.
        CHECK(t.rtol < 0.5);
      }
    }
  }
  CHECK(default_tolerance(op_kind::softmax, 23, 1).rtol == 1e-5);
  CHECK(default_tolerance(op_kind::softmax, 10, 128).atol == std::ldexp(1.0, -24));  // fp16 subnormal step
  CHECK(default_tolerance(op_kind::rms_norm, 23, 64).rtol == default_tolerance(op_kind::fused_add_rms_norm, 23, 64).rtol);
}

TEST_CASE("layer_norm_row_tolerance widens for large |mean| * rstd only", "[host][tolerance]") {
  const tolerance base = default_tolerance(op_kind::layer_norm, 23, 1024);
  const double small_means[2] = {0.1, -0.3}, small_rstds[2] = {1.0, 2.0};
  const tolerance t0 = layer_norm_row_tolerance(base, small_means, small_rstds, 2);
  CHECK(t0.atol - base.atol < 1e-6);
  // mean 1e4, std 1e-2 -> rstd 100: s = 8 * 2^-24 * 1e6 = 0.4768...; atol + s, rtol + s^2.
  const double means[2] = {0.0, 1e4}, rstds[2] = {1.0, 100.0};
  const tolerance t1 = layer_norm_row_tolerance(base, means, rstds, 2);
  const double s = 8.0 * std::ldexp(1.0, -24) * 1e6;
  CHECK(t1.atol == Approx(base.atol + s));
  CHECK(t1.rtol == Approx(base.rtol + s * s));
  // gamma scales the shift; k is a parameter
  const tolerance t2 = layer_norm_row_tolerance(base, means, rstds, 2, 2.0, 1.0);
  CHECK(t2.atol == Approx(base.atol + 2.0 * s / 8.0));
  CHECK(t2.rtol == Approx(base.rtol + (s / 8.0) * (s / 8.0)));
}

TEST_CASE("check_close finds a single bad element and names its row and column", "[host][tolerance]") {
  seeded_rng rng("check_close single bad element");
  INFO(rng.describe());
  const int64_t rows = 5, cols = 7;
  std::vector<double> ref(rows * cols), got(rows * cols);
  fill_normal(ref.data(), rows, cols, 0.0, 1.0, rng);
  for (size_t i = 0; i < ref.size(); ++i) got[i] = ref[i] * (1.0 + 1e-7);  // well inside
  const tolerance tol{1e-6, 1e-5};

  check_result ok = check_close(ref.data(), got.data(), rows, cols, tol);
  CHECK(ok.ok);
  CHECK(ok.checked == rows * cols);
  CHECK(ok.failures == 0);
  CHECK(ok.worst_ratio < 1.0);
  CHECK(contains(describe(ok), "all 35 elements"));

  got[3 * cols + 4] = ref[3 * cols + 4] + 0.01 + 1e-3 * std::fabs(ref[3 * cols + 4]);
  check_result bad = check_close(ref.data(), got.data(), rows, cols, tol);
  CHECK_FALSE(bad.ok);
  CHECK(bad.row == 3);
  CHECK(bad.col == 4);
  CHECK(bad.got == got[3 * cols + 4]);
  CHECK(bad.ref == ref[3 * cols + 4]);
  CHECK(bad.checked == rows * cols);  // it kept checking after the failure
  CHECK(bad.failures == 1);
  CHECK(contains(bad.message, "row 3, col 4"));
  CHECK(contains(bad.message, "atol"));
  CHECK(contains(bad.message, "rtol"));
  CHECK(contains(bad.message, "1 of 35"));
  CHECK(describe(bad) == bad.message);

  // Two failures: the first in row-major order is the one reported; both are counted.
  got[1 * cols + 6] = -got[1 * cols + 6] - 1.0;
  bad = check_close(ref.data(), got.data(), rows, cols, tol);
  CHECK(bad.row == 1);
  CHECK(bad.col == 6);
  CHECK(bad.failures == 2);
}

TEST_CASE("check_close: the bound is |got - ref| <= atol + rtol * |ref|, inclusive", "[host][tolerance]") {
  // All values exact in binary: allowed = 0.25 + 0.25 * |-2| = 0.75.
  const double ref[1] = {-2.0};
  const tolerance tol{0.25, 0.25};
  const double at_bound[1] = {-1.25}, beyond[1] = {-1.25 + 1e-12}, below[1] = {-2.75};
  CHECK(check_close(ref, at_bound, 1, 1, tol).ok);
  CHECK(check_close(ref, below, 1, 1, tol).ok);
  CHECK_FALSE(check_close(ref, beyond, 1, 1, tol).ok);
  // zero tolerance: exact equality only.
  CHECK(check_close(ref, ref, 1, 1, tolerance{0.0, 0.0}).ok);
  CHECK_FALSE(check_close(ref, at_bound, 1, 1, tolerance{0.0, 0.0}).ok);
  // zero rows: nothing to check, which passes.
  const check_result empty = check_close(ref, ref, 0, 1, tol);
  CHECK(empty.ok);
  CHECK(empty.checked == 0);
}

TEST_CASE("check_close: NaN and inf", "[host][tolerance]") {
  const tolerance tol{1e-6, 1e-5};
  SECTION("NaN in ref needs NaN in got") {
    const double ref[2] = {1.0, nan_v};
    const double good[2] = {1.0, nan_v};
    const double bad[2] = {1.0, 0.0};
    CHECK(check_close(ref, good, 1, 2, tol).ok);
    const check_result r = check_close(ref, bad, 1, 2, tol);
    CHECK_FALSE(r.ok);
    CHECK(r.col == 1);
    CHECK(contains(r.message, "reference is NaN"));
  }
  SECTION("a non-finite got where ref is finite fails, whatever the tolerance") {
    const double ref[3] = {1.0, 2.0, 3.0};
    const double got_nan[3] = {1.0, nan_v, 3.0};
    const double got_inf[3] = {1.0, 2.0, -inf};
    const tolerance huge{1e300, 1e300};
    check_result r = check_close(ref, got_nan, 1, 3, huge);
    CHECK_FALSE(r.ok);
    CHECK(r.row == 0);
    CHECK(r.col == 1);
    CHECK(contains(r.message, "output is NaN"));
    r = check_close(ref, got_inf, 1, 3, huge);
    CHECK_FALSE(r.ok);
    CHECK(r.col == 2);
    CHECK(contains(r.message, "output is inf"));
  }
  SECTION("inf in ref needs the same inf") {
    const double ref[3] = {inf, -inf, 0.5};
    const double good[3] = {inf, -inf, 0.5};
    CHECK(check_close(ref, good, 1, 3, tol).ok);
    const double flipped[3] = {-inf, -inf, 0.5};
    const double finite[3] = {inf, -1e308, 0.5};
    const double nan_for_inf[3] = {nan_v, -inf, 0.5};
    check_result r = check_close(ref, flipped, 1, 3, tol);
    CHECK_FALSE(r.ok);
    CHECK(r.col == 0);
    r = check_close(ref, finite, 1, 3, tolerance{1e300, 1e300});
    CHECK_FALSE(r.ok);
    CHECK(r.col == 1);
    CHECK(contains(r.message, "-inf"));
    CHECK_FALSE(check_close(ref, nan_for_inf, 1, 3, tol).ok);
  }
  SECTION("2-D position of a NaN in a larger matrix") {
    std::vector<double> ref(4 * 6, 0.25), got(4 * 6, 0.25);
    got[2 * 6 + 5] = nan_v;
    const check_result r = check_close(ref.data(), got.data(), 4, 6, tol);
    CHECK_FALSE(r.ok);
    CHECK(r.row == 2);
    CHECK(r.col == 5);
    CHECK(r.checked == 24);
  }
}
