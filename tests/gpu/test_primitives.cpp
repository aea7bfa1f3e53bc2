// tests/gpu/test_primitives.cpp — GPU tests of warp_all_reduce, block_all_reduce and
// cluster_all_reduce with sum_reducer, max_reducer, online_softmax_reducer and welford_reducer.
//
// Every thread of a launch gets one input float; the kernels (primitives_kernels.cu) write the
// value the primitive returned in EVERY thread, into an output poisoned with 0xFF bytes. For each
// reduction group (the G lanes of a warp group; one block and one row; the CTAs of one cluster
// and one row) the host checks that every thread of the group
//   1. wrote its result (no 0xFFFFFFFF word: the poison; no computed NaN has those bits, the GPU's
//      canonical NaN is 0x7FFFFFFF and the test's input NaNs are 0x7FC00000 and 0xFFC00000),
//   2. holds the same bits as the group's first thread (the primitives promise bit-identical
//      results in every thread),
//   3. agrees with an fp64 reference of the group within a bound derived below.
//
// Error bounds ("running error analysis": each fp32 operation is modelled as
// fl(a op b) = (a op b)(1 + e), |e| <= u = 2^-24, and the reference replays the primitive's own
// merge tree in double, carrying a rigorous first-order bound of the fp32 error at every node).
// The tree is the one the primitive uses: warp_all_reduce is a xor butterfly whose first step
// merges lanes G/2 apart (lower lane on the left; online softmax: a max, then a sum butterfly),
// block_all_reduce is that butterfly over each warp and then over the warp partials padded with
// the identity to a power of two, and
// cluster_all_reduce merges the CTA aggregates by that butterfly over the cluster's ranks padded
// with the identity to a power of two (lane r of each warp holds rank r's aggregate).
//   sum      node error e = e_a + e_b + u (|a + b| + e_a + e_b)     (rounding of one addition);
//            merging with the identity is exact. So |got - ref| <= e: the bound is
//            u * sum over internal nodes of |partial sum| -- at most u * depth * sum |x|, and
//            much less when partial sums cancel.
//   max      exact: the merge returns one of its operands. A NaN anywhere in a group gives NaN.
//   online   m exact (a max). d: each side is rescaled by exp(m_side - m), whose relative error
//   softmax  is at most (6 + 4 |m_side - m|) u: |t| u for rounding t = m_side - m, up to 4 u for
//            expf's 2 ulp (or (4 + 2.4 |t|) u for __expf under --use_fast_math), u for the product;
//            plus u for the addition, plus 2^-126 per rescaled side for underflow (flush to zero).
//            Every term is positive, so the relative error stays ~ depth * that. A NaN gives m NaN;
//            an all -inf group gives exactly (m, d) = (-inf, 0), no NaN. Within a warp group the
//            primitive takes two steps instead (max of m, then the sum of each d rescaled once:
//            online_softmax_ref::group), bounded the same way per term and per addition.
//   Welford  n exact (counts < 2^24). mean: the rounding of delta = mean_b - mean_a, of
//            w = n_b / n, of delta * w and of the sum propagate as
//              e_mean = (1 - w) e_a + w e_b + 3 u w (|delta| + E) + u (|mean| + e_a + e_b),
//            E = e_a + e_b + u (|delta| + e_a + e_b) the error of delta; and m2 (all terms >= 0)
//              e_m2 = e_m2a + e_m2b + n_a w (2 |delta| E + E^2) + 5 u n_a w (|delta| + E)^2
//                     + 2 u (m2_a + m2_b + T + ...),   T = delta^2 n_a w.
//            The delta error enters m2 to FIRST order: with mean 1e4 and std 1e-2 (ulp(1e4) ~
//            0.1 std) the bound is a sizable fraction of m2 -- the conditioning of the data
//            allows no better in fp32 -- while E[x^2] - E[x]^2 would be off by ~1e4 times m2.
// Each bound gets a 1% margin (the bounds are first order) plus 1e-12 relative for the double
// reference's own rounding. With NaN inputs sum, max, m, mean (and m2, once merged) must be NaN.
//
// Seeds: support/inputs.hpp's test_seed() (ROWWISE_TEST_SEED, else random), salted per case;
// every check INFO()s it. Skips: clusters need sm_90; on older devices the cluster cases run only
// the launch without clusters, WARN "skipped: ..." and count the other configurations as
// skipped, never as passed (see the summary line printed at the end of the run).
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // for the summary listener below
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "primitives_kernels.hpp"
#include "support/inputs.hpp"

namespace {

using rowwise_test::seeded_rng;
using rowwise_test::prim::block_sizes;
using rowwise_test::prim::cluster_sizes;
using rowwise_test::prim::cluster_test_block_threads;
using rowwise_test::prim::device_info;
using rowwise_test::prim::device_run;
using rowwise_test::prim::reducer_kind;
using rowwise_test::prim::reducer_name;
using rowwise_test::prim::warp_group_sizes;

constexpr double u = 0x1.0p-24;  // unit roundoff of fp32, round to nearest
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double margin = 1.01;    // the bounds are first order
constexpr double ref_rel = 1e-12;  // the double reference's own rounding
constexpr std::uint32_t poison_bits = 0xFFFFFFFFu;

// --- run summary (skips are counted apart, never as passes) -------------------------------------

struct tally {
  long configurations_passed = 0;
  long configurations_failed = 0;
  long configurations_skipped = 0;
  long threads_checked = 0;
};

tally& counts() {
  static tally t;
  return t;
}

struct primitives_summary : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunEnded(Catch::TestRunStats const& stats) override {
    const tally& t = counts();
    if (t.configurations_passed + t.configurations_failed + t.configurations_skipped > 0) {
      std::printf(
          "rowwise primitives: %ld configurations passed, %ld failed, %ld SKIPPED (not run, not "
          "passes); %ld thread results checked; ROWWISE_TEST_SEED=0x%016llx\n",
          t.configurations_passed, t.configurations_failed, t.configurations_skipped, t.threads_checked,
          static_cast<unsigned long long>(rowwise_test::test_seed()));
      std::fflush(stdout);
    }
    TestEventListenerBase::testRunEnded(stats);
  }
};

// --- formatting ---------------------------------------------------------------------------------

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string fmt_float(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g [0x%08x]", static_cast<double>(f), static_cast<unsigned>(bits_of(f)));
  return buf;
}

/// "got G, expected R +- tol (error E)"
std::string mismatch(const char* field, float got, double ref, double tol) {
  std::string s = field;
  s += ": got " + fmt_float(got) + ", expected " + fmt(ref);
  if (tol > 0.0) s += " +- " + fmt(tol) + " (error " + fmt(std::fabs(static_cast<double>(got) - ref)) + ")";
  return s;
}

bool within(float got, double ref, double bound) {
  const double tol = bound * margin + ref_rel * std::fabs(ref);
  return std::fabs(static_cast<double>(got) - ref) <= tol;  // false for a NaN got
}

// --- fp64 references with running error bounds -------------------------------------------------

struct sum_ref {
  static constexpr int words = 1;
  struct node {
    double v = 0.0;    // exact sum (to double precision)
    double err = 0.0;  // bound on |fp32 result - v|
    bool empty = true;
  };
  static node identity() { return {}; }
  static node leaf(float x) { return {static_cast<double>(x), 0.0, false}; }
  static node merge(const node& a, const node& b) {
    if (a.empty) return b;
    if (b.empty) return a;
    node r;
    r.empty = false;
    r.v = a.v + b.v;
    r.err = a.err + b.err + u * (std::fabs(r.v) + a.err + b.err);
    return r;
  }
  static bool check(const float* got, const node& ref, std::string& why) {
    if (std::isnan(ref.v)) {
      if (std::isnan(got[0])) return true;
      why = mismatch("sum", got[0], ref.v, 0.0) + " (a NaN input must give NaN)";
      return false;
    }
    if (std::isinf(ref.v)) {
      if (static_cast<double>(got[0]) == ref.v) return true;
      why = mismatch("sum", got[0], ref.v, 0.0);
      return false;
    }
    if (within(got[0], ref.v, ref.err)) return true;
    why = mismatch("sum", got[0], ref.v, ref.err * margin);
    return false;
  }
};

struct max_ref {
  static constexpr int words = 1;
  struct node {
    double v = -inf;
    bool nan = false;
  };
  static node identity() { return {}; }
  static node leaf(float x) { return {static_cast<double>(x), std::isnan(x)}; }
  static node merge(const node& a, const node& b) {
    node r;
    r.nan = a.nan || b.nan;
    r.v = r.nan ? std::numeric_limits<double>::quiet_NaN() : std::max(a.v, b.v);
    return r;
  }
  static bool check(const float* got, const node& ref, std::string& why) {
    if (ref.nan) {
      if (std::isnan(got[0])) return true;
      why = mismatch("max", got[0], ref.v, 0.0) + " (a NaN in the group must give NaN in every lane)";
      return false;
    }
    if (static_cast<double>(got[0]) == ref.v) return true;  // exact: max returns an operand
    why = mismatch("max", got[0], ref.v, 0.0) + " (must be exact)";
    return false;
  }
};

struct online_softmax_ref {
  static constexpr int words = 2;
  struct node {
    double m = -inf;   // max logit (exact: a float)
    double d = 0.0;    // sum exp(x - m), exact to double precision
    double err = 0.0;  // bound on |fp32 d - d|
    bool nan = false;
  };
  static node identity() { return {}; }
  static node leaf(float x) {
    node r;
    if (std::isnan(x)) {
      r.nan = true;
      r.m = r.d = std::numeric_limits<double>::quiet_NaN();
    } else if (x != -std::numeric_limits<float>::infinity()) {
      r.m = x;
      r.d = 1.0;
    }
    return r;
  }
  static node merge(const node& a, const node& b) {
    node r;
    if (a.nan || b.nan) {
      r.nan = true;
      r.m = r.d = std::numeric_limits<double>::quiet_NaN();
      return r;
    }
    r.m = std::max(a.m, b.m);
    if (r.m == -inf) return identity();  // both empty / all -inf: exactly the identity
    double terms = 0.0, errs = 0.0;
    for (const node* s : {&a, &b}) {
      if (s->m == -inf) continue;   // d = 0 contributes 0 * expf(-inf) = 0 exactly
      const double t = s->m - r.m;  // <= 0, exact in double
      const double f = std::exp(t);
      const double eps = (6.0 + 4.0 * std::fabs(t)) * u;
      terms += s->d * f;
      errs += s->err * f * (1.0 + eps) + s->d * f * eps + s->d * 0x1.0p-126;
    }
    r.d = terms;
    r.err = errs + u * (r.d + errs);
    return r;
  }
  /// warp_all_reduce's two steps for this operator (not pairwise merges): the group's max M,
  /// then each lane's d rescaled once to M (the same per-side bound as merge()), then a sum
  /// butterfly of those terms (sum_ref's bound per addition, lower lane on the left).
  static node group(const std::vector<node>& lanes) {
    node r;
    for (const node& l : lanes) {
      if (l.nan) {
        r.nan = true;
        r.m = r.d = std::numeric_limits<double>::quiet_NaN();
        return r;
      }
      r.m = std::max(r.m, l.m);
    }
    if (r.m == -inf) return identity();
    std::vector<double> v, e;
    for (const node& l : lanes) {
      if (l.m == -inf) {  // d = 0: 0 * 2^-inf = 0 exactly
        v.push_back(0.0);
        e.push_back(0.0);
        continue;
      }
      const double t = l.m - r.m;
      const double f = std::exp(t);
      const double eps = (6.0 + 4.0 * std::fabs(t)) * u;
      v.push_back(l.d * f);
      e.push_back(l.err * f * (1.0 + eps) + l.d * f * eps + l.d * 0x1.0p-126);
    }
    for (size_t offset = v.size() / 2; offset > 0; offset /= 2) {
      for (size_t j = 0; j < offset; ++j) {
        const double sum = v[j] + v[j + offset];
        e[j] = e[j] + e[j + offset] + u * (std::fabs(sum) + e[j] + e[j + offset]);
        v[j] = sum;
      }
    }
    r.d = v[0];
    r.err = e[0];
    return r;
  }
  static bool check(const float* got, const node& ref, std::string& why) {
    if (ref.nan) {
      if (std::isnan(got[0])) return true;  // d is left unchecked: the contract speaks of m
      why = mismatch("m", got[0], ref.m, 0.0) + " (a NaN in the group must give m = NaN in every lane)";
      return false;
    }
    if (ref.m == -inf) {
      if (static_cast<double>(got[0]) == -inf && got[1] == 0.0f) return true;
      why = "all -inf group must give exactly (m, d) = (-inf, 0): got m = " + fmt_float(got[0]) +
            ", d = " + fmt_float(got[1]);
      return false;
    }
    if (static_cast<double>(got[0]) != ref.m) {
      why = mismatch("m", got[0], ref.m, 0.0) + " (must be exact)";
      return false;
    }
    if (within(got[1], ref.d, ref.err)) return true;
    why = mismatch("d", got[1], ref.d, ref.err * margin);
    return false;
  }
};

struct welford_ref {
  static constexpr int words = 3;
  struct node {
    double n = 0.0, mean = 0.0, m2 = 0.0;
    double e_mean = 0.0, e_m2 = 0.0;  // bounds on the fp32 errors of mean and m2
    bool nan = false;                 // a NaN among the inputs: mean is NaN
    bool m2_nan = false;              // ... and m2 too, once a NaN has been merged (of(NaN) has m2 = 0)
  };
  static node identity() { return {}; }
  static node leaf(float x) {
    node r;
    r.n = 1.0;
    r.mean = x;
    r.nan = std::isnan(x);
    return r;
  }
  static node merge(const node& a, const node& b) {
    // Merging with an empty side is exact in fp32 too: w is 0 or 1 and the m2 term is 0.
    if (a.n == 0.0) return b;
    if (b.n == 0.0) return a;
    node r;
    r.n = a.n + b.n;
    if (a.nan || b.nan) {
      r.nan = r.m2_nan = true;
      r.mean = r.m2 = std::numeric_limits<double>::quiet_NaN();
      return r;
    }
    const double w = b.n / r.n;
    const double delta = b.mean - a.mean;
    r.mean = a.mean + delta * w;
    const double t = delta * delta * a.n * w;
    r.m2 = a.m2 + b.m2 + t;
    const double ad = std::fabs(delta);
    const double e_delta = a.e_mean + b.e_mean + u * (ad + a.e_mean + b.e_mean);
    r.e_mean = ((1.0 - w) * a.e_mean + w * b.e_mean + 3.0 * u * w * (ad + e_delta) +
                u * (std::fabs(r.mean) + a.e_mean + b.e_mean)) *
               (1.0 + 4.0 * u);
    const double e_t = a.n * w * (2.0 * ad * e_delta + e_delta * e_delta) +
                       5.0 * u * a.n * w * (ad + e_delta) * (ad + e_delta);
    r.e_m2 = a.e_m2 + b.e_m2 + e_t + 2.0 * u * (a.m2 + b.m2 + t + a.e_m2 + b.e_m2 + e_t);
    return r;
  }
  static bool check(const float* got, const node& ref, std::string& why) {
    if (static_cast<double>(got[0]) != ref.n) {
      why = mismatch("n", got[0], ref.n, 0.0) + " (must be exact)";
      return false;
    }
    if (ref.nan) {
      if (std::isnan(got[1]) && (ref.m2_nan ? std::isnan(got[2]) : got[2] == 0.0f)) return true;
      why = std::string("a NaN in the group must give mean = NaN and m2 = ") + (ref.m2_nan ? "NaN" : "0") +
            " (of(NaN) = {1, NaN, 0}; any merge with it gives NaN): got mean = " + fmt_float(got[1]) +
            ", m2 = " + fmt_float(got[2]);
      return false;
    }
    if (!within(got[1], ref.mean, ref.e_mean)) {
      why = mismatch("mean", got[1], ref.mean, ref.e_mean * margin);
      return false;
    }
    if (!within(got[2], ref.m2, ref.e_m2)) {
      why = mismatch("m2", got[2], ref.m2, ref.e_m2 * margin);
      return false;
    }
    return true;
  }
};

template <class F>
auto with_ref(reducer_kind kind, F&& f) {
  switch (kind) {
    case reducer_kind::sum:
      return f(sum_ref{});
    case reducer_kind::max:
      return f(max_ref{});
    case reducer_kind::online_softmax:
      return f(online_softmax_ref{});
    case reducer_kind::welford:
      break;
  }
  return f(welford_ref{});
}

// --- the primitives' merge trees, replayed on the host ------------------------------------------

template <class Ref, class = void>
struct has_group : std::false_type {};
template <class Ref>
struct has_group<Ref, std::void_t<decltype(Ref::group(std::declval<const std::vector<typename Ref::node>&>()))>>
    : std::true_type {};

/// warp_all_reduce<v.size()>: step `offset` merges lane j with lane j + offset, lower on the left
/// (or the operator's own two-step group reduction where the primitive uses one: Ref::group).
template <class Ref>
typename Ref::node butterfly(std::vector<typename Ref::node> v) {
  if constexpr (has_group<Ref>::value) return Ref::group(v);
  for (size_t offset = v.size() / 2; offset > 0; offset /= 2) {
    for (size_t j = 0; j < offset; ++j) v[j] = Ref::merge(v[j], v[j + offset]);
  }
  return v[0];
}

/// block_all_reduce<block_threads>: a butterfly per warp, then one over the warp partials padded
/// with the identity to a power of two (at least 2).
template <class Ref>
typename Ref::node block_tree(const typename Ref::node* leaves, int block_threads) {
  const int warps = block_threads / 32;
  std::vector<typename Ref::node> partials;
  for (int w = 0; w < warps; ++w) {
    partials.push_back(
        butterfly<Ref>(std::vector<typename Ref::node>(leaves + 32 * w, leaves + 32 * (w + 1))));
  }
  if (warps == 1) return partials[0];
  size_t pow2 = 2;
  while (pow2 < partials.size()) pow2 *= 2;
  partials.resize(pow2, Ref::identity());
  return butterfly<Ref>(std::move(partials));
}

/// cluster_all_reduce<cluster_size> over block_all_reduce<cluster_test_block_threads>: the CTA
/// aggregates (rank r in lane r) merged by a butterfly over them padded with the identity to a
/// power of two (cluster_push_reduce::collect).
template <class Ref>
typename Ref::node cluster_tree(const typename Ref::node* leaves, int cluster_size) {
  std::vector<typename Ref::node> ctas;
  for (int r = 0; r < cluster_size; ++r)
    ctas.push_back(block_tree<Ref>(leaves + r * cluster_test_block_threads, cluster_test_block_threads));
  if (cluster_size == 1) return ctas[0];
  size_t pow2 = 2;
  while (pow2 < ctas.size()) pow2 *= 2;
  ctas.resize(pow2, Ref::identity());
  return butterfly<Ref>(std::move(ctas));
}

enum class primitive { warp, block, cluster };

const char* primitive_name(primitive p) {
  switch (p) {
    case primitive::warp:
      return "warp_all_reduce";
    case primitive::block:
      return "block_all_reduce";
    case primitive::cluster:
      return "cluster_all_reduce";
  }
  return "?";
}

/// One reduction group: the indices (into input and output) of its threads, in the order the
/// primitive's tree sees them (lane, then warp, then cluster rank).
struct group {
  std::string label;
  std::vector<size_t> idx;
};

template <class Ref>
typename Ref::node reference(primitive p, int size, const std::vector<float>& in, const group& g) {
  std::vector<typename Ref::node> leaves;
  leaves.reserve(g.idx.size());
  for (size_t i : g.idx) leaves.push_back(Ref::leaf(in[i]));
  switch (p) {
    case primitive::warp:
      return butterfly<Ref>(std::move(leaves));
    case primitive::block:
      return block_tree<Ref>(leaves.data(), size);
    case primitive::cluster:
      break;
  }
  return cluster_tree<Ref>(leaves.data(), size);
}

struct check_report {
  long threads = 0;
  long failures = 0;
  std::string details;  // the first few failures
};

template <class Ref>
check_report check_groups(primitive p, int size, const std::vector<float>& in, const std::vector<float>& out,
                          const std::vector<group>& groups) {
  constexpr int W = Ref::words;
  constexpr long max_details = 8;
  check_report rep;
  auto fail = [&](const group& g, size_t member, const std::string& why) {
    if (rep.failures < max_details) {
      rep.details += "  " + g.label + ", member " + std::to_string(member) + " (output index " +
                     std::to_string(g.idx[member]) + "): " + why + "\n";
    }
    ++rep.failures;
  };
  if (out.size() != in.size() * W) {
    rep.failures = 1;
    rep.details = "output has " + std::to_string(out.size()) + " floats, expected " +
                  std::to_string(in.size() * W) + "\n";
    return rep;
  }
  for (const group& g : groups) {
    const typename Ref::node ref = reference<Ref>(p, size, in, g);
    const float* first = &out[g.idx[0] * W];
    for (size_t m = 0; m < g.idx.size(); ++m) {
      ++rep.threads;
      const float* got = &out[g.idx[m] * W];
      bool written = true;
      for (int k = 0; k < W; ++k) written = written && bits_of(got[k]) != poison_bits;
      if (!written) {
        fail(g, m, "result not written (poison 0xFFFFFFFF left in the output)");
        continue;
      }
      if (std::memcmp(got, first, W * sizeof(float)) != 0) {
        std::string why = "not bit-identical to member 0 of its group:";
        for (int k = 0; k < W; ++k) why += " " + fmt_float(got[k]) + " vs " + fmt_float(first[k]) + ";";
        fail(g, m, why);
        continue;
      }
      std::string why;
      if (!Ref::check(got, ref, why)) fail(g, m, why);
    }
  }
  if (rep.failures > max_details) {
    rep.details += "  ... and " + std::to_string(rep.failures - max_details) + " more\n";
  }
  return rep;
}

// --- inputs -------------------------------------------------------------------------------------

enum class pattern {
  random,      // uniform [-4, 4)
  one_nan,     // random; every other group gets one NaN (of either sign) at a random member
  neg_inf,     // groups cycle through: all -inf; about half -inf; no -inf
  far_apart,   // k * 1e4 + uniform [-1, 1), k in {-1, 0, 1}: logits 1e4 apart
  large_mean,  // Normal(1e4, 1e-2): Welford's cancellation case
};

constexpr pattern all_patterns[] = {pattern::random, pattern::one_nan, pattern::neg_inf, pattern::far_apart,
                                    pattern::large_mean};

const char* pattern_name(pattern p) {
  switch (p) {
    case pattern::random:
      return "random";
    case pattern::one_nan:
      return "one_nan";
    case pattern::neg_inf:
      return "neg_inf";
    case pattern::far_apart:
      return "far_apart";
    case pattern::large_mean:
      return "large_mean";
  }
  return "?";
}

/// -inf means nothing for Welford (inf - inf); DESIGN.md gives -inf semantics to softmax only.
bool applies(pattern p, reducer_kind kind) {
  return !(p == pattern::neg_inf && kind == reducer_kind::welford);
}

std::vector<float> make_input(pattern p, size_t n, const std::vector<group>& groups, seeded_rng& rng) {
  std::vector<float> in(n, 0.0f);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const std::vector<size_t>& idx = groups[gi].idx;
    for (size_t i : idx) {
      switch (p) {
        case pattern::random:
        case pattern::one_nan:
          in[i] = static_cast<float>(rng.uniform(-4.0, 4.0));
          break;
        case pattern::neg_inf:
          if (gi % 3 == 0 || (gi % 3 == 1 && rng.uniform01() < 0.5)) {
            in[i] = neg_inf;
          } else {
            in[i] = static_cast<float>(rng.uniform(-4.0, 4.0));
          }
          break;
        case pattern::far_apart:
          in[i] =
              static_cast<float>(1e4 * static_cast<double>(rng.uniform_int(-1, 1)) + rng.uniform(-1.0, 1.0));
          break;
        case pattern::large_mean:
          in[i] = static_cast<float>(rng.normal(1e4, 1e-2));
          break;
      }
    }
    if (p == pattern::one_nan && gi % 2 == 0) {
      // Every other NaN has its sign bit set: the warp maximum compares integer keys of the
      // floats (warp_all_reduce.cuh), where a negative NaN would sort below -inf unless mapped.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      in[idx[static_cast<size_t>(rng.index(static_cast<int64_t>(idx.size())))]] =
          gi % 4 == 0 ? nan : -nan;
    }
  }
  return in;
}

// --- one configuration --------------------------------------------------------------------------

constexpr int warp_test_block_threads = 128;  // 4 warps per block
constexpr int warp_test_blocks = 2;
constexpr int block_test_blocks = 3;
constexpr int block_test_rows = 3;  // storages 0, 1, 0: call 3 reuses call 1's storage
// More clusters than the H200's 7 GPCs that hold a cluster of 16 at one CTA per SM, so that
// clusters of 16 also run two to a GPC (CTAs of different clusters on one SM): compute-sanitizer
// synccheck cannot run the push exchange there (bench/NOTES.md session 34 a), so plain runs check it.
constexpr int cluster_test_clusters = 17;
constexpr int cluster_test_rows = 9;  // steps 0..8: each of the 4 slot sets reused, phases flipped

std::vector<group> make_groups(primitive p, int size, size_t& n) {
  std::vector<group> groups;
  switch (p) {
    case primitive::warp: {
      n = static_cast<size_t>(warp_test_block_threads) * warp_test_blocks;
      for (size_t s = 0; s < n; s += static_cast<size_t>(size)) {
        group g;
        g.label =
            "threads [" + std::to_string(s) + ", " + std::to_string(s + static_cast<size_t>(size)) + ")";
        for (int k = 0; k < size; ++k) g.idx.push_back(s + static_cast<size_t>(k));
        groups.push_back(std::move(g));
      }
      break;
    }
    case primitive::block: {
      const size_t threads = static_cast<size_t>(size) * block_test_blocks;
      n = threads * block_test_rows;
      for (int r = 0; r < block_test_rows; ++r) {
        for (int b = 0; b < block_test_blocks; ++b) {
          group g;
          g.label = "row " + std::to_string(r) + " (storage " + std::to_string(r & 1) + "), block " +
                    std::to_string(b);
          for (int t = 0; t < size; ++t) {
            g.idx.push_back(static_cast<size_t>(r) * threads + static_cast<size_t>(b) * size + t);
          }
          groups.push_back(std::move(g));
        }
      }
      break;
    }
    case primitive::cluster: {
      const size_t ctas = static_cast<size_t>(size) * cluster_test_clusters;
      const size_t threads = ctas * cluster_test_block_threads;
      n = threads * cluster_test_rows;
      for (int r = 0; r < cluster_test_rows; ++r) {
        for (int c = 0; c < cluster_test_clusters; ++c) {
          group g;
          g.label = "row " + std::to_string(r) + " (step " + std::to_string(r) + "), cluster " +
                    std::to_string(c) + " (member = rank * " + std::to_string(cluster_test_block_threads) +
                    " + threadIdx.x)";
          const size_t cta0 = static_cast<size_t>(c) * static_cast<size_t>(size);
          for (size_t t = 0; t < static_cast<size_t>(size) * cluster_test_block_threads; ++t) {
            g.idx.push_back(static_cast<size_t>(r) * threads + cta0 * cluster_test_block_threads + t);
          }
          groups.push_back(std::move(g));
        }
      }
      break;
    }
  }
  return groups;
}

/// A configuration's size: warp group size, block size, or cluster size (CTAs per cluster at
/// launch; 1 = launched without clusters) with the primitive's MaxClusterSize template argument.
struct shape_size {
  int size;
  int max_size;  // == size except for cluster_all_reduce<max_size> launched with smaller clusters
};

std::vector<shape_size> exact_sizes(const int* first, const int* last) {
  std::vector<shape_size> v;
  for (const int* p = first; p != last; ++p) v.push_back({*p, *p});
  return v;
}

device_run launch(primitive p, reducer_kind kind, shape_size sz, const std::vector<float>& in) {
  switch (p) {
    case primitive::warp:
      return rowwise_test::prim::run_warp_all_reduce(kind, sz.size, warp_test_block_threads, in);
    case primitive::block:
      return rowwise_test::prim::run_block_all_reduce(kind, sz.size, block_test_rows, in);
    case primitive::cluster:
      break;
  }
  return rowwise_test::prim::run_cluster_all_reduce(kind, sz.size, sz.max_size, cluster_test_rows, in);
}

std::string configuration_name(primitive p, reducer_kind kind, shape_size sz, pattern pat) {
  std::string name =
      std::string(primitive_name(p)) + "<" + std::to_string(sz.max_size) + ", " + reducer_name(kind) + ">";
  if (p == primitive::cluster) {
    name +=
        sz.size == 1 ? " launched without clusters" : " launched with clusters of " + std::to_string(sz.size);
  }
  return name + ", input " + pattern_name(pat);
}

void check_configuration(primitive p, reducer_kind kind, shape_size sz, pattern pat) {
  const std::string name = configuration_name(p, kind, sz, pat);
  const int size = sz.size;
  seeded_rng rng(name);
  INFO(name);
  INFO(rng.describe());
  size_t n = 0;
  const std::vector<group> groups = make_groups(p, size, n);
  const std::vector<float> in = make_input(pat, n, groups, rng);
  const device_run run = launch(p, kind, sz, in);
  if (run.error != cudaSuccess) {
    ++counts().configurations_failed;
    FAIL_CHECK("CUDA error: " << run.message);
    return;
  }
  const check_report rep =
      with_ref(kind, [&](auto ref) { return check_groups<decltype(ref)>(p, size, in, run.out, groups); });
  counts().threads_checked += rep.threads;
  if (rep.failures == 0) {
    ++counts().configurations_passed;
  } else {
    ++counts().configurations_failed;
  }
  INFO(rep.failures << " of " << rep.threads << " thread results wrong:\n" << rep.details);
  CHECK(rep.failures == 0);
}

/// Fails the test case (once) when there is no usable device; returns its compute capability.
device_info require_device() {
  const device_info dev = rowwise_test::prim::query_device();
  INFO("device: " << dev.message);
  REQUIRE(dev.error == cudaSuccess);
  return dev;
}

template <class Patterns>
void check_all(primitive p, reducer_kind kind, const std::vector<shape_size>& sizes,
               const Patterns& patterns) {
  const device_info dev = require_device();
  long skipped = 0;
  for (shape_size sz : sizes) {
    for (pattern pat : patterns) {
      if (!applies(pat, kind)) continue;
      if (p == primitive::cluster && sz.size > 1 && dev.major < 9) {
        ++skipped;  // clusters need sm_90: not run, and not counted as passed
        continue;
      }
      check_configuration(p, kind, sz, pat);
    }
  }
  if (skipped > 0) {
    counts().configurations_skipped += skipped;
    WARN("skipped: " << skipped << " configurations of " << primitive_name(p) << " with "
                     << reducer_name(kind) << " need thread-block clusters (sm_90+); the device is "
                     << dev.message);
  }
}

const std::vector<shape_size> warp_shapes =
    exact_sizes(std::begin(warp_group_sizes), std::end(warp_group_sizes));
const std::vector<shape_size> block_shapes = exact_sizes(std::begin(block_sizes), std::end(block_sizes));
/// Every cluster size with MaxClusterSize == size, then MaxClusterSize 16 (what the kernels use)
/// with every smaller cluster, down to a launch without clusters.
const std::vector<shape_size> cluster_shapes = [] {
  std::vector<shape_size> v = exact_sizes(std::begin(cluster_sizes), std::end(cluster_sizes));
  for (int s : {1, 2, 4, 8}) v.push_back({s, 16});
  return v;
}();

constexpr reducer_kind all_reducers[] = {reducer_kind::sum, reducer_kind::max, reducer_kind::online_softmax,
                                         reducer_kind::welford};
constexpr pattern sanitize_patterns[] = {pattern::random, pattern::one_nan};

}  // namespace

CATCH_REGISTER_LISTENER(primitives_summary)

// --- warp_all_reduce: group sizes 1..32, every operator, every input pattern --------------------

TEST_CASE("warp_all_reduce with sum_reducer: every group size and input pattern", "[gpu][primitives][warp]") {
  check_all(primitive::warp, reducer_kind::sum, warp_shapes, all_patterns);
}
TEST_CASE("warp_all_reduce with max_reducer: every group size and input pattern", "[gpu][primitives][warp]") {
  check_all(primitive::warp, reducer_kind::max, warp_shapes, all_patterns);
}
TEST_CASE("warp_all_reduce with online_softmax_reducer: every group size and input pattern",
          "[gpu][primitives][warp]") {
  check_all(primitive::warp, reducer_kind::online_softmax, warp_shapes, all_patterns);
}
TEST_CASE("warp_all_reduce with welford_reducer: every group size and input pattern",
          "[gpu][primitives][warp]") {
  check_all(primitive::warp, reducer_kind::welford, warp_shapes, all_patterns);
}

// --- block_all_reduce: 32..1024 threads (1, 2, 3, 4, 8, 12, 16, 32 warps), 3 calls per kernel
//     alternating two storages, every operator, every input pattern ------------------------------

TEST_CASE("block_all_reduce with sum_reducer: every block size and input pattern, alternating storages",
          "[gpu][primitives][block]") {
  check_all(primitive::block, reducer_kind::sum, block_shapes, all_patterns);
}
TEST_CASE("block_all_reduce with max_reducer: every block size and input pattern, alternating storages",
          "[gpu][primitives][block]") {
  check_all(primitive::block, reducer_kind::max, block_shapes, all_patterns);
}
TEST_CASE(
    "block_all_reduce with online_softmax_reducer: every block size and input pattern, alternating storages",
    "[gpu][primitives][block]") {
  check_all(primitive::block, reducer_kind::online_softmax, block_shapes, all_patterns);
}
TEST_CASE("block_all_reduce with welford_reducer: every block size and input pattern, alternating storages",
          "[gpu][primitives][block]") {
  check_all(primitive::block, reducer_kind::welford, block_shapes, all_patterns);
}

// --- cluster_all_reduce (sm_90): 17 clusters of 2, 4, 8, 16 CTAs of 128 threads, 9 row steps (the
//     push exchange's 4 slot sets each reused, barrier phases flipped), every operator, every input pattern; MaxClusterSize == the cluster size, and
//     MaxClusterSize 16 launched with clusters of 1 (no clusters: any device), 2, 4 and 8 ---------

TEST_CASE("cluster_all_reduce with sum_reducer: every cluster size and input pattern, 9 steps",
          "[gpu][primitives][cluster]") {
  check_all(primitive::cluster, reducer_kind::sum, cluster_shapes, all_patterns);
}
TEST_CASE("cluster_all_reduce with max_reducer: every cluster size and input pattern, 9 steps",
          "[gpu][primitives][cluster]") {
  check_all(primitive::cluster, reducer_kind::max, cluster_shapes, all_patterns);
}
TEST_CASE(
    "cluster_all_reduce with online_softmax_reducer: every cluster size and input pattern, 9 steps",
    "[gpu][primitives][cluster]") {
  check_all(primitive::cluster, reducer_kind::online_softmax, cluster_shapes, all_patterns);
}
TEST_CASE("cluster_all_reduce with welford_reducer: every cluster size and input pattern, 9 steps",
          "[gpu][primitives][cluster]") {
  check_all(primitive::cluster, reducer_kind::welford, cluster_shapes, all_patterns);
}

// --- the compute-sanitizer subset: one size per primitive, every operator ------------------------

TEST_CASE("warp_all_reduce, sanitizer subset: groups of 8, every operator",
          "[gpu][primitives][warp][sanitize]") {
  const std::vector<shape_size> sizes = {{8, 8}};
  for (reducer_kind kind : all_reducers) check_all(primitive::warp, kind, sizes, sanitize_patterns);
}
TEST_CASE("block_all_reduce, sanitizer subset: 96 threads (3 warps), alternating storages, every operator",
          "[gpu][primitives][block][sanitize]") {
  const std::vector<shape_size> sizes = {{96, 96}};
  for (reducer_kind kind : all_reducers) check_all(primitive::block, kind, sizes, sanitize_patterns);
}
TEST_CASE(
    "cluster_all_reduce, sanitizer subset: cluster_all_reduce<16> in clusters of 4, 9 steps, every operator",
    "[gpu][primitives][cluster][sanitize]") {
  const std::vector<shape_size> sizes = {{4, 16}};  // MaxClusterSize 16, as the kernels use
  for (reducer_kind kind : all_reducers) check_all(primitive::cluster, kind, sizes, sanitize_patterns);
}
