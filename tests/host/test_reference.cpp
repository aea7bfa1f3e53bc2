// Host tests of the fp64 references (tests/support/reference.hpp) against values worked out by
// hand, and of the input generators (tests/support/inputs.hpp) they are fed with.
#include <catch2/catch.hpp>

#include "support/inputs.hpp"
#include "support/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace rowwise_test;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// Relative closeness for hand-computed literals (the references are fp64; 1e-14 allows a few
// double ulps of exp/log/sqrt and summation).
bool near(double got, double want, double rel = 1e-14) {
  return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
}

}  // namespace

TEST_CASE("softmax_ref: [0, ln2, ln3] -> [1/6, 2/6, 3/6], shift invariant", "[host][reference]") {
  // exp(0) : exp(ln2) : exp(ln3) = 1 : 2 : 3, sum 6.
  const double x[3] = {0.0, std::log(2.0), std::log(3.0)};
  double y[3];
  softmax_ref(x, 3, y);
  CHECK(near(y[0], 1.0 / 6.0));
  CHECK(near(y[1], 2.0 / 6.0));
  CHECK(near(y[2], 3.0 / 6.0));

  // Adding 1000 to every logit changes nothing (exp(1000) would overflow double without the
  // max subtraction).
  const double xs[3] = {1000.0, 1000.0 + std::log(2.0), 1000.0 + std::log(3.0)};
  softmax_ref(xs, 3, y);
  CHECK(near(y[0], 1.0 / 6.0, 1e-12));  // 1000 + ln2 rounds at 1000's ulp (1.1e-13)
  CHECK(near(y[1], 2.0 / 6.0, 1e-12));
  CHECK(near(y[2], 3.0 / 6.0, 1e-12));
}

TEST_CASE("log_softmax_ref: [0, ln2, ln3] -> [-ln6, -ln3, -ln2]", "[host][reference]") {
  // log(k/6) = ln k - ln 6: ln(1/6) = -1.791759469228055, ln(2/6) = -ln3, ln(3/6) = -ln2.
  const double x[3] = {0.0, std::log(2.0), std::log(3.0)};
  double y[3];
  log_softmax_ref(x, 3, y);
  CHECK(near(y[0], -1.791759469228055));
  CHECK(near(y[1], -1.0986122886681098));
  CHECK(near(y[2], -0.6931471805599453));
}

TEST_CASE("softmax family: cols = 1, -inf elements, all -inf, NaN, +inf", "[host][reference]") {
  double y[4];
  SECTION("one column: softmax 1, log_softmax 0") {
    const double x[1] = {-7.5};
    softmax_ref(x, 1, y);
    CHECK(y[0] == 1.0);
    log_softmax_ref(x, 1, y);
    CHECK(y[0] == 0.0);
  }
  SECTION("a -inf element among finite ones gets 0 / -inf") {
    const double x[3] = {-inf, 0.0, 0.0};
    softmax_ref(x, 3, y);
    CHECK(y[0] == 0.0);
    CHECK(y[1] == 0.5);
    CHECK(y[2] == 0.5);
    log_softmax_ref(x, 3, y);
    CHECK(y[0] == -inf);
    CHECK(near(y[1], -0.6931471805599453));
    CHECK(near(y[2], -0.6931471805599453));
  }
  SECTION("all -inf: softmax zeros, log_softmax all -inf, no NaN") {
    const double x[4] = {-inf, -inf, -inf, -inf};
    softmax_ref(x, 4, y);
    for (double v : y) CHECK(v == 0.0);
    log_softmax_ref(x, 4, y);
    for (double v : y) CHECK(v == -inf);
  }
  SECTION("one NaN: NaN across the row") {
    const double x[4] = {1.0, nan_v, -inf, 2.0};
    softmax_ref(x, 4, y);
    for (double v : y) CHECK(std::isnan(v));
    log_softmax_ref(x, 4, y);
    for (double v : y) CHECK(std::isnan(v));
  }
  SECTION("one +inf: NaN across the row (as PyTorch)") {
    const double x[4] = {1.0, inf, -inf, 2.0};
    softmax_ref(x, 4, y);
    for (double v : y) CHECK(std::isnan(v));
    log_softmax_ref(x, 4, y);
    for (double v : y) CHECK(std::isnan(v));
  }
}

TEST_CASE("softmax_ref sums to 1 and log_softmax_ref = log(softmax_ref) on random rows",
          "[host][reference]") {
  seeded_rng rng("softmax_ref random rows");
  INFO(rng.describe());
  for (int64_t cols : {1, 2, 17, 1000}) {
    std::vector<double> x(cols), y(cols), ly(cols);
    fill_normal(x.data(), 1, cols, 0.0, 5.0, rng);
    softmax_ref(x.data(), cols, y.data());
    log_softmax_ref(x.data(), cols, ly.data());
    double s = 0.0;
    for (int64_t i = 0; i < cols; ++i) {
      s += y[i];
      CHECK(std::fabs(ly[i] - std::log(y[i])) <= 1e-12 * std::max(1.0, std::fabs(ly[i])));
    }
    CHECK(near(s, 1.0, 1e-12));
  }
}

TEST_CASE("rms_norm_ref: hand-computed row", "[host][reference]") {
  // x = 0.25 * [-5, -3, -1, 1, 3, 5, 7, 9]
  // x^2 = [1.5625, 0.5625, 0.0625, 0.0625, 0.5625, 1.5625, 3.0625, 5.0625], sum 12.5
  // mean(x^2) = 12.5 / 8 = 1.5625 = 1.25^2
  // eps 1e-5: sqrt(1.5625 + 1e-5) = 1.25 * sqrt(1 + a), a = 1e-5 / 1.5625 = 6.4e-6
  //   rstd = 0.8 / sqrt(1 + a) = 0.8 * (1 - a/2 + 3a^2/8 - ...) = 0.8 - 2.56e-6 + 1.2288e-11 - ...
  //        = 0.79999744001228793...
  //   y = x * rstd = k * 0.2 * (1 - a/2 + ...) = k * 0.19999936000307198...  for k = -5..9 odd
  const double x[8] = {-1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 1.75, 2.25};
  const double want_eps[8] = {-0.99999680001535992, -0.59999808000921595, -0.19999936000307198,
                              0.19999936000307198,  0.59999808000921595,  0.99999680001535992,
                              1.3999955200215039,   1.7999942400276479};
  double y[8];
  rms_norm_ref(x, 8, nullptr, 1e-5, y);
  for (int i = 0; i < 8; ++i) CHECK(near(y[i], want_eps[i]));

  // eps 0: rstd = 1 / 1.25 = 0.8 exactly, y = x * 0.8 = [-1, -0.6, -0.2, 0.2, 0.6, 1, 1.4, 1.8].
  const double want_0[8] = {-1.0, -0.6, -0.2, 0.2, 0.6, 1.0, 1.4, 1.8};
  rms_norm_ref(x, 8, nullptr, 0.0, y);
  for (int i = 0; i < 8; ++i) CHECK(near(y[i], want_0[i]));

  // with a weight: elementwise product of the above.
  const double w[8] = {1.0, -2.0, 0.5, 4.0, 0.0, 1.0, -1.0, 3.0};
  rms_norm_ref(x, 8, w, 0.0, y);
  for (int i = 0; i < 8; ++i) CHECK(near(y[i], want_0[i] * w[i]));
}

TEST_CASE("layer_norm_ref: [1, 2, 3, 4] with and without gamma/beta, mean/rstd outputs",
          "[host][reference]") {
  // mean 2.5; x - mean = [-1.5, -0.5, 0.5, 1.5]; squares [2.25, 0.25, 0.25, 2.25], sum 5,
  // population variance 5 / 4 = 1.25.
  const double x[4] = {1.0, 2.0, 3.0, 4.0};
  double y[4];
  double mean = 0.0, rstd = 0.0;

  SECTION("eps 0: rstd = 1/sqrt(1.25) = 2/sqrt(5) = 0.894427190999915878...") {
    layer_norm_ref(x, 4, nullptr, nullptr, 0.0, y, &mean, &rstd);
    CHECK(mean == 2.5);
    CHECK(near(rstd, 0.89442719099991588));
    // y = (x - mean) * rstd = [-1.5, -0.5, 0.5, 1.5] * 0.8944271909999159
    CHECK(near(y[0], -1.3416407864998738));
    CHECK(near(y[1], -0.44721359549995794));
    CHECK(near(y[2], 0.44721359549995794));
    CHECK(near(y[3], 1.3416407864998738));
  }
  SECTION("eps 0.75: var + eps = 2, rstd = 1/sqrt(2) = 0.70710678118654752...") {
    layer_norm_ref(x, 4, nullptr, nullptr, 0.75, y, &mean, &rstd);
    CHECK(mean == 2.5);
    CHECK(near(rstd, 0.70710678118654752));
    CHECK(near(y[0], -1.0606601717798213));  // -1.5 / sqrt(2)
    CHECK(near(y[1], -0.35355339059327376));  // -0.5 / sqrt(2)
    CHECK(near(y[2], 0.35355339059327376));
    CHECK(near(y[3], 1.0606601717798213));
  }
  SECTION("gamma and beta (eps 0)") {
    const double g[4] = {1.0, 2.0, 0.5, -1.0};
    const double b[4] = {0.0, 1.0, -1.0, 0.5};
    layer_norm_ref(x, 4, g, b, 0.0, y, nullptr, nullptr);
    CHECK(near(y[0], -1.3416407864998738));               // -1.3416... * 1 + 0
    CHECK(near(y[1], -0.89442719099991588 + 1.0));        // -0.4472... * 2 + 1 = 0.10557...
    CHECK(near(y[2], 0.22360679774997897 - 1.0));         //  0.4472... * 0.5 - 1 = -0.77639...
    CHECK(near(y[3], -1.3416407864998738 + 0.5));         //  1.3416... * -1 + 0.5 = -0.84164...
    // gamma only / beta only
    layer_norm_ref(x, 4, g, nullptr, 0.0, y, nullptr, nullptr);
    CHECK(near(y[1], -0.89442719099991588));
    layer_norm_ref(x, 4, nullptr, b, 0.0, y, nullptr, nullptr);
    CHECK(near(y[2], 0.44721359549995794 - 1.0));
  }
  SECTION("constant row: variance 0, rstd = 1/sqrt(eps), output = beta") {
    const double c[4] = {3.0, 3.0, 3.0, 3.0};
    const double b[4] = {0.25, -0.5, 0.0, 7.0};
    layer_norm_ref(c, 4, nullptr, b, 1e-4, y, &mean, &rstd);
    CHECK(mean == 3.0);
    CHECK(near(rstd, 100.0));
    for (int i = 0; i < 4; ++i) CHECK(y[i] == b[i]);
  }
  SECTION("mean 1e4, std 1e-2: no cancellation in the reference") {
    // x = 1e4 + 0.01 * [-1.5, -0.5, 0.5, 1.5] (as doubles); var = 1.25e-4 up to the rounding of
    // the inputs (1e4's ulp in double is 1.8e-12, i.e. 1e-10 relative to the deviations).
    const double xl[4] = {1e4 - 0.015, 1e4 - 0.005, 1e4 + 0.005, 1e4 + 0.015};
    layer_norm_ref(xl, 4, nullptr, nullptr, 0.0, y, &mean, &rstd);
    CHECK(near(mean, 1e4));
    CHECK(near(rstd, 1.0 / std::sqrt(1.25e-4), 1e-9));
    CHECK(near(y[0], -1.3416407864998738, 1e-9));
    CHECK(near(y[3], 1.3416407864998738, 1e-9));
  }
}

TEST_CASE("fused_add_rms_norm_ref: residual rounded to T (fp32 add, one rounding), x_out = rms_norm of it",
          "[host][reference]") {
  // fp16 has 10 explicit mantissa bits: spacing 2^-10 in [1, 2), 2 in [2048, 4096).
  //   1 + 2^-11            : tie between 1 and 1 + 2^-10 -> even -> 1
  //   (1 + 2^-10) + 2^-11  = 1 + 3 * 2^-11: tie between 1 + 2^-10 and 1 + 2^-9 -> even -> 1 + 2^-9
  //   2048 + 1             : tie between 2048 and 2050 -> even -> 2048
  //   -3 + 0.5 = -2.5      : exact
  const double x[4] = {1.0, 1.0 + 0x1.0p-10, 2048.0, -3.0};
  const double res[4] = {0x1.0p-11, 0x1.0p-11, 1.0, 0.5};
  const double stored_fp16[4] = {1.0, 1.0 + 0x1.0p-9, 2048.0, -2.5};
  const double exact[4] = {1.0 + 0x1.0p-11, 1.0 + 3 * 0x1.0p-11, 2049.0, -2.5};
  const double w[4] = {1.0, 0.5, 2.0, -1.0};
  const double eps = 1e-6;

  double x_out[4], r_out[4], want[4];
  fused_add_rms_norm_ref(x, res, 4, w, eps, round_through<__half>, x_out, r_out);
  for (int i = 0; i < 4; ++i) CHECK(r_out[i] == stored_fp16[i]);

  // x_out is rms_norm of the residual AS STORED ...
  rms_norm_ref(stored_fp16, 4, w, eps, want);
  for (int i = 0; i < 4; ++i) CHECK(x_out[i] == want[i]);
  // ... which is measurably not rms_norm of the exact sum (2049 vs 2048 dominates the rms).
  double unrounded[4];
  rms_norm_ref(exact, 4, w, eps, unrounded);
  // (element 3, -2.5 in both: only rstd differs, by ~2048/2049)
  CHECK(std::fabs(unrounded[3] - x_out[3]) > 1e-4 * std::fabs(x_out[3]));

  // T = float: the sums above are exact in fp32, so nothing is rounded.
  fused_add_rms_norm_ref(x, res, 4, w, eps, round_through<float>, x_out, r_out);
  for (int i = 0; i < 4; ++i) CHECK(r_out[i] == exact[i]);

  // The add is done in fp32: 2048 + 2^-24 needs 35 bits, fp32 keeps 24 -> 2048 even for T = float.
  const double xa[1] = {2048.0}, ra[1] = {0x1.0p-24};
  fused_add_rms_norm_ref(xa, ra, 1, nullptr, 0.0, round_through<float>, x_out, r_out);
  CHECK(r_out[0] == 2048.0);
  CHECK(x_out[0] == 1.0);  // a one-element row normalises to sign(x) with eps 0

  // bf16 (7 explicit bits): 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> even -> 1.
  const double xb[2] = {1.0, 1.0 + 0x1.0p-7}, rb[2] = {0x1.0p-8, 0x1.0p-8};
  fused_add_rms_norm_ref(xb, rb, 2, nullptr, eps, round_through<__nv_bfloat16>, x_out, r_out);
  CHECK(r_out[0] == 1.0);
  CHECK(r_out[1] == 1.0 + 0x1.0p-6);  // 1 + 3 * 2^-8: tie -> even -> 1 + 2^-6

  // In place (residual_out aliases residual, x_out aliases x) gives the same.
  double xi[4], ri[4];
  for (int i = 0; i < 4; ++i) { xi[i] = x[i]; ri[i] = res[i]; }
  fused_add_rms_norm_ref(xi, ri, 4, w, eps, round_through<__half>, xi, ri);
  rms_norm_ref(stored_fp16, 4, w, eps, want);
  for (int i = 0; i < 4; ++i) {
    CHECK(ri[i] == stored_fp16[i]);
    CHECK(xi[i] == want[i]);
  }
}

TEST_CASE("conversions: to_double / from_double / round_through / quantize", "[host][reference]") {
  CHECK(round_through<__half>(1.0 + 0x1.0p-11) == 1.0);
  CHECK(round_through<__half>(1.0 + 0x1.8p-11) == 1.0 + 0x1.0p-10);  // above the midpoint
  CHECK(round_through<__half>(65504.0) == 65504.0);                  // fp16 max
  CHECK(round_through<__half>(1e6) == inf);
  CHECK(round_through<__half>(0x1.0p-24) == 0x1.0p-24);  // smallest fp16 subnormal
  CHECK(round_through<__nv_bfloat16>(1e4) == 9984.0);     // 1e4 between 9984 and 10048 (step 64)
  CHECK(round_through<float>(0.1) == static_cast<double>(0.1f));
  CHECK(std::isnan(round_through<__half>(nan_v)));
  CHECK(round_through<__nv_bfloat16>(-inf) == -inf);

  std::vector<double> v = {0.1, -2.7, 1e-3, 3.0e4};
  quantize<__half>(v.data(), v.size());
  for (double d : v) CHECK(to_double(from_double<__half>(d)) == d);  // representable: exact
  const std::vector<__half> h = from_doubles<__half>(v.data(), v.size());
  const std::vector<double> back = to_doubles(h.data(), h.size());
  CHECK(back == v);
}

TEST_CASE("inputs: seeds reproduce, adversarial rows are what they say", "[host][inputs]") {
  INFO("base seed " << test_seed());
  seeded_rng a(uint64_t{42}, uint64_t{7}), b(uint64_t{42}, uint64_t{7}), c(uint64_t{42}, uint64_t{8});
  CHECK(a.seed == b.seed);
  CHECK(a.seed != c.seed);
  CHECK(a.normal() == b.normal());
  CHECK(seeded_rng("x").seed == seeded_rng("x").seed);
  CHECK(seeded_rng("x").base_seed == test_seed());

  seeded_rng rng("adversarial rows");
  INFO(rng.describe());
  for (int64_t cols : {1, 2, 33, 1000}) {
    for (adversarial_kind k : all_adversarial_kinds()) {
      INFO("kind " << to_string(k) << " cols " << cols);
      std::vector<double> row(cols);
      adversarial_row(k, cols, rng, row.data());
      int64_t nan_count = 0, pos_inf = 0, neg_inf = 0;
      double lo = inf, hi = -inf;
      for (double v : row) {
        if (std::isnan(v)) { ++nan_count; continue; }
        if (v == inf) ++pos_inf;
        if (v == -inf) ++neg_inf;
        if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
        CHECK(static_cast<double>(static_cast<float>(v)) == v);  // representable in fp32
      }
      switch (k) {
        case adversarial_kind::big_logit: CHECK(hi == 120.0); break;
        case adversarial_kind::wide_range:
          CHECK(lo >= -100.0);
          CHECK(hi <= 100.0);
          if (cols >= 2) CHECK(hi - lo == 200.0);
          break;
        case adversarial_kind::all_neg_inf: CHECK(neg_inf == cols); break;
        case adversarial_kind::one_nan: CHECK(nan_count == 1); break;
        case adversarial_kind::one_pos_inf: CHECK(pos_inf == 1); break;
        case adversarial_kind::large_mean_small_std:
          CHECK(lo > 1e4 - 1.0);
          CHECK(hi < 1e4 + 1.0);
          break;
        case adversarial_kind::subnormal:
          CHECK(std::fabs(lo) < 1.2e-38);
          CHECK(std::fabs(hi) < 1.2e-38);
          break;
        case adversarial_kind::constant: CHECK(lo == hi); break;
      }
    }
  }
  // fp16 subnormal rows: every value below 2^-13 in magnitude, representable in fp16, not all 0.
  std::vector<double> row(256);
  adversarial_row<__half>(adversarial_kind::subnormal, 256, rng, row.data());
  int nonzero = 0;
  for (double v : row) {
    CHECK(std::fabs(v) <= 0x1.0p-13);
    CHECK(round_through<__half>(v) == v);
    nonzero += v != 0.0;
  }
  CHECK(nonzero > 200);
}
