// tests/support/inputs.hpp — seeded random inputs and the adversarial rows of DESIGN.md.
//
// Seeds. Every run has one base seed, test_seed(): the value of the environment variable
// ROWWISE_TEST_SEED when set (decimal or 0x-hex; any other text is hashed, so it still reproduces),
// else a fresh one from std::random_device. Each seeded_rng derives its own engine seed from the
// base seed and a salt (a number or a name, e.g. the test case's), so a case draws the same inputs
// whatever other cases ran before it. Nothing here prints: tests INFO() rng.describe() (or
// test_seed()) so that a failure shows how to reproduce it:  ROWWISE_TEST_SEED=<base> ./tests
//
// Values. Generated rows are doubles; a test that feeds a kernel of type T must quantize<T>() them
// first so that the fp64 reference sees exactly the values the GPU sees (adversarial_row<T> does it
// itself). The random draws use their own Box-Muller/uniform code, not <random>'s distributions,
// whose output differs between standard libraries: a seed means the same inputs everywhere.
#pragma once

#include "support/reference.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>

namespace rowwise_test {

namespace detail {

/// splitmix64 finaliser: a bijective 64-bit mix, so distinct salts give distinct engine seeds.
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// FNV-1a of a string: a salt from a name.
inline uint64_t hash_name(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

inline uint64_t base_seed_from_environment() {
  if (const char* env = std::getenv("ROWWISE_TEST_SEED"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 0);
    if (end != nullptr && *end == '\0') return static_cast<uint64_t>(v);
    return hash_name(env);  // not a number: still a reproducible seed
  }
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}

}  // namespace detail

/// The run's base seed (ROWWISE_TEST_SEED, else std::random_device), fixed on first use.
inline uint64_t test_seed() {
  static const uint64_t seed = detail::base_seed_from_environment();
  return seed;
}

/// A std::mt19937_64 seeded from test_seed() and a salt. Prints nothing.
struct seeded_rng {
  uint64_t base_seed;  // test_seed() at construction: ROWWISE_TEST_SEED=<base_seed> reproduces it
  uint64_t salt;       // what distinguishes this generator from others of the same run
  uint64_t seed;       // the engine's seed = mix(base_seed, salt)
  std::mt19937_64 engine;

  seeded_rng() : seeded_rng(uint64_t{0}) {}
  explicit seeded_rng(uint64_t salt_) : seeded_rng(test_seed(), salt_) {}
  explicit seeded_rng(std::string_view name) : seeded_rng(test_seed(), detail::hash_name(name)) {}
  explicit seeded_rng(const char* name) : seeded_rng(std::string_view(name)) {}
  /// Fully explicit: the same (base, salt) gives the same stream whatever ROWWISE_TEST_SEED says.
  seeded_rng(uint64_t base, uint64_t salt_)
      : base_seed(base), salt(salt_), seed(detail::mix64(base ^ detail::mix64(salt_))), engine(seed) {}

  /// "ROWWISE_TEST_SEED=0x... (salt 0x..., engine seed 0x...)" for INFO().
  std::string describe() const {
    char buf[128];
    std::snprintf(buf, sizeof buf, "ROWWISE_TEST_SEED=0x%016llx (salt 0x%016llx, engine seed 0x%016llx)",
                  static_cast<unsigned long long>(base_seed), static_cast<unsigned long long>(salt),
                  static_cast<unsigned long long>(seed));
    return buf;
  }

  uint64_t next_u64() { return engine(); }
  /// Uniform in [0, 1), 53 random bits.
  double uniform01() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  /// Uniform integer in [0, n) (n >= 1); the tiny modulo bias is irrelevant here.
  int64_t index(int64_t n) { return static_cast<int64_t>(engine() % static_cast<uint64_t>(n)); }
  /// Uniform integer in [lo, hi] (inclusive).
  int64_t uniform_int(int64_t lo, int64_t hi) { return lo + index(hi - lo + 1); }
  /// Normal(mean, std) by Box-Muller (one value per call; the second is discarded for simplicity).
  double normal(double mean = 0.0, double std = 1.0) {
    const double u1 = 1.0 - uniform01();  // (0, 1]: log is finite
    const double u2 = uniform01();
    const double two_pi = 6.283185307179586476925286766559;
    return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
  }
  /// +1 or -1 with equal probability.
  double sign() { return (engine() >> 63) ? -1.0 : 1.0; }
};

// --- filling matrices ----------------------------------------------------------------------------

/// Row-major rows x cols, each element Normal(mean, std).
inline void fill_normal(double* m, int64_t rows, int64_t cols, double mean, double std, seeded_rng& rng) {
  for (int64_t i = 0; i < rows * cols; ++i) m[i] = rng.normal(mean, std);
}

/// Row-major rows x cols, each element uniform in [lo, hi).
inline void fill_uniform(double* m, int64_t rows, int64_t cols, double lo, double hi, seeded_rng& rng) {
  for (int64_t i = 0; i < rows * cols; ++i) m[i] = rng.uniform(lo, hi);
}

/// Round each value through T (via float, to nearest even): afterwards every value is exactly
/// representable in T, so from_double<T> is exact and the reference sees what the GPU sees.
/// NaN and +-inf are kept; values beyond T's range become +-inf (fp16 above 65504).
template <class T>
void quantize(double* v, size_t n) {
  for (size_t i = 0; i < n; ++i) v[i] = round_through<T>(v[i]);
}

// --- adversarial rows ---------------------------------------------------------------------------

enum class adversarial_kind {
  big_logit,             // N(0,1) with one logit of 120 at a random position
  wide_range,            // uniform [-100, 100], with -100 and +100 both present (span 200)
  all_neg_inf,           // every element -inf
  one_nan,               // N(0,1) with one NaN at a random position
  one_pos_inf,           // N(0,1) with one +inf at a random position
  large_mean_small_std,  // N(1e4, 1e-2) (LayerNorm's cancellation case)
  subnormal,             // tiny values of random sign: subnormal in T (and smallest normals for fp16)
  constant,              // every element the same random value in [-3, 3)
};

inline const std::array<adversarial_kind, 8>& all_adversarial_kinds() {
  static const std::array<adversarial_kind, 8> kinds = {
      adversarial_kind::big_logit,   adversarial_kind::wide_range,           adversarial_kind::all_neg_inf,
      adversarial_kind::one_nan,     adversarial_kind::one_pos_inf,          adversarial_kind::large_mean_small_std,
      adversarial_kind::subnormal,   adversarial_kind::constant};
  return kinds;
}

inline const char* to_string(adversarial_kind k) {
  switch (k) {
    case adversarial_kind::big_logit: return "big_logit";
    case adversarial_kind::wide_range: return "wide_range";
    case adversarial_kind::all_neg_inf: return "all_neg_inf";
    case adversarial_kind::one_nan: return "one_nan";
    case adversarial_kind::one_pos_inf: return "one_pos_inf";
    case adversarial_kind::large_mean_small_std: return "large_mean_small_std";
    case adversarial_kind::subnormal: return "subnormal";
    case adversarial_kind::constant: return "constant";
  }
  return "?";
}

/// True for the kinds whose rows hold a NaN or +-inf (norm tests may want to skip or special-case
/// them: DESIGN.md defines non-finite semantics for the softmax family only).
inline bool has_non_finite(adversarial_kind k) {
  return k == adversarial_kind::all_neg_inf || k == adversarial_kind::one_nan || k == adversarial_kind::one_pos_inf;
}

/// Fill `row` (cols >= 1 doubles) with an adversarial row of the given kind for storage type T
/// (float, __half or __nv_bfloat16; default float), already quantize<T>()d.
///   subnormal: fp32 and bf16 (8-bit exponent, min normal 1.18e-38): magnitudes log-uniform in
///   [1e-40, 1.1e-38] — fp32 subnormals; in bf16 multiples of its subnormal step 9.2e-41.
///   fp16 (min normal 2^-14 = 6.1e-5, subnormal step 2^-24): magnitudes log-uniform in
///   [2^-24, 2^-13], i.e. subnormals and the smallest normals.
///   large_mean_small_std in fp16/bf16 collapses to a few levels around 1e4 (ulp 8 resp. 64):
///   the reference sees the quantised row, which is the point.
template <class T = float>
void adversarial_row(adversarial_kind kind, int64_t cols, seeded_rng& rng, double* row) {
  switch (kind) {
    case adversarial_kind::big_logit:
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.normal();
      row[rng.index(cols)] = 120.0;
      break;
    case adversarial_kind::wide_range:
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.uniform(-100.0, 100.0);
      if (cols >= 2) {
        const int64_t lo = rng.index(cols);
        int64_t hi = rng.index(cols - 1);
        if (hi >= lo) ++hi;  // a different position
        row[lo] = -100.0;
        row[hi] = 100.0;
      }
      break;
    case adversarial_kind::all_neg_inf:
      for (int64_t i = 0; i < cols; ++i) row[i] = -std::numeric_limits<double>::infinity();
      break;
    case adversarial_kind::one_nan:
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.normal();
      row[rng.index(cols)] = std::numeric_limits<double>::quiet_NaN();
      break;
    case adversarial_kind::one_pos_inf:
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.normal();
      row[rng.index(cols)] = std::numeric_limits<double>::infinity();
      break;
    case adversarial_kind::large_mean_small_std:
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.normal(1e4, 1e-2);
      break;
    case adversarial_kind::subnormal: {
      const bool narrow = std::is_same_v<T, __half>;
      const double lg_lo = narrow ? std::log(0x1.0p-24) : std::log(1e-40);
      const double lg_hi = narrow ? std::log(0x1.0p-13) : std::log(1.1e-38);
      for (int64_t i = 0; i < cols; ++i) row[i] = rng.sign() * std::exp(rng.uniform(lg_lo, lg_hi));
      break;
    }
    case adversarial_kind::constant: {
      const double v = rng.uniform(-3.0, 3.0);
      for (int64_t i = 0; i < cols; ++i) row[i] = v;
      break;
    }
  }
  quantize<T>(row, static_cast<size_t>(cols));
}

}  // namespace rowwise_test
