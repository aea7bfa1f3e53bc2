// Host tests of the reduction operators of include/rowwise/reduce/: identities, NaN propagation,
// and that merging partial summaries in any split and order gives the direct answer (up to fp32
// rounding), which is what lets the kernels reduce a row per thread, warp, block or cluster.
#include <catch2/catch.hpp>

// dtype.cuh first: it brings the CUDA headers that define __host__/__device__ for g++
// (welford.cuh on its own does not include them).
#include <rowwise/numeric/dtype.cuh>
#include <rowwise/reduce/log2e_multiple.cuh>
#include <rowwise/reduce/max_sum.cuh>
#include <rowwise/reduce/online_softmax.cuh>
#include <rowwise/reduce/shifted_welford.cuh>
#include <rowwise/reduce/welford.cuh>

#include "support/inputs.hpp"
#include "support/tolerance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using rowwise::max_reducer;
using rowwise::online_softmax_reducer;
using rowwise::online_softmax_value;
using rowwise::sum_reducer;
using rowwise::welford_reducer;
using rowwise::welford_value;
using rowwise_test::seeded_rng;

namespace {

constexpr float finf = std::numeric_limits<float>::infinity();
constexpr float fnan = std::numeric_limits<float>::quiet_NaN();

// Sample values for identity checks: zero, signs, tiny, huge, subnormal, and the infinities.
const float samples[] = {0.0f, 1.0f, -1.0f, 3.5f, -1e-30f, 1e-45f, 1e30f, -3e38f, 123456.75f, finf, -finf};

bool same(online_softmax_value a, online_softmax_value b) { return a.m == b.m && a.d == b.d; }
bool same(welford_value a, welford_value b) { return a.n == b.n && a.mean == b.mean && a.m2 == b.m2; }
bool has_nan(online_softmax_value v) { return std::isnan(v.m) || std::isnan(v.d); }
bool has_nan(welford_value v) { return std::isnan(v.n) || std::isnan(v.mean) || std::isnan(v.m2); }

// ---- merge orders over a vector of leaf summaries --------------------------------------------

template <class R>
typename R::value_type left_fold(const std::vector<typename R::value_type>& v) {
  typename R::value_type acc = R::identity();
  for (const auto& x : v) acc = R{}(acc, x);
  return acc;
}

template <class R>
typename R::value_type right_fold(const std::vector<typename R::value_type>& v) {
  typename R::value_type acc = R::identity();
  for (auto it = v.rbegin(); it != v.rend(); ++it) acc = R{}(*it, acc);
  return acc;
}

// Pairwise tree with stride doubling, like a warp/block all-reduce (padding with identity).
template <class R>
typename R::value_type pairwise_tree(std::vector<typename R::value_type> v) {
  if (v.empty()) return R::identity();
  for (size_t s = 1; s < v.size(); s *= 2)
    for (size_t i = 0; i + s < v.size(); i += 2 * s) v[i] = R{}(v[i], v[i + s]);
  return v[0];
}

// Random binary tree: split [lo, hi) at a random point, merge the halves in random operand order.
template <class R>
typename R::value_type random_tree(const std::vector<typename R::value_type>& v, size_t lo, size_t hi,
                                   seeded_rng& rng) {
  if (hi - lo == 1) return v[lo];
  const size_t mid = lo + 1 + static_cast<size_t>(rng.index(static_cast<int64_t>(hi - lo - 1)));
  const auto a = random_tree<R>(v, lo, mid, rng);
  const auto b = random_tree<R>(v, mid, hi, rng);
  return rng.index(2) ? R{}(a, b) : R{}(b, a);
}

// Random contiguous chunks (as threads own), each folded sequentially, the chunk results merged in
// a shuffled order.
template <class R>
typename R::value_type chunks_shuffled(const std::vector<typename R::value_type>& v, seeded_rng& rng) {
  std::vector<typename R::value_type> parts;
  size_t i = 0;
  while (i < v.size()) {
    const size_t len = std::min(v.size() - i, static_cast<size_t>(1 + rng.index(64)));
    typename R::value_type acc = R::identity();
    for (size_t j = i; j < i + len; ++j) acc = R{}(acc, v[j]);
    parts.push_back(acc);
    i += len;
  }
  for (size_t k = parts.size(); k > 1; --k) std::swap(parts[k - 1], parts[static_cast<size_t>(rng.index(static_cast<int64_t>(k)))]);
  return left_fold<R>(parts);
}

template <class R>
std::vector<std::pair<std::string, typename R::value_type>> all_orders(const std::vector<typename R::value_type>& v,
                                                                        seeded_rng& rng) {
  return {{"left fold", left_fold<R>(v)},
          {"right fold", right_fold<R>(v)},
          {"pairwise tree", pairwise_tree<R>(v)},
          {"random tree", random_tree<R>(v, 0, v.size(), rng)},
          {"random tree (2)", random_tree<R>(v, 0, v.size(), rng)},
          {"shuffled chunks", chunks_shuffled<R>(v, rng)}};
}

}  // namespace

// ================================================================================================
// identities

TEST_CASE("identity is neutral: sum (0) and max (-inf)", "[host][operators]") {
  const sum_reducer sum;
  const max_reducer mx;
  CHECK(sum_reducer::identity() == 0.0f);
  CHECK(max_reducer::identity() == -finf);
  for (float x : samples) {
    INFO("x = " << x);
    CHECK(sum(sum_reducer::identity(), x) == x);
    CHECK(sum(x, sum_reducer::identity()) == x);
    CHECK(mx(max_reducer::identity(), x) == x);
    CHECK(mx(x, max_reducer::identity()) == x);
  }
  // identity with identity: no NaN
  CHECK(mx(max_reducer::identity(), max_reducer::identity()) == -finf);
  CHECK(sum(sum_reducer::identity(), sum_reducer::identity()) == 0.0f);
  // NaN stays NaN through the identity
  CHECK(std::isnan(sum(sum_reducer::identity(), fnan)));
  CHECK(std::isnan(mx(max_reducer::identity(), fnan)));
  CHECK(std::isnan(mx(fnan, max_reducer::identity())));
}

TEST_CASE("max_reducer propagates NaN from either side", "[host][operators]") {
  const max_reducer mx;
  for (float x : samples) {
    INFO("x = " << x);
    CHECK(std::isnan(mx(fnan, x)));
    CHECK(std::isnan(mx(x, fnan)));
  }
  CHECK(std::isnan(mx(fnan, fnan)));
  CHECK(std::isnan(mx(-fnan, 1.0f)));
  CHECK(mx(2.0f, 3.0f) == 3.0f);
  CHECK(mx(3.0f, 2.0f) == 3.0f);
  CHECK(mx(-finf, finf) == finf);
  // A NaN anywhere in a fold (any position, any order) poisons the result.
  std::vector<float> v = {1.0f, 5.0f, -2.0f, 7.0f, 0.5f};
  for (size_t pos = 0; pos <= v.size(); ++pos) {
    std::vector<float> w = v;
    w.insert(w.begin() + static_cast<std::ptrdiff_t>(pos), fnan);
    CHECK(std::isnan(left_fold<max_reducer>(w)));
    CHECK(std::isnan(right_fold<max_reducer>(w)));
    CHECK(std::isnan(pairwise_tree<max_reducer>(w)));
  }
}

TEST_CASE("max_key orders floats as max_reducer does, NaN of either sign on top", "[host][operators]") {
  using rowwise::from_max_key;
  using rowwise::max_key;
  auto bits_of = [](float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  // Edge values: both zeros, the smallest subnormals, the largest finite values, the infinities,
  // and NaNs of both signs and payloads.
  std::vector<float> edge = {0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f, -1.17549435e-38f, 1.0f, -1.0f,
                             3.4028235e38f, -3.4028235e38f, finf, -finf, fnan, -fnan};
  {
    uint32_t payload = 0x7fa00001u;  // a signalling-pattern NaN, and its negative
    float p;
    std::memcpy(&p, &payload, sizeof p);
    edge.push_back(p);
    edge.push_back(-p);
  }
  seeded_rng rng("max_key");
  INFO(rng.describe());
  std::vector<float> values = edge;
  for (int i = 0; i < 4000; ++i) {  // random bit patterns: every exponent, sign and payload
    const uint32_t b = static_cast<uint32_t>(rng.uniform_int(0, 0xffffffffLL));
    float x;
    std::memcpy(&x, &b, sizeof x);
    values.push_back(x);
  }
  for (float x : values) {
    INFO("x bits = " << bits_of(x));
    if (std::isnan(x)) {
      CHECK(max_key(x) == std::numeric_limits<int>::max());
      CHECK(std::isnan(from_max_key(max_key(x))));
    } else {
      CHECK(bits_of(from_max_key(max_key(x))) == bits_of(x));  // round trip, -0 included
    }
  }
  // Signed key order is the floats' order (ties only for -0 / +0, which sort -0 first); the max
  // of keys gives the same value (or a NaN) as max_reducer's fold, over every pair.
  const max_reducer mx;
  for (size_t i = 0; i < edge.size(); ++i) {
    for (float y : values) {
      const float x = edge[i];
      INFO("x bits = " << bits_of(x) << ", y bits = " << bits_of(y));
      if (!std::isnan(x) && !std::isnan(y)) {
        if (x < y) CHECK(max_key(x) < max_key(y));
        if (x > y) CHECK(max_key(x) > max_key(y));
        if (x == y) CHECK((max_key(x) == max_key(y) || (x == 0.0f && y == 0.0f)));
      }
      const float by_key = from_max_key(std::max(max_key(x), max_key(y)));
      const float by_op = mx(x, y);
      if (std::isnan(by_op)) {
        CHECK(std::isnan(by_key));
      } else {
        CHECK(by_key == by_op);
      }
    }
  }
}

TEST_CASE("online_softmax identity is neutral and of(-inf) is the identity", "[host][operators]") {
  const online_softmax_reducer op;
  const online_softmax_value id = online_softmax_reducer::identity();
  CHECK(id.m == -finf);
  CHECK(id.d == 0.0f);
  CHECK(same(online_softmax_reducer::of(-finf), id));
  // identity (+) identity = identity: exp(-inf - -inf) would be NaN, the merge must not produce it.
  CHECK(same(op(id, id), id));
  CHECK(same(op(online_softmax_reducer::of(-finf), online_softmax_reducer::of(-finf)), id));
  for (float x : samples) {
    if (x == finf) continue;  // +inf is deliberately NaN-producing, see below
    INFO("x = " << x);
    const online_softmax_value v = online_softmax_reducer::of(x);
    CHECK(same(op(id, v), v));
    CHECK(same(op(v, id), v));
  }
  // Partial summaries (m, d) with d > 1 too.
  for (online_softmax_value v : {online_softmax_value{2.5f, 7.0f}, online_softmax_value{-80.0f, 1.5f},
                                 online_softmax_value{1e30f, 3.0f}}) {
    CHECK(same(op(id, v), v));
    CHECK(same(op(v, id), v));
  }
  // NaN logits stay NaN (m NaN, d NaN) through the identity.
  CHECK(std::isnan(op(id, online_softmax_reducer::of(fnan)).m));
  CHECK(std::isnan(op(online_softmax_reducer::of(fnan), id).m));
  // +inf: the row semantics want NaN across the row, and the merge provides it: exp(inf - inf).
  CHECK(has_nan(op(id, online_softmax_reducer::of(finf))));
  CHECK(has_nan(op(online_softmax_reducer::of(1.0f), online_softmax_reducer::of(finf))));
}

TEST_CASE("welford identity is neutral (n = 0), exactly, and never produces NaN", "[host][operators]") {
  const welford_reducer op;
  const welford_value id = welford_reducer::identity();
  CHECK(id.n == 0.0f);
  CHECK(rowwise::welford_variance(id) == 0.0f);
  CHECK(same(op(id, id), id));
  CHECK_FALSE(has_nan(op(id, id)));
  for (float x : samples) {
    if (!std::isfinite(x) || std::fabs(x) > 1e18f) continue;  // see the note on large means below
    INFO("x = " << x);
    const welford_value v = welford_reducer::of(x);
    CHECK(same(op(id, v), v));
    CHECK(same(op(v, id), v));
  }

  // Empty side with a real partial summary (from a reduction of random data): the other side
  // comes back bit for bit.
  seeded_rng rng("welford empty side");
  INFO(rng.describe());
  for (int trial = 0; trial < 50; ++trial) {
    const int64_t n = 1 + rng.index(300);
    const double mean = rng.uniform(-1e4, 1e4), std = std::exp(rng.uniform(std::log(1e-3), std::log(1e3)));
    welford_value w = id;
    for (int64_t i = 0; i < n; ++i) w = op(w, welford_reducer::of(static_cast<float>(rng.normal(mean, std))));
    INFO("n " << w.n << " mean " << w.mean << " m2 " << w.m2);
    CHECK(same(op(id, w), w));
    CHECK(same(op(w, id), w));
  }
  // Note: with |mean| beyond ~1.8e19 the merge's delta*delta overflows to inf and inf * 0 gives a
  // NaN m2 even against an empty side; rows that large are outside what a LayerNorm kernel meets.
}

// ================================================================================================
// online softmax: merges in any split and order equal the direct (m, d)

TEST_CASE("online_softmax: merging random splits equals the direct (m, d)", "[host][operators]") {
  seeded_rng rng("online_softmax random splits");
  INFO(rng.describe());
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t cols = trial < 4 ? 1 + trial : 1 + rng.index(3000);
    const double sigma = std::vector<double>{1.0, 5.0, 30.0}[static_cast<size_t>(trial % 3)];
    std::vector<float> x(static_cast<size_t>(cols));
    for (float& v : x) v = static_cast<float>(rng.normal(0.0, sigma));  // quantised to fp32
    if (trial % 5 == 4 && cols >= 2) x[static_cast<size_t>(rng.index(cols))] = -finf;  // a masked logit
    if (trial % 7 == 6) x[static_cast<size_t>(rng.index(cols))] = 120.0f;  // a big logit

    // direct, in double on the same fp32 values
    double m = -std::numeric_limits<double>::infinity();
    for (float v : x) m = std::max(m, static_cast<double>(v));
    double d = 0.0;
    for (float v : x) d += std::exp(static_cast<double>(v) - m);

    std::vector<online_softmax_value> leaves;
    for (float v : x) leaves.push_back(online_softmax_reducer::of(v));
    // fp32 accumulation error grows with the row: DESIGN.md's rule with a 1e-5 table rtol
    const double tol = rowwise_test::grown_rtol(1e-5, 23, cols);
    for (const auto& [name, r] : all_orders<online_softmax_reducer>(leaves, rng)) {
      INFO("trial " << trial << ", cols " << cols << ", sigma " << sigma << ", " << name << ": m " << r.m
                    << " (direct " << m << "), d " << r.d << " (direct " << d << ")");
      CHECK(static_cast<double>(r.m) == m);  // the max is exact
      CHECK(std::fabs(r.d - d) <= tol * d);
    }
  }
}

TEST_CASE("online_softmax: all -inf partials merge to the identity, never NaN", "[host][operators]") {
  const online_softmax_reducer op;
  seeded_rng rng("online_softmax all -inf");
  std::vector<online_softmax_value> leaves(37, online_softmax_reducer::of(-finf));
  for (const auto& [name, r] : all_orders<online_softmax_reducer>(leaves, rng)) {
    INFO(name);
    CHECK_FALSE(has_nan(r));
    CHECK(r.m == -finf);
    CHECK(r.d == 0.0f);
  }
  // An all -inf partial merged with a real one leaves the real one unchanged.
  const online_softmax_value real{3.0f, 2.5f};
  CHECK(same(op(left_fold<online_softmax_reducer>(leaves), real), real));
  CHECK(same(op(real, left_fold<online_softmax_reducer>(leaves)), real));
}

TEST_CASE("online_softmax: logits far apart merge without overflow or NaN", "[host][operators]") {
  const online_softmax_reducer op;
  // 1e4 apart: exp(1e4) overflows anything; the merge only ever takes exp of (smaller - larger).
  for (auto [a, b] : {std::pair<online_softmax_value, online_softmax_value>{{0.0f, 3.0f}, {1e4f, 2.0f}},
                      {{-5000.0f, 1.0f}, {5000.0f, 1.0f}},
                      {{-1e4f, 7.0f}, {0.0f, 1.0f}}}) {
    for (const online_softmax_value& r : {op(a, b), op(b, a)}) {
      CHECK_FALSE(has_nan(r));
      CHECK(std::isfinite(r.d));
      CHECK(r.m == std::max(a.m, b.m));
      CHECK(r.d == (a.m > b.m ? a.d : b.d));  // the smaller side's exp(-1e4) underflows to 0
    }
  }
  // Close enough to matter: 10 apart, d = 5 * e^-10 + 2 = 2.000227...
  for (const online_softmax_value& r : {op({0.0f, 5.0f}, {10.0f, 2.0f}), op({10.0f, 2.0f}, {0.0f, 5.0f})}) {
    CHECK(r.m == 10.0f);
    CHECK(std::fabs(r.d - (5.0 * std::exp(-10.0) + 2.0)) <= 1e-6 * 2.0);
  }
  // 100 apart, where exp(+100) would overflow fp32 (max ~ e^88.7): d = 1 + e^-100 = 1 in fp32.
  const online_softmax_value r = op(online_softmax_reducer::of(0.0f), online_softmax_reducer::of(100.0f));
  CHECK(r.m == 100.0f);
  CHECK(r.d == 1.0f);
  // A long row with logits spread over 1e4: the result is finite and d counts the maxima.
  std::vector<online_softmax_value> leaves;
  for (int i = 0; i < 100; ++i) leaves.push_back(online_softmax_reducer::of(static_cast<float>(i * 100)));
  leaves.push_back(online_softmax_reducer::of(9900.0f));  // the max, twice
  seeded_rng rng("online_softmax far apart");
  for (const auto& [name, v] : all_orders<online_softmax_reducer>(leaves, rng)) {
    INFO(name);
    CHECK(v.m == 9900.0f);
    CHECK(v.d == 2.0f);  // 2 + e^-100 + ... = 2 in fp32
  }
}

// ================================================================================================
// Welford: merges in any split and order equal the two-pass mean / variance

namespace {

struct two_pass {
  double mean, var;
};

two_pass direct_stats(const std::vector<float>& x) {
  double s = 0.0;
  for (float v : x) s += v;
  const double n = static_cast<double>(x.size());
  const double mean = s / n;
  double m2 = 0.0;
  for (float v : x) m2 += (v - mean) * (v - mean);
  return {mean, m2 / n};
}

std::vector<welford_value> welford_leaves(const std::vector<float>& x, float shift = 0.0f) {
  std::vector<welford_value> leaves;
  for (float v : x) leaves.push_back(welford_reducer::of(v - shift));  // v - shift: exact (Sterbenz)
  return leaves;
}

}  // namespace

TEST_CASE("welford: merging random splits equals the two-pass mean and variance", "[host][operators]") {
  seeded_rng rng("welford random splits");
  INFO(rng.describe());
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = trial < 3 ? 1 + trial : 1 + rng.index(4096);
    const double mu = rng.uniform(-5.0, 5.0);
    const double sd = std::vector<double>{0.1, 1.0, 10.0}[static_cast<size_t>(trial % 3)];
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = static_cast<float>(rng.normal(mu, sd));  // the data, quantised to fp32
    const two_pass ref = direct_stats(x);
    const std::vector<welford_value> leaves = welford_leaves(x);
    const double rtol = rowwise_test::grown_rtol(1e-5, 23, n);
    for (const auto& [name, w] : all_orders<welford_reducer>(leaves, rng)) {
      INFO("trial " << trial << ", n " << n << ", " << name << ": mean " << w.mean << " (two-pass " << ref.mean
                    << "), var " << rowwise::welford_variance(w) << " (two-pass " << ref.var << ")");
      CHECK(w.n == static_cast<float>(n));
      // The mean relative to the data's magnitude, with the same growth: a sequential fold rounds
      // the running mean (half an ulp) n times, a random walk of ~sqrt(n/12) ulps.
      CHECK(std::fabs(w.mean - ref.mean) <= rtol * (std::fabs(mu) + 3.0 * sd));
      if (n == 1) {
        CHECK(w.m2 == 0.0f);
      } else {
        CHECK(std::fabs(rowwise::welford_variance(w) - ref.var) <= rtol * ref.var);
      }
    }
  }
}

TEST_CASE("welford: mean 1e4, std 1e-2 — what fp32 can and cannot do", "[host][operators]") {
  // The data is quantised to fp32 first (1e4 has an fp32 ulp of 2^-10 ~ 9.8e-4, ~10 levels per
  // std), and the reference is the double two-pass statistics OF THE QUANTISED DATA. Let
  // U = 2^-24 |mean| (~6e-4 = 0.06 std here).
  //
  // Unshifted, the merged mean is an fp32 number near 1e4: off by >= ~U/2 (half an ulp) and by a few
  // U after many merges, and a variance accumulated around a mean off by e is off by ~e^2 —
  // (U/2)^2 alone is 1e-3 of the variance. So "relative variance error < 1e-3" is NOT what fp32
  // Welford achieves on such rows. Measured over 12000 rows (n up to 4096):
  //   trees (pairwise, random splits) and short sequential runs merged in any order:
  //     mean error <= 5.2 U, variance error <= 34 U^2 (~12% of the variance at std 1e-2)
  //   one long sequential fold (left or right): mean error <= 13.4 U, variance error <= 179 U^2 —
  //     the running mean stagnates once |x - mean| / n < half an ulp.
  // The bounds below are those with ~2.5x margin: they pin down the operator's behaviour, not an
  // accuracy goal.
  //
  // Shifted by a pivot (x - x[0], exact by Sterbenz since all values lie within a factor 2 of
  // x[0]), the statistics of the small differences are computed to full fp32 accuracy in ANY
  // order: variance to max(1e-5, 4 * 2^-23 * sqrt(n)) relative (measured 2e-7; far inside 1e-3)
  // and the mean (pivot + shifted mean) to that times (|mean - pivot| + std). That is what a
  // LayerNorm kernel should do for such rows.
  seeded_rng rng("welford large mean small std");
  INFO(rng.describe());
  const double u = std::ldexp(1.0, -24);
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t n = 2 + rng.index(4096);
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = static_cast<float>(rng.normal(1e4, 1e-2));
    const two_pass ref = direct_stats(x);
    if (ref.var == 0.0) continue;  // all values quantised to one level (n tiny): nothing to test
    const double sd = std::sqrt(ref.var);
    const double U = u * std::fabs(ref.mean);

    for (const auto& [name, w] : all_orders<welford_reducer>(welford_leaves(x), rng)) {
      const double var = rowwise::welford_variance(w);
      INFO("unshifted, trial " << trial << ", n " << n << ", " << name << ": var rel err "
                               << std::fabs(var - ref.var) / ref.var << ", mean err / std "
                               << std::fabs(w.mean - ref.mean) / sd);
      const bool fold = name == "left fold" || name == "right fold";
      CHECK(std::isfinite(var));
      CHECK(std::fabs(w.mean - ref.mean) <= (fold ? 32.0 : 12.0) * U);
      CHECK(std::fabs(var - ref.var) <= 1e-5 * ref.var + (fold ? 450.0 : 90.0) * U * U);
    }

    const float pivot = x[0];
    for (const auto& [name, w] : all_orders<welford_reducer>(welford_leaves(x, pivot), rng)) {
      const double var = rowwise::welford_variance(w);
      const double mean = static_cast<double>(pivot) + static_cast<double>(w.mean);
      INFO("shifted, trial " << trial << ", n " << n << ", " << name << ": var rel err "
                             << std::fabs(var - ref.var) / ref.var << ", mean err / std "
                             << std::fabs(mean - ref.mean) / sd);
      // fp32 accuracy of the small quantities, growing like sqrt(n) for the long folds
      const double rtol = rowwise_test::grown_rtol(1e-5, 23, n);
      CHECK(std::fabs(var - ref.var) <= rtol * ref.var);
      CHECK(std::fabs(mean - ref.mean) <= rtol * (std::fabs(ref.mean - pivot) + sd));
    }
  }
}

TEST_CASE("welford: a constant row has variance exactly 0 in any merge order", "[host][operators]") {
  seeded_rng rng("welford constant row");
  for (float c : {0.0f, 3.0f, -1e4f, 123.456f}) {
    const std::vector<float> x(1000, c);
    for (const auto& [name, w] : all_orders<welford_reducer>(welford_leaves(x), rng)) {
      INFO("c " << c << ", " << name);
      CHECK(w.mean == c);
      CHECK(w.m2 == 0.0f);
    }
  }
}

// ================================================================================================
// Shifted Welford (the registers strategy's LayerNorm moments): each group of values summarised
// by the exact two-pass around its own fp32 mean, as a warp does; groups merged in any order.

namespace {

using rowwise::shifted_welford_reducer;
using rowwise::shifted_welford_value;

// The exact two-pass of x[b, e) in fp32 as a warp of registers_kernel takes it: shift = sum / n,
// then c = sum (x - shift) and q = sum (x - shift)^2.
struct group_sums {
  float n, shift, c, q;
};
group_sums group_two_pass(const std::vector<float>& x, size_t b, size_t e) {
  float s = 0.0f;
  for (size_t i = b; i < e; ++i) s += x[i];
  group_sums g{static_cast<float>(e - b), 0.0f, 0.0f, 0.0f};
  g.shift = s / g.n;
  for (size_t i = b; i < e; ++i) {
    const float d = x[i] - g.shift;
    g.c += d;
    g.q = std::fma(d, d, g.q);
  }
  return g;
}

// One leaf per group of `group` consecutive values.
std::vector<shifted_welford_value> shifted_leaves(const std::vector<float>& x, size_t group) {
  std::vector<shifted_welford_value> leaves;
  for (size_t b = 0; b < x.size(); b += group) {
    const group_sums g = group_two_pass(x, b, std::min(x.size(), b + group));
    leaves.push_back(shifted_welford_reducer::from_two_pass(g.n, g.shift, g.q, g.c));
  }
  return leaves;
}

// A trial row of the shifted Welford cases: odd trials mean 1e4 / std 1e-2, even ones mean in
// [-5, 5] with std 0.1, 1 or 10.
std::vector<float> shifted_trial_row(int trial, int64_t n, seeded_rng& rng) {
  const bool huge_mean = trial % 2 == 1;
  const double mu = huge_mean ? 1e4 : rng.uniform(-5.0, 5.0);
  const double sd = huge_mean ? 1e-2 : std::vector<double>{0.1, 1.0, 10.0}[static_cast<size_t>(trial % 3)];
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = static_cast<float>(rng.normal(mu, sd));
  return x;
}

double shifted_mean(shifted_welford_value v) {
  return static_cast<double>(v.shift) + static_cast<double>(v.dmean);
}

// n values summarised as w against their double two-pass statistics: mean to rtol of the standard
// deviation, variance to rtol relative (exactly 0 for a constant row).
void check_against_two_pass(const shifted_welford_value& w, const two_pass& ref, int64_t n, double rtol) {
  const double var = rowwise::shifted_welford_variance(w);
  INFO("mean " << shifted_mean(w) << " (two-pass " << ref.mean << "), var " << var << " (two-pass " << ref.var << ")");
  CHECK(w.n == static_cast<float>(n));
  CHECK(std::fabs(shifted_mean(w) - ref.mean) <= rtol * std::sqrt(ref.var));
  if (ref.var == 0.0) {
    CHECK(var == 0.0);
  } else {
    CHECK(std::fabs(var - ref.var) <= rtol * ref.var);
  }
}

// Shifted sums relative to one shared shift, added as warp_all_reduce adds them (a butterfly over
// the next power of two of lanes, zeros past the last), then one from_two_pass around that shift.
shifted_welford_value butterfly_summary(std::vector<rowwise::shifted_sums> sums, float shared) {
  size_t lanes = 1;
  while (lanes < sums.size()) lanes *= 2;
  sums.resize(lanes, rowwise::shifted_sums{0.0f, 0.0f, 0.0f});
  for (size_t offset = lanes / 2; offset > 0; offset /= 2)
    for (size_t j = 0; j < offset; ++j) sums[j] = rowwise::shifted_sums_reducer{}(sums[j], sums[j + offset]);
  return shifted_welford_reducer::from_two_pass(sums[0].n, shared, sums[0].q, sums[0].c);
}

}  // namespace

TEST_CASE("shifted welford: identity is neutral exactly; an empty two-pass is the identity", "[host][operators]") {
  const shifted_welford_reducer op;
  const shifted_welford_value id = shifted_welford_reducer::identity();
  const shifted_welford_value a = shifted_welford_reducer::from_two_pass(3.0f, 1e4f, 2e-4f, 1e-3f);
  for (const shifted_welford_value r : {op(id, a), op(a, id)}) {
    CHECK(r.n == a.n);
    CHECK(r.shift == a.shift);
    CHECK(r.dmean == a.dmean);
    CHECK(r.m2 == a.m2);
  }
  const rowwise::shifted_two_pass_reducer sums_op;  // raw two-pass sums: the same for its identity
  const rowwise::shifted_two_pass sums_id = rowwise::shifted_two_pass_reducer::identity();
  const rowwise::shifted_two_pass t{3.0f, 1e4f, 1e-3f, 2e-4f};
  for (const rowwise::shifted_two_pass r : {sums_op(sums_id, t), sums_op(t, sums_id)}) {
    CHECK(r.n == t.n);
    CHECK(r.s == t.s);
    CHECK(r.c == t.c);
    CHECK(r.q == t.q);
  }
  const shifted_welford_value e = shifted_welford_reducer::from_two_pass(0.0f, 5.0f, 1.0f, 1.0f);
  CHECK(e.n == 0.0f);
  CHECK(rowwise::shifted_welford_variance(e) == 0.0f);
  CHECK(rowwise::shifted_welford_variance(id) == 0.0f);
}

TEST_CASE("shifted welford: M2 below 0 by rounding is clamped to 0, a NaN M2 (a row holding an inf or a NaN) "
          "stays NaN",
          "[host][operators]") {
  // c^2 / n just above q: the corrected two-pass subtraction leaves a rounding-sized negative M2.
  const shifted_welford_value r = shifted_welford_reducer::from_two_pass(3.0f, 1.0f, 1.0f / 3.0f, 1.0f);
  CHECK(r.m2 == 0.0f);
  CHECK(rowwise::shifted_welford_variance(r) == 0.0f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // A thread shift s finite and one value +inf: c = q = inf. A NaN value: c = q = NaN. A -inf: c = -inf, q = inf.
  for (const float c : {inf, nan, -inf}) {
    const float q = c == c ? inf : nan;
    const shifted_welford_value v = shifted_welford_reducer::from_two_pass(8.0f, 0.5f, q, c);
    INFO("c = " << c << ", q = " << q << ": m2 = " << v.m2);
    CHECK(std::isnan(v.m2));
    CHECK(std::isnan(rowwise::shifted_welford_variance(v)));
    // ... and it survives merges with ordinary groups.
    const shifted_welford_value ok = shifted_welford_reducer::from_two_pass(8.0f, 0.5f, 4.0f, 0.25f);
    CHECK(std::isnan(shifted_welford_reducer{}(ok, v).m2));
    CHECK(std::isnan(shifted_welford_reducer{}(v, ok).m2));
  }
}

TEST_CASE("shifted welford: groups merged in any order give the two-pass statistics, as summaries and as raw sums, "
          "also for mean 1e4 / std 1e-2",
          "[host][operators]") {
  // Unlike plain Welford (previous cases), the merged mean is kept as shift + offset, so rows
  // whose mean dwarfs their spread keep full fp32 accuracy relative to the spread, in any order.
  seeded_rng rng("shifted welford");
  INFO(rng.describe());
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t n = trial < 3 ? 1 + trial : 1 + rng.index(8192);
    const std::vector<float> x = shifted_trial_row(trial, n, rng);
    const two_pass ref = direct_stats(x);
    const size_t group = std::vector<size_t>{8, 32, 256}[static_cast<size_t>(trial % 3)];
    const double rtol = rowwise_test::grown_rtol(1e-5, 23, n);
    for (const auto& [name, w] : all_orders<shifted_welford_reducer>(shifted_leaves(x, group), rng)) {
      INFO("trial " << trial << ", n " << n << ", group " << group << ", " << name);
      check_against_two_pass(w, ref, n, rtol);
    }
    // The same groups as raw two-pass sums (shifted_two_pass_reducer: each merge rebases the right
    // operand to the left one's shift), one division at the end.
    std::vector<rowwise::shifted_two_pass> sums;
    for (size_t b = 0; b < x.size(); b += group) {
      const group_sums g = group_two_pass(x, b, std::min(x.size(), b + group));
      sums.push_back({g.n, g.shift, g.c, g.q});
    }
    for (const auto& [name, t] : all_orders<rowwise::shifted_two_pass_reducer>(sums, rng)) {
      INFO("trial " << trial << ", n " << n << ", group " << group << ", raw sums, " << name);
      check_against_two_pass(shifted_welford_reducer::from_two_pass(t.n, t.s, t.q, t.c), ref, n, rtol);
    }
  }
}

TEST_CASE("shifted welford: groups' sums rebased to one shared shift and added (a block's warps) give the "
          "two-pass statistics, also for mean 1e4 / std 1e-2",
          "[host][operators]") {
  // registers_kernel's two_pass_moments with warp shifts (16-bit rows): each warp's exact two-pass
  // around its own fp32 mean, then every group's (c, q) re-expressed relative to the first group's shift (rebase), the
  // groups added by a butterfly over 2^k lanes (zeros past the last group), one from_two_pass.
  seeded_rng rng("shifted welford rebased sums");
  INFO(rng.describe());
  for (int trial = 0; trial < 60; ++trial) {
    const size_t group = std::vector<size_t>{32, 256, 1024}[static_cast<size_t>(trial % 3)];
    const int64_t n = trial < 3 ? 1 + trial : 1 + rng.index(static_cast<int64_t>(32 * group));  // <= 32 warps
    const std::vector<float> x = shifted_trial_row(trial, n, rng);
    const two_pass ref = direct_stats(x);
    const size_t groups = (x.size() + group - 1) / group;
    std::vector<rowwise::shifted_sums> sums;
    float shared = 0.0f;
    for (size_t k = 0; k < groups; ++k) {
      const group_sums g = group_two_pass(x, k * group, std::min(x.size(), (k + 1) * group));
      if (k == 0) shared = g.shift;
      sums.push_back(shifted_welford_reducer::rebase(g.n, g.shift, g.c, g.q, shared));
    }
    const shifted_welford_value w = butterfly_summary(sums, shared);
    INFO("trial " << trial << ", n " << n << ", group " << group);
    check_against_two_pass(w, ref, n, rowwise_test::grown_rtol(1e-5, 23, n));
  }
}

namespace {

// registers_kernel's two_pass_moments as a block of `warps` warps takes a row of n values: thread t
// of the block holds packs t, t + threads, ... of `pack` values (at most `per_thread` values);
// a whole thread's shift is its first value, an edge thread's its values' fp32 mean; each warp
// rebases its lanes' sums to its first lane's rounded mean and adds them (a butterfly: here a sum
// in lane order, which rounds alike up to reassociation); the block rebases its warps' sums to the
// first warp's rounded mean (two_pass_moments with thread shifts).
rowwise::shifted_two_pass block_two_pass_sums(const std::vector<float>& x, int warps, int pack) {
  const int threads = 32 * warps;
  std::vector<rowwise::shifted_two_pass> lane(static_cast<size_t>(threads), rowwise::shifted_two_pass{0, 0, 0, 0});
  for (int t = 0; t < threads; ++t) {
    std::vector<float> mine;
    for (size_t p = static_cast<size_t>(t); p * pack < x.size(); p += static_cast<size_t>(threads))
      for (size_t j = p * pack; j < std::min(x.size(), (p + 1) * pack); ++j) mine.push_back(x[j]);
    if (mine.empty()) continue;
    const bool whole = mine.size() % static_cast<size_t>(pack) == 0;  // an edge thread's last pack is partial
    float s = mine[0];
    if (!whole) {
      float sum = 0.0f;
      for (float v : mine) sum += v;
      s = sum / static_cast<float>(mine.size());
    }
    rowwise::shifted_two_pass g{static_cast<float>(mine.size()), s, 0.0f, 0.0f};
    for (float v : mine) {
      const float d = v - s;
      g.c += d;
      g.q = std::fma(d, d, g.q);
    }
    lane[static_cast<size_t>(t)] = g;
  }
  std::vector<rowwise::shifted_two_pass> warp(static_cast<size_t>(warps));
  for (int w = 0; w < warps; ++w) {
    const float shift = shifted_welford_reducer::rounded_mean(lane[static_cast<size_t>(32 * w)]);
    rowwise::shifted_sums sum{0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 32; ++l) {
      const auto& g = lane[static_cast<size_t>(32 * w + l)];
      const rowwise::shifted_sums r = shifted_welford_reducer::rebase(g.n, g.s, g.c, g.q, shift);
      sum = rowwise::shifted_sums_reducer{}(sum, r);
    }
    warp[static_cast<size_t>(w)] = {sum.n, shift, sum.c, sum.q};
  }
  const float first = shifted_welford_reducer::rounded_mean(warp[0]);
  rowwise::shifted_sums all{0.0f, 0.0f, 0.0f};
  for (const auto& g : warp)
    all = rowwise::shifted_sums_reducer{}(all, shifted_welford_reducer::rebase(g.n, g.s, g.c, g.q, first));
  return {all.n, first, all.c, all.q};
}

// The block's sums (block_two_pass_sums) as the row's summary: one from_two_pass.
shifted_welford_value block_two_pass(const std::vector<float>& x, int warps, int pack) {
  const rowwise::shifted_two_pass t = block_two_pass_sums(x, warps, pack);
  return shifted_welford_reducer::from_two_pass(t.n, t.s, t.q, t.c);
}

}  // namespace

TEST_CASE("shifted welford: a block's two-pass moments (thread shifts, warp and block rebases) give the "
          "two-pass statistics, also for mean 1e4 / std 1e-2 and far first values",
          "[host][operators]") {
  seeded_rng rng("shifted welford block two-pass");
  INFO(rng.describe());
  for (int trial = 0; trial < 90; ++trial) {
    const int warps = std::vector<int>{1, 4, 12}[static_cast<size_t>(trial % 3)];
    const int pack = (trial / 3) % 2 == 0 ? 4 : 8;
    const int64_t n = trial < 6 ? 1 + trial : 1 + rng.index(32 * warps * 64);
    std::vector<float> x = shifted_trial_row(trial, n, rng);
    const bool outliers = trial % 5 == 4;  // each thread's first value far out: its shift's worst case
    if (outliers) {
      const int threads = 32 * warps;
      for (size_t p = 0; p < static_cast<size_t>(threads) && p * pack < x.size(); ++p)
        x[p * pack] = static_cast<float>(x[p * pack] + (rng.index(2) ? 1.0 : -1.0) * 1e3 * (1.0 + std::fabs(x[p * pack])));
    }
    const two_pass ref = direct_stats(x);
    INFO("trial " << trial << ", n " << n << ", warps " << warps << ", pack " << pack << (outliers ? ", outliers" : ""));
    // A thread whose shift (its first value) is far out sums squares of that distance for each of
    // its `pack` values, and rebasing them to the warp's shift rounds terms of that size: against
    // the variance (which the outliers dominate) the error grows with pack. Measured over 300 seeds
    // with the tolerance not scaled (session 24): 19 rows failed, by up to 1.58 times it.
    const double rtol = rowwise_test::grown_rtol(1e-5, 23, n) * (outliers ? pack / 2 : 1);
    check_against_two_pass(block_two_pass(x, warps, pack), ref, n, rtol);
  }
  for (float c : {0.0f, 3.0f, -1e4f, 123.456f}) {
    INFO("constant row " << c);
    const shifted_welford_value w = block_two_pass(std::vector<float>(5000, c), 4, 4);
    CHECK(shifted_mean(w) == static_cast<double>(c));
    CHECK(w.m2 == 0.0f);
  }
}

TEST_CASE("shifted welford: a cluster's CTA results rebased to the first CTA's shift and added give the "
          "two-pass statistics, as summaries and as raw sums, also for mean 1e4 / std 1e-2",
          "[host][operators]") {
  // warp_all_reduce_replicated over a cluster's CTAs (cluster_push_reduce): rank r's CTA holds packs
  // [r * segment, (r + 1) * segment) of the row and sums them as a block (block_two_pass_sums);
  // lane r takes rank r's result (the identity past the cluster) and rebases it to lane 0's shift,
  // a butterfly over G lanes adds them, one from_two_pass. Two forms of the result a CTA pushes
  // (dispatch::two_pass_cluster_sums): 16-bit rows a shifted Welford summary (the CTA divides
  // first; rebase_summary), fp32 rows its raw sums (shifted_two_pass_reducer; empty lanes add zeros).
  const auto summaries = [](const std::vector<rowwise::shifted_two_pass>& cta) {
    const shifted_welford_value first = shifted_welford_reducer::from_two_pass(cta[0].n, cta[0].s, cta[0].q, cta[0].c);
    std::vector<rowwise::shifted_sums> sums;
    for (const auto& t : cta)
      sums.push_back(shifted_welford_reducer::rebase_summary(
          shifted_welford_reducer::from_two_pass(t.n, t.s, t.q, t.c), first.shift));
    return butterfly_summary(sums, first.shift);  // identity lanes past the cluster: zeros
  };
  const auto raw_sums = [](const std::vector<rowwise::shifted_two_pass>& cta) {
    std::vector<rowwise::shifted_sums> sums;
    for (const auto& t : cta)
      sums.push_back(t.n > 0.0f ? shifted_welford_reducer::rebase(t.n, t.s, t.c, t.q, cta[0].s)
                                : rowwise::shifted_sums_reducer::identity());
    return butterfly_summary(sums, cta[0].s);
  };
  seeded_rng rng("shifted welford cluster sums");
  INFO(rng.describe());
  for (int trial = 0; trial < 80; ++trial) {
    const int csize = std::vector<int>{2, 3, 4, 8, 16}[static_cast<size_t>(trial % 5)];
    const int warps = std::vector<int>{4, 8}[static_cast<size_t>((trial / 5) % 2)];
    const int pack = 4;
    const int64_t segment_packs = 32 * warps * 8;  // 32 values per thread
    const int64_t n = trial < 5 ? 1 + trial : 1 + rng.index(csize * segment_packs * pack);
    const std::vector<float> x = shifted_trial_row(trial, n, rng);
    const two_pass ref = direct_stats(x);
    std::vector<rowwise::shifted_two_pass> cta(static_cast<size_t>(csize), rowwise::shifted_two_pass_reducer::identity());
    for (int r = 0; r < csize; ++r) {
      const size_t b = std::min(x.size(), static_cast<size_t>(r * segment_packs * pack));
      const size_t e = std::min(x.size(), static_cast<size_t>((r + 1) * segment_packs * pack));
      if (e > b) cta[static_cast<size_t>(r)] = block_two_pass_sums(std::vector<float>(x.begin() + b, x.begin() + e), warps, pack);
    }
    INFO("trial " << trial << ", n " << n << ", cluster " << csize << ", warps " << warps);
    const double rtol = rowwise_test::grown_rtol(1e-5, 23, n);
    check_against_two_pass(summaries(cta), ref, n, rtol);
    check_against_two_pass(raw_sums(cta), ref, n, rtol);
  }
  for (float c : {0.0f, 3.0f, -1e4f, 123.456f}) {  // a constant row stays exact through the rebase
    INFO("constant row " << c);
    const rowwise::shifted_two_pass a = block_two_pass_sums(std::vector<float>(4096, c), 4, 4);
    for (const shifted_welford_value w : {summaries({a, a}), raw_sums({a, a}),
                                          [&] {
                                            const rowwise::shifted_two_pass t = rowwise::shifted_two_pass_reducer{}(a, a);
                                            return shifted_welford_reducer::from_two_pass(t.n, t.s, t.q, t.c);
                                          }()}) {
      CHECK(shifted_mean(w) == static_cast<double>(c));
      CHECK(w.m2 == 0.0f);
    }
  }
}

TEST_CASE("shifted welford: a block whose first lane's values are all far out keeps the two-pass statistics",
          "[host][operators]") {
  // The block's shared shift is warp 0's rounded mean, not its first lane's mean or first value:
  // what Q - C^2 / N loses grows with (mean - S)^2 / variance, and an adversary can put every value
  // of lane 0 (packs 0, threads, 2 threads, ...) far from the rest. With S = warp 0's first lane's
  // mean instead, 16 warps of 32 values ran at 1.5e-4 relative variance error for lane-0 values of
  // 1e3 (session 28), over the tolerance.
  seeded_rng rng("shifted welford far first lane");
  INFO(rng.describe());
  for (int warps : {4, 8, 16})
    for (int pack : {4, 8})
      for (double far : {10.0, 100.0, 1e3, 1e4}) {
        const int threads = 32 * warps;
        std::vector<float> x(static_cast<size_t>(threads) * 32);
        for (float& v : x) v = static_cast<float>(rng.normal(0.0, 1.0));
        for (size_t p = 0; p * pack < x.size(); p += static_cast<size_t>(threads))
          for (int j = 0; j < pack; ++j) x[p * pack + j] = static_cast<float>(far + rng.normal(0.0, 1.0));
        INFO("warps " << warps << ", pack " << pack << ", lane 0 at " << far);
        const int64_t n = static_cast<int64_t>(x.size());
        check_against_two_pass(block_two_pass(x, warps, pack), direct_stats(x), n, rowwise_test::grown_rtol(1e-5, 23, n));
      }
}

TEST_CASE("shifted welford: a constant row has variance exactly 0 and its mean exactly", "[host][operators]") {
  seeded_rng rng("shifted welford constant row");
  for (float c : {0.0f, 3.0f, -1e4f, 123.456f}) {
    const std::vector<float> x(1000, c);
    for (const auto& [name, w] : all_orders<shifted_welford_reducer>(shifted_leaves(x, 32), rng)) {
      INFO("c " << c << ", " << name);
      CHECK(shifted_mean(w) == static_cast<double>(c));
      CHECK(w.m2 == 0.0f);
    }
  }
}

TEST_CASE("times_log2e: hi + lo = m * log2e exactly with |lo| <= 64, or the exact-only form where every other "
          "fp32 value is >= 128 below m (finite mask fills: -1e10, the dtypes' lowest)",
          "[host][operators]") {
  using rowwise::kernels::log2e;
  using rowwise::kernels::times_log2e;
  seeded_rng rng("times_log2e");
  INFO(rng.describe());
  std::vector<float> ms = {0.0f, 1.0f, -1.0f, 120.0f, -65504.0f, 65504.0f, 1e4f, -1e4f, 1.4e9f, 1.5e9f, -1.5e9f,
                           1073741824.0f, -2147483648.0f, -1e10f, 2e9f, -3.3895313892515355e38f,
                           -std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min()};
  for (int i = 0; i < 200000; ++i) {  // every binade, random mantissas, both signs
    const double mag = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.index(254)) - 126);
    ms.push_back(static_cast<float>(rng.sign() * std::min(mag, 3.4e38)));
  }
  int exact = 0;
  for (const float m : ms) {
    const rowwise::kernels::log2e_multiple s = times_log2e(m);
    INFO("m = " << m << ": hi " << s.hi << ", lo " << s.lo << ", slope " << s.slope);
    if (std::fabs(m) < 1073741824.0f) CHECK(s.slope == log2e);  // below 2^30 the split always holds
    if (s.slope == log2e) {
      CHECK(std::fabs(s.lo) <= 64.0f);
      // Exact (the 48-bit product's remainder fits a float) unless that remainder is subnormal,
      // for |m| below ~2^-100, where lo cannot matter.
      if (std::fabs(m) >= std::ldexp(1.0f, -100))
        CHECK(static_cast<double>(s.hi) + static_cast<double>(s.lo) ==
              static_cast<double>(m) * static_cast<double>(log2e));
    } else {
      ++exact;
      REQUIRE(s.slope == 1.0f);
      CHECK(s.hi == m);
      CHECK(s.lo == 0.0f);
      CHECK(std::fabs(m) >= 1073741824.0f);  // 2^30
      // exp(x - m) for every other fp32 x <= m underflows in fp32 (e^-128 < 2^-149).
      CHECK(static_cast<double>(m) - static_cast<double>(std::nextafter(m, -std::numeric_limits<float>::infinity())) >=
            128.0);
    }
  }
  CHECK(exact > 0);
  // NaN lo (m = +inf) and NaN m keep the ordinary path: their rows must come out NaN.
  CHECK(times_log2e(std::numeric_limits<float>::infinity()).slope == log2e);
  CHECK(times_log2e(std::numeric_limits<float>::quiet_NaN()).slope == log2e);
  // The finite mask fills take the exact-only path.
  for (const float fill : {-1e10f, -std::numeric_limits<float>::max(), -3.3895313892515355e38f})
    CHECK(times_log2e(fill).slope == 1.0f);
}
