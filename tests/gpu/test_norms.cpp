// tests/gpu/test_norms.cpp — rowwise::layer_norm, rms_norm and fused_add_rms_norm on the GPU against
// the fp64 references (tests/support/reference.hpp), per DESIGN.md "Correctness method":
// seeded fresh inputs quantized through T (and weights through W), poisoned outputs, EVERY element
// checked, every byte outside the rows compared with what it held before, inputs of out-of-place
// calls unchanged. LayerNorm's optional fp32 mean / rstd outputs are checked too.
//
// fused_add_rms_norm is checked three ways: the residual it writes must be BIT-EXACT
// round_T(fp32(x) + fp32(residual)) (deterministic IEEE arithmetic on both sides); x against the
// fp64 RMSNorm of that stored residual; and against the two-call composition
// (residual += x on the host through T, then rowwise::rms_norm on the GPU) — see
// check_composition below for what is guaranteed there.
//
// Tags: [gpu] all; [sanitize] the quick compute-sanitizer subset; [large] > 2^31 elements;
// [graph] CUDA graph capture.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpu/api_wrappers.hpp"
#include "support/device_matrix.hpp"
#include "support/inputs.hpp"
#include "support/large_matrix.hpp"
#include "support/reference.hpp"
#include "support/tolerance.hpp"

namespace {

using namespace rowwise_test;
using api::wtype;

enum class norm_op { layer_norm, rms_norm, fused_add_rms_norm };
constexpr norm_op all_norm_ops[] = {norm_op::layer_norm, norm_op::rms_norm, norm_op::fused_add_rms_norm};

const char* to_string(norm_op op) {
  switch (op) {
    case norm_op::layer_norm: return "layer_norm";
    case norm_op::rms_norm: return "rms_norm";
    case norm_op::fused_add_rms_norm: return "fused_add_rms_norm";
  }
  return "?";
}

float default_eps(norm_op op) { return op == norm_op::layer_norm ? 1e-5f : 1e-6f; }

/// What the dispatch plan sees of each op.
op_traits traits_of(norm_op op) {
  switch (op) {
    case norm_op::layer_norm: return weighted_op;
    case norm_op::rms_norm: return rms_op;
    case norm_op::fused_add_rms_norm: return fused_op;
  }
  return plain_op;
}

// --- inputs --------------------------------------------------------------------------------------

enum class norm_input {
  random,      // per row: mean in [-2, 2), half-width in [0.25, 3): |mean| / std stays below ~14
  large_mean,  // N(1e4, 1e-2) (LayerNorm's cancellation case)
  constant,    // every element one value (LayerNorm: var = 0, rstd = 1/sqrt(eps))
  subnormal,   // subnormal magnitudes of T (fp16: subnormals and the smallest normals)
  mixed,       // row by row: random, 120 among N(0,1), uniform +-100, large mean, subnormal, constant
  far_lanes,   // random, plus 1e3 at columns c % 512 < 4 and c % 1024 < 8: the packs lane 0 of a
               // block's first warp holds (threads t, t + T, ... for T = 128 / 256, packs of 4 / 8)
  non_finite,  // random, plus row by row: +inf at a random column, -inf at one, NaN at one, +inf
               // at column 5 (not the first value of its thread's pack, nor lane 0's), none (a
               // finite row beside them)
};

const char* to_string(norm_input k) {
  switch (k) {
    case norm_input::random: return "random";
    case norm_input::large_mean: return "mean 1e4, std 1e-2";
    case norm_input::constant: return "constant rows";
    case norm_input::subnormal: return "subnormal";
    case norm_input::mixed: return "mixed adversarial rows";
    case norm_input::far_lanes: return "far-out values at lane 0's packs";
    case norm_input::non_finite: return "rows holding +inf, -inf or NaN";
  }
  return "?";
}

void random_row(int64_t cols, seeded_rng& rng, double* row) {
  const double mean = rng.uniform(-2.0, 2.0);
  const double half = rng.uniform(0.25, 3.0);
  for (int64_t c = 0; c < cols; ++c) row[c] = mean + rng.uniform(-half, half);
}

std::vector<double> make_inputs(dtype t, int64_t rows, int64_t cols, norm_input kind, seeded_rng& rng) {
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    double* row = x.data() + r * cols;
    adversarial_kind adv = adversarial_kind::constant;
    switch (kind) {
      case norm_input::random: random_row(cols, rng, row); continue;
      case norm_input::far_lanes:
        random_row(cols, rng, row);
        for (int64_t c = 0; c < cols; ++c)
          if (c % 512 < 4 || c % 1024 < 8) row[c] += 1e3;
        continue;
      case norm_input::non_finite: {
        random_row(cols, rng, row);
        const double inf = std::numeric_limits<double>::infinity();
        const double values[] = {inf, -inf, std::numeric_limits<double>::quiet_NaN(), inf};
        if (r % 5 < 4) row[r % 5 == 3 ? std::min<int64_t>(5, cols - 1) : rng.index(cols)] = values[r % 5];
        continue;
      }
      case norm_input::large_mean: adv = adversarial_kind::large_mean_small_std; break;
      case norm_input::constant: adv = adversarial_kind::constant; break;
      case norm_input::subnormal: adv = adversarial_kind::subnormal; break;
      case norm_input::mixed: {
        static const adversarial_kind finite_kinds[] = {
            adversarial_kind::big_logit, adversarial_kind::wide_range, adversarial_kind::large_mean_small_std,
            adversarial_kind::subnormal, adversarial_kind::constant};
        const int64_t k = r % 6;
        if (k == 5) {
          random_row(cols, rng, row);
          continue;
        }
        adv = finite_kinds[k];
        break;
      }
    }
    visit_dtype(t, [&](auto tag) { adversarial_row<typename decltype(tag)::type>(adv, cols, rng, row); });
  }
  quantize(t, x.data(), x.size());
  return x;
}

/// Per-column weights, quantized through their type: gamma / weight in [-2, 2), beta in [-1, 1).
std::vector<double> make_weights(dtype wt, int64_t cols, double half, seeded_rng& rng) {
  std::vector<double> w(static_cast<size_t>(cols));
  for (double& v : w) v = rng.uniform(-half, half);
  quantize(wt, w.data(), w.size());
  return w;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// --- checking ------------------------------------------------------------------------------------

/// check_close row by row with a per-row tolerance (LayerNorm's depends on the row's |mean| * rstd,
/// so one ill-conditioned row must not loosen the others). Returns the first failure, or a pass
/// summarising all rows.
template <class TolFn>
check_result check_rows(const std::vector<double>& ref, const std::vector<double>& got, int64_t rows, int64_t cols,
                        TolFn tol_for_row) {
  check_result all;
  for (int64_t r = 0; r < rows; ++r) {
    check_result one = check_close(ref.data() + r * cols, got.data() + r * cols, 1, cols, tol_for_row(r));
    all.checked += one.checked;
    all.failures += one.failures;
    all.worst_ratio = std::max(all.worst_ratio, one.worst_ratio);
    if (!one.ok && all.ok) {
      all.ok = false;
      all.row = r;
      all.col = one.col;
      all.got = one.got;
      all.ref = one.ref;
      all.message = "row " + std::to_string(r) + " (" + one.message + ")";
    }
  }
  return all;
}

/// The fp32 statistics LayerNorm returns (rows of finite values): mean within 2^-24 * (8 |mean| + 4 std sqrt(cols)) (the
/// rounding of an fp32 mean plus the accumulation of deviations), rstd within the fp32 LayerNorm
/// rtol grown by the row's conditioning (layer_norm_row_tolerance: the variance around an fp32
/// mean that is off by e is off by ~e^2).
std::string check_stats(const std::vector<float>& mean_got, const std::vector<float>& rstd_got,
                        const std::vector<double>& mean_ref, const std::vector<double>& rstd_ref, int64_t cols,
                        double eps) {
  const double u = std::ldexp(1.0, -24);
  for (size_t r = 0; r < mean_ref.size(); ++r) {
    if (!std::isfinite(mean_ref[r]) || !std::isfinite(rstd_ref[r])) {
      // A row holding an inf or a NaN: its statistics are not numbers to compare, but they must
      // not look like numbers either: rstd NaN (as every output), the mean not finite.
      // (Written: the poison, 0xFFFFFFFF, is a NaN too, unlike the GPU's canonical NaN.)
      const auto poison = [](float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        return bits == 0xFFFFFFFFu;
      };
      if (std::isnan(rstd_got[r]) && !std::isfinite(mean_got[r]) && !poison(rstd_got[r]) && !poison(mean_got[r]))
        continue;
      char buf[200];
      std::snprintf(buf, sizeof buf, "row %zu (holds an inf or a NaN): mean got %.9g, rstd got %.9g (want NaN, written)", r,
                    static_cast<double>(mean_got[r]), static_cast<double>(rstd_got[r]));
      return buf;
    }
    const double sigma = std::sqrt(std::max(0.0, 1.0 / (rstd_ref[r] * rstd_ref[r]) - eps));
    const double mean_allowed = u * (8.0 * std::fabs(mean_ref[r]) + 4.0 * sigma * std::sqrt(static_cast<double>(cols))) + 1e-37;
    const tolerance t = layer_norm_row_tolerance(default_tolerance(op_kind::layer_norm, 23, cols), &mean_ref[r],
                                                 &rstd_ref[r], 1);
    const double rstd_allowed = t.rtol * rstd_ref[r];
    const double dm = std::fabs(static_cast<double>(mean_got[r]) - mean_ref[r]);
    const double dr = std::fabs(static_cast<double>(rstd_got[r]) - rstd_ref[r]);
    if (!(dm <= mean_allowed) || !(dr <= rstd_allowed)) {
      char buf[320];
      std::snprintf(buf, sizeof buf, "row %zu: mean got %.9g ref %.17g (allowed %.3g), rstd got %.9g ref %.17g (allowed %.3g)",
                    r, static_cast<double>(mean_got[r]), mean_ref[r], mean_allowed, static_cast<double>(rstd_got[r]),
                    rstd_ref[r], rstd_allowed);
      return buf;
    }
  }
  return "";
}

/// rows floats on the device with a poisoned tail, for LayerNorm's mean / rstd.
struct stats_buffer {
  static constexpr int64_t tail = 8;
  int64_t rows;
  device_buffer buf;
  explicit stats_buffer(int64_t r) : rows(r), buf(static_cast<size_t>((r + tail) * 4)) { buf.fill(poison_byte); }
  float* data() const { return reinterpret_cast<float*>(buf.get()); }
  std::vector<float> values() const {
    std::vector<float> v(static_cast<size_t>(rows));
    buf.download(v.data(), v.size() * 4);
    return v;
  }
  bool tail_untouched() const {
    std::vector<unsigned char> t(static_cast<size_t>(tail * 4));
    buf.download(t.data(), t.size(), static_cast<size_t>(rows * 4));
    return std::all_of(t.begin(), t.end(), [](unsigned char b) { return b == poison_byte; });
  }
  bool all_untouched() const {
    std::vector<unsigned char> t(buf.size());
    buf.download(t.data(), t.size());
    return std::all_of(t.begin(), t.end(), [](unsigned char b) { return b == poison_byte; });
  }
};

// --- one call, fully checked ---------------------------------------------------------------------

struct norm_case {
  norm_op op = norm_op::rms_norm;
  dtype t = dtype::f32;
  wtype w = wtype::same;
  int64_t rows = 1;
  int64_t cols = 1;
  // layer_norm / rms_norm: in and out. fused_add_rms_norm: in = x, out = residual (in_place ignored).
  call_layout layout = contiguous();
  bool weight = true;  // layer_norm: gamma; rms_norm / fused: weight
  bool beta = true;    // layer_norm only
  bool stats = true;   // layer_norm only: mean / rstd outputs
  float eps = -1.0f;   // < 0: default_eps(op)
  norm_input input = norm_input::random;
  int64_t weight_offset = 0;  // gamma / beta / weight start this many elements into their buffer
  cudaStream_t stream = nullptr;
};

/// A case of `op` over rows x cols of t on `stream`; every other field at its default.
norm_case case_of(norm_op op, dtype t, int64_t rows, int64_t cols, cudaStream_t stream) {
  norm_case c;
  c.op = op;
  c.t = t;
  c.rows = rows;
  c.cols = cols;
  c.stream = stream;
  return c;
}

std::string describe_case(const norm_case& c) {
  std::string s = std::string(to_string(c.op)) + " " + shape_text(c.t, c.rows, c.cols) + " " + api::to_string(c.w) +
                  ", inputs: " + to_string(c.input) + (c.weight ? ", weight" : ", no weight") +
                  (c.weight_offset != 0 ? ", weights offset by " + std::to_string(c.weight_offset) : std::string());
  if (c.op == norm_op::layer_norm) s += std::string(c.beta ? ", beta" : ", no beta") + (c.stats ? ", mean/rstd" : "");
  return s;
}

tolerance norm_tolerance(norm_op op, dtype t, int64_t cols) {
  return default_tolerance(op == norm_op::layer_norm ? op_kind::layer_norm
                                                     : (op == norm_op::rms_norm ? op_kind::rms_norm
                                                                                : op_kind::fused_add_rms_norm),
                           mantissa_bits(t), cols);
}

/// The first element of `a` whose bytes differ from `b`'s, or -1: "bit-identical" up to NaN
/// payloads, which no op promises (a NaN sum is whichever NaN the hardware makes: the GPU's
/// canonical 0x7fffffff against the host's 0xfff8..., so both NaN counts as equal).
int64_t first_bit_difference(dtype t, const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  const size_t eb = elem_bytes(t), n = std::min(a.size(), b.size()) / eb;
  for (size_t e = 0; e < n; ++e) {
    if (std::memcmp(a.data() + e * eb, b.data() + e * eb, eb) == 0) continue;
    double x = 0.0, y = 0.0;
    decode(t, a.data() + e * eb, 1, &x);
    decode(t, b.data() + e * eb, 1, &y);
    if (std::isnan(x) && std::isnan(y)) continue;
    return static_cast<int64_t>(e);
  }
  return a.size() == b.size() ? -1 : static_cast<int64_t>(n);
}

/// What is guaranteed between fused_add_rms_norm and `residual += x; rms_norm(residual)`:
/// both normalise the same T values (the residual as stored) with the same op arithmetic, and the
/// plan depends on (rows, cols, sizeof T, pack width) and on what the op declares (rms_norm and
/// the fused op both stage long rows, but the fused op reads two matrices: its segments, hence
/// its clusters, may differ). When both calls get the same plan (same kernel, pack, cluster and segments — the same reduction tree), the outputs are
/// bit-identical; that is what is required here. Were the plans to differ, only the summation
/// order would: then fp16/bf16 outputs may differ by one ulp of T (a value near a rounding
/// midpoint), and fp32 ones by the accumulation error, i.e. the rms_norm tolerance.
void check_composition(const norm_case& c, const device_matrix& fused_x, const device_matrix& two_call_out,
                       const dsp::plan& fused_plan, const dsp::plan& two_call_plan, const std::vector<double>& fused_got,
                       const std::vector<double>& two_call_got) {
  INFO("two-call composition: " << describe(two_call_plan));
  if (same_kernel(fused_plan, two_call_plan)) {
    const std::vector<unsigned char> a = fused_x.row_bytes(), b = two_call_out.row_bytes();
    const int64_t e = first_bit_difference(c.t, a, b);
    if (e >= 0) {
      INFO("first difference at row " << e / c.cols << ", col " << e % c.cols << ": fused "
                                      << fused_got[static_cast<size_t>(e)] << ", two calls "
                                      << two_call_got[static_cast<size_t>(e)]);
      CHECK(e < 0);
    }
  } else if (c.t != dtype::f32) {
    int64_t worst = 0;
    for (size_t i = 0; i < fused_got.size(); ++i) worst = std::max(worst, ulp_distance(c.t, fused_got[i], two_call_got[i]));
    INFO("plans differ; largest difference " << worst << " ulp of " << to_string(c.t));
    CHECK(worst <= 1);
  } else {
    const check_result r = check_close(two_call_got.data(), fused_got.data(), c.rows, c.cols,
                                       norm_tolerance(norm_op::rms_norm, c.t, c.cols));
    INFO(describe(r));
    CHECK(r.ok);
  }
}

void run_case(const norm_case& c, seeded_rng& rng) {
  const call_layout& L = c.layout;
  INFO(describe_case(c) << "; " << describe(L));
  INFO(rng.describe());
  const float eps = c.eps >= 0.0f ? c.eps : default_eps(c.op);
  INFO("eps " << eps);
  const dtype wt = api::weight_dtype(c.t, c.w);
  const auto dev = device_limits_now();

  const std::vector<double> x = make_inputs(c.t, c.rows, c.cols, c.input, rng);
  const std::vector<double> gamma = c.weight ? make_weights(wt, c.cols, 2.0, rng) : std::vector<double>{};
  const std::vector<double> beta = (c.op == norm_op::layer_norm && c.beta) ? make_weights(wt, c.cols, 1.0, rng)
                                                                            : std::vector<double>{};
  const device_buffer gamma_d = c.weight ? upload_vector(wt, gamma, c.weight_offset) : device_buffer{};
  const device_buffer beta_d = beta.empty() ? device_buffer{} : upload_vector(wt, beta, c.weight_offset);
  const auto at_offset = [&](const device_buffer& b) -> const void* {
    return static_cast<const unsigned char*>(b.get()) + c.weight_offset * elem_bytes(wt);
  };
  const api::vec gamma_v{c.weight ? at_offset(gamma_d) : nullptr, c.weight ? c.cols : 0};
  const api::vec beta_v{beta.empty() ? nullptr : at_offset(beta_d), beta.empty() ? 0 : c.cols};
  const tolerance base = norm_tolerance(c.op, c.t, c.cols);

  if (c.op != norm_op::fused_add_rms_norm) {
    device_matrix in(c.t, c.rows, c.cols, c.cols + L.in_pad, L.in_offset);
    in.upload(x);
    std::unique_ptr<device_matrix> out_own;
    if (!L.in_place) out_own = std::make_unique<device_matrix>(c.t, c.rows, c.cols, c.cols + L.out_pad, L.out_offset);
    device_matrix& out = L.in_place ? in : *out_own;
    const dsp::plan pl =
        plan_of(c.t, c.rows, c.cols, {{in.data(), in.stride()}, {out.data(), out.stride()}}, dev, traits_of(c.op));
    INFO(describe(pl));
    CHECK(pl.pack_elems == (L.narrow ? 1 : widest_pack(c.t)));
    CHECK(same_kernel(pl, plan_of(c.t, c.rows, c.cols, L, dev, traits_of(c.op))));

    const bool stats = c.op == norm_op::layer_norm && c.stats;
    stats_buffer mean_d(stats ? c.rows : 0), rstd_d(stats ? c.rows : 0);
    const rowwise::status st =
        c.op == norm_op::layer_norm
            ? api::run_layer_norm(c.t, c.w, api::as_mat(in), api::as_mat(out), gamma_v, beta_v, eps, c.stream,
                                  stats ? mean_d.data() : nullptr, stats ? rstd_d.data() : nullptr)
            : api::run_rms_norm(c.t, c.w, api::as_mat(in), api::as_mat(out), gamma_v, eps, c.stream);
    INFO("status: " << st.message());
    REQUIRE(st.ok());
    RW_CUDA(cudaStreamSynchronize(c.stream));
    RW_CUDA(cudaGetLastError());

    const std::vector<double> got = out.download();
    std::vector<double> ref(x.size());
    std::vector<double> means(static_cast<size_t>(c.rows)), rstds(static_cast<size_t>(c.rows));
    for (int64_t r = 0; r < c.rows; ++r) {
      const double* xr = x.data() + r * c.cols;
      double* yr = ref.data() + r * c.cols;
      if (c.op == norm_op::layer_norm)
        layer_norm_ref(xr, c.cols, c.weight ? gamma.data() : nullptr, beta.empty() ? nullptr : beta.data(), eps, yr,
                       &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)]);
      else
        rms_norm_ref(xr, c.cols, c.weight ? gamma.data() : nullptr, eps, yr);
    }
    const double gmax = c.weight ? max_abs(gamma) : 1.0;
    const check_result res = check_rows(ref, got, c.rows, c.cols, [&](int64_t r) {
      return c.op == norm_op::layer_norm
                 ? layer_norm_row_tolerance(base, &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)], 1, gmax)
                 : base;
    });
    INFO(rowwise_test::describe(res));
    CHECK(res.ok);
    const std::string gaps = out.untouched_report();
    INFO("output bytes outside the rows, and unwritten elements: " << (gaps.empty() ? "none" : gaps));
    CHECK(gaps.empty());
    if (!L.in_place) {
      (void)in.download();
      const std::string changed = in.unchanged_report();
      INFO("input: " << (changed.empty() ? "unchanged" : changed));
      CHECK(changed.empty());
    }
    if (stats) {
      const std::string bad = check_stats(mean_d.values(), rstd_d.values(), means, rstds, c.cols, eps);
      INFO("mean/rstd: " << (bad.empty() ? "within tolerance" : bad));
      CHECK(bad.empty());
      CHECK(mean_d.tail_untouched());
      CHECK(rstd_d.tail_untouched());
    }
    return;
  }

  // fused_add_rms_norm: x (layout "in"), residual (layout "out").
  const std::vector<double> res_in = make_inputs(c.t, c.rows, c.cols, norm_input::random, rng);
  device_matrix xm(c.t, c.rows, c.cols, c.cols + L.in_pad, L.in_offset);
  device_matrix rm(c.t, c.rows, c.cols, c.cols + L.out_pad, L.out_offset);
  xm.upload(x);
  rm.upload(res_in);
  const dsp::plan fused_plan =
      plan_of(c.t, c.rows, c.cols, {{xm.data(), xm.stride()}, {rm.data(), rm.stride()}}, dev, fused_op);
  INFO(describe(fused_plan));
  CHECK(fused_plan.pack_elems == (L.narrow ? 1 : widest_pack(c.t)));
  const rowwise::status st = api::run_fused_add_rms_norm(c.t, c.w, api::as_mat(xm), api::as_mat(rm), gamma_v, eps, c.stream);
  INFO("status: " << st.message());
  REQUIRE(st.ok());
  RW_CUDA(cudaStreamSynchronize(c.stream));
  RW_CUDA(cudaGetLastError());
  const std::vector<double> got_x = xm.download();
  (void)rm.download();

  std::vector<double> ref_x(x.size()), ref_res(x.size());
  for (int64_t r = 0; r < c.rows; ++r) {
    visit_dtype(c.t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      fused_add_rms_norm_ref(x.data() + r * c.cols, res_in.data() + r * c.cols, c.cols,
                             c.weight ? gamma.data() : nullptr, eps, round_through<T>, ref_x.data() + r * c.cols,
                             ref_res.data() + r * c.cols);
    });
  }
  // The residual: bit-exact (any NaN where the reference is NaN: payloads are not promised).
  {
    std::vector<unsigned char> want(static_cast<size_t>(c.rows * c.cols * elem_bytes(c.t)));
    encode(c.t, ref_res.data(), ref_res.size(), want.data());
    const std::vector<unsigned char> have = rm.row_bytes();
    const int64_t e = first_bit_difference(c.t, want, have);
    if (e >= 0) {
      double g = 0.0;
      decode(c.t, have.data() + e * elem_bytes(c.t), 1, &g);
      INFO("residual is not round_T(x + residual) at row " << e / c.cols << ", col " << e % c.cols << ": got " << g
                                                          << ", want " << ref_res[static_cast<size_t>(e)]);
      CHECK(e < 0);
    }
  }
  const check_result res = check_close(ref_x.data(), got_x.data(), c.rows, c.cols, base);
  INFO("x: " << rowwise_test::describe(res));
  CHECK(res.ok);
  const std::string gx = xm.untouched_report(), gr = rm.untouched_report();
  INFO("bytes outside the rows: x " << (gx.empty() ? "untouched" : gx) << "; residual "
                                     << (gr.empty() ? "untouched" : gr));
  CHECK(gx.empty());
  CHECK(gr.empty());

  // The two-call composition on the GPU: rms_norm(residual as stored) with the same layouts.
  device_matrix res2(c.t, c.rows, c.cols, c.cols + L.out_pad, L.out_offset);
  device_matrix out2(c.t, c.rows, c.cols, c.cols + L.in_pad, L.in_offset);
  res2.upload(ref_res);
  const rowwise::status st2 = api::run_rms_norm(c.t, c.w, api::as_mat(res2), api::as_mat(out2), gamma_v, eps, c.stream);
  INFO("rms_norm status: " << st2.message());
  REQUIRE(st2.ok());
  RW_CUDA(cudaStreamSynchronize(c.stream));
  const std::vector<double> got2 = out2.download();
  check_composition(c, xm, out2, fused_plan,
                    plan_of(c.t, c.rows, c.cols, {{res2.data(), res2.stride()}, {out2.data(), out2.stride()}}, dev,
                            rms_op),
                    got_x, got2);
}

/// The weight / beta / stats / W combination number k (0..15), for rotating through them.
/// The plan of a call with the weights `c` passes, its matrices placed as c.layout says in fresh
/// (256-byte aligned) allocations (plan_of knows the op, not which weights a call passes;
/// policy.hpp rules with min_weights depend on it).
dsp::plan plan_with_weights(const norm_case& c, const dsp::device_limits& dev) {
  const call_layout& L = c.layout;
  const int64_t eb = elem_bytes(c.t);
  const auto in = reinterpret_cast<const void*>(uintptr_t{0x100000} + static_cast<uintptr_t>(L.in_offset * eb));
  const auto out =
      L.in_place ? in : reinterpret_cast<const void*>(uintptr_t{0x200000} + static_cast<uintptr_t>(L.out_offset * eb));
  dsp::problem p =
      problem_of(c.t, c.rows, c.cols, {{in, c.cols + L.in_pad}, {out, c.cols + L.out_pad}}, traits_of(c.op));
  p.column_param_count = (c.weight ? 1 : 0) + (c.op == norm_op::layer_norm && c.beta ? 1 : 0);
  p.column_param_bytes = c.w == wtype::f32 ? 4 : static_cast<int>(elem_bytes(c.t));
  return dsp::plan_rows(p, dev);
}

void combo(norm_case& c, int k) {
  c.weight = (k & 1) == 0;
  c.beta = (k & 2) == 0;
  c.stats = (k & 4) == 0;
  c.w = (k & 8) == 0 ? wtype::same : wtype::f32;
}

}  // namespace

// --- regime boundaries ---------------------------------------------------------------------------

TEST_CASE("norms: every regime boundary +-1 of the dispatch plan (layer_norm / rms_norm / fused_add_rms_norm)",
          "[gpu][norms]") {
  seeded_rng rng("norms regime boundaries");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t row_counts[] = {3, 64, dev.sm_count / 2 + 1, 1000};
  constexpr int64_t max_elements = int64_t{3} << 20;
  constexpr int64_t small = int64_t{1} << 17;
  int k = 0;
  for (dtype t : all_dtypes) {
    int ri = 0;
    for (int64_t rows : row_counts) {
      const int n = widest_pack(t);
      const call_layout layouts[] = {contiguous(), offset_both(n - 1), (ri++ % 2) ? offset_in_only() : offset_out_only()};
      for (const call_layout& L : layouts) {
        // Each op at the boundaries of its own plan (rms_norm and the fused op add the staged
        // strategy's); all three ops when the case is small, else one op per width, rotating.
        for (size_t oi = 0; oi < 3; ++oi) {
          const norm_op op = all_norm_ops[oi];
          const std::vector<int64_t> cols_list = regime_boundary_cols(t, rows, L, dev, max_elements, traits_of(op));
          for (size_t i = 0; i < cols_list.size(); ++i) {
            const int64_t cols = cols_list[i];
            const bool all_ops = rows * cols <= small;
            if (!all_ops && (i + static_cast<size_t>(rows)) % 3 != oi) continue;
            norm_case c = case_of(op, t, rows, cols, stream.get());
            c.layout = L;
            combo(c, k++);
            run_case(c, rng);
          }
        }
      }
    }
  }
}

// --- hidden sizes ------------------------------------------------------------------------------------

TEST_CASE("norms: model hidden sizes / primes / tiny rows (default stream)",
          "[gpu][norms]") {
  seeded_rng rng("norms hidden sizes");
  INFO(rng.describe());
  const int64_t hidden[] = {1,    2,    3,    7,     97,    768,   1000,  1009,  1024,
                            4096, 4099, 5120, 8192,  12288, 16384, 32749, 65536, 131072};
  const int64_t row_mix[] = {1, 3, 7, 64, 1000};
  int k = 0;
  for (int64_t cols : hidden) {
    const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(row_mix[k % 5], (int64_t{1} << 20) / cols));
    for (dtype t : all_dtypes)
      for (norm_op op : all_norm_ops) {
        norm_case c = case_of(op, t, rows, cols, /*stream=*/nullptr);  // the default stream
        combo(c, k++);
        run_case(c, rng);
      }
  }
}

TEST_CASE("norms: every optional argument (gamma / beta / weight present or absent; W = T or float; mean and "
          "rstd outputs; eps 0 / 0.5 / 1e-12)",
          "[gpu][norms]") {
  seeded_rng rng("norms optional arguments");
  INFO(rng.describe());
  test_stream stream;
  for (dtype t : all_dtypes)
    for (int64_t cols : {33, 1000, 4099})
      for (norm_op op : all_norm_ops)
        for (int k = 0; k < 16; ++k) {
          if (op != norm_op::layer_norm && (k & 6) != 0) continue;  // beta / stats: LayerNorm only
          norm_case c = case_of(op, t, 37, cols, stream.get());
          combo(c, k);
          run_case(c, rng);
        }
  // eps: 0 is valid (random rows have var > 0), a large one changes the result visibly.
  for (dtype t : all_dtypes)
    for (norm_op op : all_norm_ops)
      for (float eps : {0.0f, 0.5f, 1e-12f}) {
        norm_case c = case_of(op, t, 9, 1000, stream.get());
        c.eps = eps;
        run_case(c, rng);
      }
}

// --- alignment ------------------------------------------------------------------------------------

TEST_CASE("norms: pointer offsets / strided rows / in place", "[gpu][norms]") {
  // fused_add_rms_norm: x takes the "input" placement and residual the "output" one; in place
  // does not apply to it (x and residual are both read and written).
  seeded_rng rng("norms layouts");
  INFO(rng.describe());
  test_stream stream;
  const call_layout layouts[] = {offset_both(1),   offset_in_only(), offset_out_only(), strided(1),
                                 strided(8),       strided(13),      strided_mismatch(), in_place(),
                                 in_place(1),      in_place(3, 13)};
  const int64_t cols_list[] = {1, 5, 33, 257, 1000, 4099, 32749, 131072};
  int k = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : cols_list)
      for (const call_layout& L : layouts)
        for (norm_op op : all_norm_ops) {
          if (op == norm_op::fused_add_rms_norm && L.in_place) continue;
          const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(21, (int64_t{1} << 19) / cols));
          norm_case c = case_of(op, t, rows, cols, stream.get());
          c.layout = L;
          combo(c, k++);
          run_case(c, rng);
        }
}

TEST_CASE("norms: many short rows off a 16-byte boundary (edge packs read whole between rows, in parts at the "
          "matrix's ends)",
          "[gpu][norms]") {
  // As the softmax case of the same name: rms_norm and fused_add_rms_norm read a row's partial
  // head and tail packs whole between rows (row_io.cuh edge_pack_reads; fused: x and residual);
  // layer_norm does not, and is checked here too.
  seeded_rng rng("norms short offset rows");
  INFO(rng.describe());
  test_stream stream;
  const call_layout layouts[] = {offset_both(1),       offset_both(5), offset_strided(1, 8),
                                 offset_strided(3, 1), in_place(1),    in_place(7, 3)};
  const int64_t cols_list[] = {1, 3, 8, 9, 16, 24, 31, 32, 64, 100, 128, 768};
  int k = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : cols_list)
      for (const call_layout& L : layouts)
        for (norm_op op : all_norm_ops) {
          if (op == norm_op::fused_add_rms_norm && L.in_place) continue;
          norm_case c = case_of(op, t, 600, cols, stream.get());
          c.layout = L;
          combo(c, k++);
          run_case(c, rng);
        }
}

TEST_CASE("norms: weights staged in shared memory or read from global memory (one-wave and persistent grids, "
          "weights offset by one element, rows of differing heads, W = T or float)",
          "[gpu][norms]") {
  // The registers kernel copies the weights of each thread's packs into shared memory when its
  // grid is resident at once (one wave, or a persistent cluster grid) and the packs are whole
  // (by cp.async where the weights are aligned at them, else through registers); rows of another
  // head than the first row's, and threads at a row's edges, read global memory
  // (kernels/column_stage.cuh). Every combination below must give the same results.
  seeded_rng rng("norms column stage");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  // The plan does stage the plain case (so the cases below exercise it), and only that case
  // among these shapes' many-row counterparts.
  {
    dsp::problem p = problem_of(dtype::bf16, 16, 4096, {{nullptr, 4096}, {nullptr, 4096}}, weighted_op);
    p.column_param_count = 2;
    p.column_param_bytes = 2;
    CHECK(dsp::plan_rows(p, dev).dynamic_smem > 0);
    p.rows = 1 << 20;
    CHECK(dsp::plan_rows(p, dev).dynamic_smem == 0);
  }
  const call_layout layouts[] = {contiguous(), strided(13), in_place(1)};
  int k = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : {768, 4096, 4099, 5120, 12288})
      for (int64_t rows : {1, 133})
        for (const call_layout& L : layouts)
          for (int64_t weight_offset : {0, 1})
            for (norm_op op : all_norm_ops) {
              if (op == norm_op::fused_add_rms_norm && L.in_place) continue;
              norm_case c = case_of(op, t, rows, cols, stream.get());
              c.layout = L;
              c.weight_offset = weight_offset;
              combo(c, k++ % 16 & ~1);  // always a weight; beta, stats, W rotate
              run_case(c, rng);
            }
  // Many rows that start at every element of a pack, weights aligned or offset by one, of both
  // types: every pack's weights lie at one offset from the row's packs, read by words (2-byte
  // weights, row_io.cuh: load_column_params_by_words) or by elements, and the head and tail packs
  // element by element (or wrapped: kernels/thread_packs.cuh).
  for (dtype t : all_dtypes)
    for (int64_t h = 1; h < widest_pack(t); ++h)
      for (int64_t weight_offset : {0, 1})
        for (norm_op op : all_norm_ops)
          for (int w_bit : {0, 8}) {
            norm_case c = case_of(op, t, 300, 2000 + 8 * h + weight_offset, stream.get());
            c.layout = offset_both(h);
            c.weight_offset = weight_offset;
            combo(c, (k++ % 8 & ~1) | w_bit);  // always a weight; beta and stats rotate; W = T and float
            run_case(c, rng);
          }
  // Grids of several waves that stage: fp32 rms_norm / fused_add_rms_norm (policy.hpp
  // column_stage_every_wave), each CTA copying through L1; weights offset by one element and rows
  // of differing heads read global memory.
  for (norm_op op : {norm_op::rms_norm, norm_op::fused_add_rms_norm})
    for (int64_t cols : {4096, 12288, 4099})
      for (int64_t weight_offset : {0, 1}) {
        norm_case c = case_of(op, dtype::f32, 20 * dev.sm_count + 3, cols, stream.get());
        c.layout = cols == 4099 ? strided(13) : contiguous();
        c.weight_offset = weight_offset;
        combo(c, k++ % 16 & ~1);
        if (cols == 4096) {
          const dsp::plan pl = plan_with_weights(c, dev);
          INFO(describe(pl));
          CHECK(pl.dynamic_smem > 0);
        }
        run_case(c, rng);
      }
  // Persistent grids: 16-bit rows over a cluster of 2 CTAs in registers, each CTA staging once
  // for all its rows.
  for (dtype t : {dtype::bf16, dtype::f16})
    for (int64_t weight_offset : {0, 1})
      for (norm_op op : all_norm_ops) {
        norm_case c = case_of(op, t, 2 * dev.sm_count + 7, op == norm_op::layer_norm ? 20472 : 20480, stream.get());
        c.weight_offset = weight_offset;
        combo(c, k++ % 16 & ~1);
        const dsp::plan pl = plan_of(t, c.rows, c.cols, c.layout, dev, traits_of(op));
        INFO(describe(pl));
        // layer_norm over 2 x 320 threads x 32 values (20472 columns: 2559 packs), rms_norm and
        // fused_add_rms_norm over 2 x 160 x 64 values (20480: policy.hpp wide_rows_rules).
        CHECK((pl.kind == dsp::strategy::registers && pl.cluster == 2 && pl.persistent));
        run_case(c, rng);
      }
}

TEST_CASE("norms: 0 rows is a successful no-op that touches nothing",
          "[gpu][norms][sanitize]") {
  test_stream stream;
  for (dtype t : all_dtypes)
    for (wtype w : {wtype::same, wtype::f32}) {
      INFO(to_string(t) << " " << api::to_string(w));
      device_matrix a(t, 0, 64, 64, 0, 256), b(t, 0, 64, 64, 0, 256);
      std::vector<unsigned char> junk(a.bytes(), 0x3C);
      RW_CUDA(cudaMemcpy(a.data(), junk.data(), junk.size(), cudaMemcpyHostToDevice));
      const device_buffer wd = upload_vector(api::weight_dtype(t, w), std::vector<double>(64, 1.0));
      const api::vec wv{wd.get(), 64};
      stats_buffer mean_d(0), rstd_d(0);
      const api::mat am{a.data(), 0, 64, 64}, bm{b.data(), 0, 64, 64}, nullm{nullptr, 0, 64, 64};
      CHECK(api::run_layer_norm(t, w, am, bm, wv, wv, 1e-5f, stream.get(), mean_d.data(), rstd_d.data()).ok());
      CHECK(api::run_layer_norm(t, w, nullm, nullm, {}, {}, 1e-5f, stream.get()).ok());
      CHECK(api::run_rms_norm(t, w, am, bm, wv, 1e-6f, stream.get()).ok());
      CHECK(api::run_rms_norm(t, w, nullm, nullm, {}, 1e-6f, stream.get()).ok());
      CHECK(api::run_fused_add_rms_norm(t, w, am, bm, wv, 1e-6f, stream.get()).ok());
      CHECK(api::run_fused_add_rms_norm(t, w, nullm, nullm, {}, 1e-6f, stream.get()).ok());
      stream.sync();
      RW_CUDA(cudaGetLastError());
      (void)b.download();
      CHECK(b.unchanged_report().empty());
      std::vector<unsigned char> a_now(a.bytes());
      RW_CUDA(cudaMemcpy(a_now.data(), a.data(), a_now.size(), cudaMemcpyDeviceToHost));
      CHECK(a_now == junk);
      CHECK(mean_d.all_untouched());
      CHECK(rstd_d.all_untouched());
    }
}

// --- adversarial rows -------------------------------------------------------------------------------

TEST_CASE("layer_norm: rows with mean 1e4 and std 1e-2 (Welford or two-pass; never E[x^2] - E[x]^2)",
          "[gpu][norms]") {
  // Tolerance (tests/support/tolerance.hpp, layer_norm_row_tolerance): an fp32 kernel holds the
  // mean to ~|mean| * 2^-24 at best, a few times that after merging partials; every output moves
  // by that error times rstd * gamma, and the variance around such a mean is off by its square. So
  // with s = 8 * 2^-24 * |mean| * rstd (per row; k = 8, layer_norm_row_tolerance's default):
  // atol += s * max|gamma|, rtol += s^2. For fp32 rows of mean 1e4 and std 1e-2, |mean| * rstd =
  // 1e6 and s = 0.48: the bound is loose, but an
  // E[x^2] - E[x]^2 kernel is off by orders of magnitude more (E[x^2] = 1e8 carries an absolute
  // fp32 error of ~6 against a variance of 1e-4) — checked on the host below, so the test keeps
  // its teeth. In fp16 / bf16 the inputs quantise to a few levels around 1e4 (ulp 8 / 64), so
  // the rows' std is ~O(1) and the bound is tight.
  seeded_rng rng("layer_norm large mean");
  INFO(rng.describe());
  test_stream stream;
  int k = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : {64, 1000, 4099, 40000, 131072}) {
      norm_case c = case_of(norm_op::layer_norm, t, cols <= 4099 ? 16 : 3, cols, stream.get());
      c.input = norm_input::large_mean;
      combo(c, k++);
      run_case(c, rng);
    }

  // The tolerance must still reject E[x^2] - E[x]^2, here simulated in fp32 with pairwise (tree)
  // sums, the most accurate order a GPU reduction could use.
  for (int64_t cols : {1000, 4099, 40000}) {
    INFO("host simulation of E[x^2] - E[x]^2, fp32, cols " << cols);
    const std::vector<double> x = make_inputs(dtype::f32, 1, cols, norm_input::large_mean, rng);
    std::vector<float> s1(x.begin(), x.end()), s2(x.size());
    for (size_t i = 0; i < x.size(); ++i) s2[i] = s1[i] * s1[i];
    for (size_t width = 1; width < s1.size(); width *= 2)
      for (size_t i = 0; i + width < s1.size(); i += 2 * width) {
        s1[i] += s1[i + width];
        s2[i] += s2[i + width];
      }
    const float n = static_cast<float>(cols);
    const float mean = s1[0] / n;
    const float var = std::max(0.0f, s2[0] / n - mean * mean);
    const float rstd = 1.0f / std::sqrt(var + 1e-5f);
    std::vector<double> naive(x.size()), ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) naive[i] = (static_cast<float>(x[i]) - mean) * rstd;
    double mref = 0.0, rref = 0.0;
    layer_norm_ref(x.data(), cols, nullptr, nullptr, static_cast<double>(1e-5f), ref.data(), &mref, &rref);
    const tolerance tol = layer_norm_row_tolerance(norm_tolerance(norm_op::layer_norm, dtype::f32, cols), &mref, &rref, 1);
    const check_result r = check_close(ref.data(), naive.data(), 1, cols, tol);
    INFO(rowwise_test::describe(r));
    CHECK_FALSE(r.ok);
  }
}

TEST_CASE("layer_norm: far-out values at the packs of a block's first lane (the shifts of its two-pass moments)",
          "[gpu][norms]") {
  // The moments are sums around shifts taken from the data (a thread's first value, a warp's first
  // lane's mean, the first warp's mean, the first CTA's shift), and what Q - C^2 / N loses grows
  // with (mean - shift)^2 / variance. These rows put the first lane's values far from the rest.
  // Widths of one warp, one block and clusters of 2-16 CTAs, 1 and many rows. Limit, measured on
  // the H200 (bench/NOTES.md 28 f): the blocks here have at most 12 warps, and a block shift
  // taken from the first lane alone (session 28's variant C) still passes these rows; the host
  // model in test_operators.cpp (16 warps) is what rejects it.
  seeded_rng rng("layer_norm far lanes");
  INFO(rng.describe());
  test_stream stream;
  for (dtype t : all_dtypes)
    for (int64_t cols : {512, 4096, 8192, 16384, 65536})
      for (int64_t rows : {1, 24}) {
        norm_case c = case_of(norm_op::layer_norm, t, rows, cols, stream.get());
        c.input = norm_input::far_lanes;
        run_case(c, rng);
      }
}

TEST_CASE("norms: constant rows / subnormal rows / outliers / rows holding +inf, -inf or NaN", "[gpu][norms]") {
  // Constant rows: LayerNorm's variance is 0, rstd = 1/sqrt(eps), the output is beta (up to the
  // fp32 mean's rounding times rstd) — never NaN. Subnormal rows: the fp32 sums underflow; the
  // output must still be finite and right (fp16: subnormal and the smallest normal inputs).
  // Non-finite rows: the references do the arithmetic in double: layer_norm's mean and variance
  // of such a row are NaN, so is every output (check_stats: rstd NaN, the mean not finite);
  // rms_norm's mean square is inf (finite elements give 0, the inf NaN) or NaN.
  seeded_rng rng("norms adversarial");
  INFO(rng.describe());
  test_stream stream;
  int k = 0;
  for (dtype t : all_dtypes)
    for (norm_input in : {norm_input::constant, norm_input::subnormal, norm_input::mixed, norm_input::non_finite})
      for (int64_t cols : {1, 2, 33, 1000, 4099, 40000, 131072})
        for (norm_op op : all_norm_ops) {
          norm_case c = case_of(op, t, cols <= 4099 ? 24 : 6, cols, stream.get());
          c.input = in;
          c.layout = (k % 3 == 2) ? offset_both(1) : contiguous();
          combo(c, k++);
          run_case(c, rng);
        }
}

TEST_CASE("fused_add_rms_norm: agrees with residual += x then rms_norm in every strategy", "[gpu][norms]") {
  // run_case checks the composition for every fused case; this one makes sure every strategy
  // family and every (T, W) is among them.
  seeded_rng rng("fused composition");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  for (const sanitizer_pick& pick : sanitizer_picks(dev))
    for (dtype t : all_dtypes)
      for (wtype w : {wtype::same, wtype::f32}) {
        if (t == dtype::f32 && w == wtype::f32) continue;  // the same instantiation as W = T
        sanitizer_pick p = pick;
        p.t = t;
        const int64_t cols = sanitizer_cols(p, dev, p.r == regime::staged ? fused_op : plain_op);
        if (cols < 0) continue;
        norm_case c = case_of(norm_op::fused_add_rms_norm, t, p.rows, cols, stream.get());
        c.w = w;
        c.layout = p.layout.in_place ? offset_both(p.layout.in_offset) : p.layout;
        INFO("strategy: " << to_string(p.r));
        run_case(c, rng);
      }
}

// --- the staged strategy ---------------------------------------------------------------------------

TEST_CASE("rms_norm / fused_add_rms_norm: long rows (and 16-bit fused rows past 256 threads) staged in shared "
          "memory (cluster sizes, uneven last segment, few and many rows, strides, in place, rows that start or end "
          "inside a pack; rows whose heads differ fall back)",
          "[gpu][norms]") {
  seeded_rng rng("norms staged");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  struct staged_case {
    dtype t;
    int64_t cols;
    int64_t rows;
    call_layout layout;
  };
  const int64_t many = dev.sm_count * 3 + 5;  // several rows per cluster: the pipeline wraps stages
  const staged_case cases[] = {
      {dtype::bf16, 65536 - 8, many, contiguous()},   // 4 CTAs per row (fused: 8; 65536 is wide)
      {dtype::f32, 32768, 7, contiguous()},           // few rows: clusters spread over the GPU
      {dtype::f16, 131072 + 8, 5, strided(8)},        // 16-byte aligned stride; uneven segments
      {dtype::bf16, 40008, many, in_place()},         // 5001 packs: the last CTA's segment is shorter
      {dtype::bf16, 262144, 3, contiguous()},         // the largest cluster
      {dtype::f32, 65536, 2, offset_both(1)},         // rows start mid-pack (few rows)
      {dtype::bf16, 65536 + 3, 3, contiguous()},      // a partial last pack (few rows)
      {dtype::bf16, 40008, many, strided(1)},         // heads differ from row to row: not staged
      {dtype::bf16, 12280, many, contiguous()},       // fused only: one CTA would take 384 threads
                                                      // (12288 fills 192 x 64 values: wide, not staged)
      {dtype::f16, 10000, many, strided(8)},          // fused only: 1250 packs, uneven segments
  };
  int k = 0;
  for (const staged_case& sc : cases)
    for (norm_op op : {norm_op::rms_norm, norm_op::fused_add_rms_norm}) {
      norm_case c = case_of(op, sc.t, sc.rows, sc.cols, stream.get());
      c.layout = (op == norm_op::fused_add_rms_norm && sc.layout.in_place) ? offset_both(0) : sc.layout;
      const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(op));
      INFO(describe(pl));
      // The staged kernel needs 16-byte packs (every matrix at one phase) and one head for all rows
      // (strides a multiple of the pack); rows may start and end inside a pack.
      const int64_t n = widest_pack(c.t);
      const bool aligned = (c.layout.in_offset - c.layout.out_offset) % n == 0 && c.layout.in_pad % n == 0 &&
                           c.layout.out_pad % n == 0;
      const int64_t row_bytes = c.cols * elem_bytes(c.t) * traits_of(op).inputs;
      // Long rows; and 16-bit fused rows that one CTA of more than 256 threads would hold (policy.hpp
      // clustered_rows_rules, the staged rule: 8193-12288 columns) where they fill no wide config
      // (none of this list's widths does).
      const bool fused_wide = op == norm_op::fused_add_rms_norm && elem_bytes(c.t) == 2 &&
                              c.cols > 256 * 32 && c.cols <= 384 * 32;
      const bool fits = fused_wide || (row_bytes > dsp::staged_min_row_bytes && row_bytes <= 16 * dsp::staged_segment_bytes);
      CHECK_FALSE(is_wide(pl));
      if (!aligned) CHECK(pl.kind != dsp::strategy::staged);
      // Few rows may instead be spread over a cluster in registers (when a segment fits them).
      if (c.rows >= dev.sm_count) CHECK((pl.kind == dsp::strategy::staged) == (dev.clusters && aligned && fits));
      combo(c, k++);
      run_case(c, rng);
    }
  // Many rows with partial edge packs (kernels/stage_edge_pack.cuh), on the plan of their aligned
  // twin (a row of the same packs): one element past a boundary (2-byte lone elements at both
  // ends; 4-byte words), an odd head with a whole last pack.
  struct edge_case {
    dtype t;
    int64_t cols;
    int64_t rows;
    int64_t offset;
    int64_t pad;  // stride cols + pad, a multiple of the pack: every row has the same head
    int64_t twin_cols;
  };
  const edge_case edge_cases[] = {{dtype::bf16, 65536 - 8, many, 1, 0, 65536 - 8},
                                  {dtype::f16, 40000 + 5, many, 3, 3, 40000 + 8},
                                  {dtype::f32, 152064, dev.sm_count + 5, 1, 0, 152064}};
  for (const edge_case& ec : edge_cases)
    for (norm_op op : {norm_op::rms_norm, norm_op::fused_add_rms_norm}) {
      norm_case c = case_of(op, ec.t, ec.rows, ec.cols, stream.get());
      c.layout = offset_strided(ec.offset, ec.pad);
      const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(op));
      const dsp::plan twin = plan_of(c.t, c.rows, ec.twin_cols, contiguous(), dev, traits_of(op));
      INFO(describe(pl));
      INFO("aligned twin: " << describe(twin));
      CHECK(pl.kind == twin.kind);
      CHECK(pl.cluster == twin.cluster);
      if (dev.clusters && op == norm_op::rms_norm) CHECK(pl.kind == dsp::strategy::staged);
      combo(c, k++);
      run_case(c, rng);
    }
}

TEST_CASE("layer_norm / rms_norm / fused_add_rms_norm: many 16-bit rows held 40-64 values per thread (layer_norm "
          "1280-16384, rms_norm and fused_add_rms_norm past 256 threads, all over clusters of such segments up to "
          "131072; strides, in place, every optional argument)",
          "[gpu][norms]") {
  // policy.hpp wide_rows_rules: rows (cluster segments) that fill G threads x 5-8 packs of 8
  // exactly, more rows than one wave of the CTAs; misaligned rows and other widths stay at 32
  // values.
  seeded_rng rng("norms wide rows");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  struct wide_case {
    norm_op op;
    dtype t;
    int64_t cols;
    call_layout layout;
    bool wide;  // expected
  };
  const wide_case cases[] = {
      {norm_op::layer_norm, dtype::bf16, 2048, contiguous(), true},  // warps: 4 rows per CTA
      {norm_op::layer_norm, dtype::f16, 4096, strided(8), true},
      {norm_op::layer_norm, dtype::bf16, 8192, in_place(), true},
      {norm_op::layer_norm, dtype::f16, 12288, contiguous(), true},
      {norm_op::layer_norm, dtype::bf16, 16384, strided(16), true},
      {norm_op::rms_norm, dtype::bf16, 12288, in_place(), true},
      {norm_op::rms_norm, dtype::f16, 16384, contiguous(), true},
      {norm_op::layer_norm, dtype::bf16, 1536, strided(8), true},    // warps of 6 packs
      {norm_op::layer_norm, dtype::f16, 2560, contiguous(), true},   // 64 x 5 packs
      {norm_op::layer_norm, dtype::bf16, 7168, in_place(), true},    // 128 x 7 packs
      {norm_op::layer_norm, dtype::f16, 4608, strided(8), true},     // 96 x 6 packs
      {norm_op::rms_norm, dtype::bf16, 9216, contiguous(), true},    // 192 x 6 packs
      {norm_op::layer_norm, dtype::bf16, 32768, contiguous(), true}, // 2 CTAs of 256 x 8, weights staged
      {norm_op::layer_norm, dtype::f16, 24576, in_place(), true},    // 2 CTAs of 192 x 8
      {norm_op::rms_norm, dtype::bf16, 65536, strided(8), true},     // 4 CTAs of 256 x 8
      {norm_op::rms_norm, dtype::bf16, 8192, contiguous(), false},              // 256 threads: narrow
      // one element past a boundary: the partial last pack wraps onto the head pack (row_pack_span.hpp),
      // so the row spans its aligned twin's packs and takes its config
      {norm_op::layer_norm, dtype::bf16, 4096, offset_both(1), true},
      {norm_op::fused_add_rms_norm, dtype::bf16, 4096, contiguous(), false},  // 128 threads: narrow
      {norm_op::fused_add_rms_norm, dtype::bf16, 12288, contiguous(), true},  // 192 x 8 (both inputs' packs)
      {norm_op::fused_add_rms_norm, dtype::f16, 16384, strided(8), true},     // 256 x 8
      {norm_op::fused_add_rms_norm, dtype::bf16, 9216, strided(16), true},    // 192 x 6
      {norm_op::fused_add_rms_norm, dtype::f16, 32768, contiguous(), true},   // 2 CTAs of 256 x 8
      {norm_op::fused_add_rms_norm, dtype::bf16, 65536, strided(8), true},    // 4 CTAs of 256 x 8
      {norm_op::fused_add_rms_norm, dtype::bf16, 12288, offset_both(1), true},  // wrapped, as above
  };
  int k = 0;
  for (const wide_case& wc : cases) {
    // The row count that makes layer_norm's plan wide at this width (rms_norm's past 256
    // threads is the same; fused_add_rms_norm's its own), so that the negative cases run at the
    // same rows.
    const norm_op rows_op = wc.op == norm_op::fused_add_rms_norm && wc.wide ? wc.op : norm_op::layer_norm;
    const int64_t rows = rows_for_wide(wc.t, wc.cols, contiguous(), dev, traits_of(rows_op));
    if (!dev.clusters && wc.cols > 16384) {  // wide clusters need them
      WARN("skipped without thread-block clusters: " << to_string(wc.op) << " " << shape_text(wc.t, rows, wc.cols));
      continue;
    }
    REQUIRE(rows > 0);
    norm_case c = case_of(wc.op, wc.t, rows, wc.cols, stream.get());
    c.layout = wc.layout;
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    CHECK(is_wide(pl) == wc.wide);
    combo(c, (k++ * 5) % 16);
    run_case(c, rng);
  }
}

TEST_CASE("layer_norm 16-bit: persistent cluster grids whose CTAs take one or several row steps, weights staged "
          "(both weights, gamma only, none; weights of either type; strides, in place)",
          "[gpu][norms]") {
  // 64-value 16-bit segments of persistent cluster grids with their weights staged, at rows of
  // two and a half waves of clusters: CTAs of one row step and of several in one launch (where
  // the stage's copy order matters: bench/NOTES.md session 30).
  seeded_rng rng("layer_norm 16-bit weights first");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  if (!dev.clusters) {  // wide clusters need them; Catch2 2.x has no skip: say so
    WARN("skipped: this device has no thread-block clusters, which these grids need");
    return;
  }
  test_stream stream;
  struct wf_case {
    dtype t;
    int64_t cols;
    call_layout layout;
    int combo;  // combo(): bit 0 drops gamma, bit 1 beta, bit 2 the stats, bit 3 W = float
  };
  const wf_case cases[] = {
      {dtype::bf16, 65536, contiguous(), 0},  {dtype::f16, 65536, in_place(), 4},
      {dtype::bf16, 32768, strided(8), 8},    {dtype::f16, 24576, contiguous(), 2},
      {dtype::bf16, 65536, strided(16), 3},   {dtype::bf16, 131072, contiguous(), 12},
  };
  for (const wf_case& wc : cases) {
    const int64_t wave = rows_for_wide(wc.t, wc.cols, contiguous(), dev, traits_of(norm_op::layer_norm));
    REQUIRE(wave > 0);
    norm_case c = case_of(norm_op::layer_norm, wc.t, wave * 5 / 2, wc.cols, stream.get());
    c.layout = wc.layout;
    combo(c, wc.combo);
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.cluster > 1);
    CHECK(pl.packs_per_thread * pl.pack_elems == 64);
    run_case(c, rng);
  }
}

struct realigned_case {
  norm_op op;
  dtype t;
  int64_t rows;  // <= 0: 5/2 of the fewest rows that fill a wide plan
  int64_t cols;
  call_layout layout;
  int combo;  // combo(): bit 0 drops the weight (gamma), bit 1 beta, bit 2 the stats, bit 3 W = float
};

/// Each case against fp64, after checking that its plan reserves a column stage (so that the
/// realigned copy is what runs).
template <size_t Count>
void run_realigned_cases(const realigned_case (&cases)[Count], seeded_rng& rng, const dsp::device_limits& dev,
                         cudaStream_t stream) {
  for (const realigned_case& rc : cases) {
    int64_t rows = rc.rows;
    if (rows <= 0) {
      const int64_t wave = rows_for_wide(rc.t, rc.cols, rc.layout, dev, traits_of(rc.op));
      REQUIRE(wave > 0);
      rows = wave * 5 / 2;
    }
    norm_case c = case_of(rc.op, rc.t, rows, rc.cols, stream);
    c.layout = rc.layout;
    combo(c, rc.combo);
    const dsp::plan pl = plan_with_weights(c, dev);
    INFO(describe(pl));
    CHECK(pl.kind == dsp::strategy::registers);
    CHECK(pl.dynamic_smem > 0);
    run_case(c, rng);
  }
}

TEST_CASE("norms: rows one element past a 16-byte boundary in grids that stage their weights (the stage "
          "copied realigned: persistent cluster grids and one-wave grids, W = T or float)",
          "[gpu][norms]") {
  // Weights aligned, rows one or more elements in: the weights are misaligned at every pack of the
  // rows, so the stage is filled realigned (kernels/column_stage.cuh: 4-byte weights and 2-byte
  // ones at an even element by 4-byte cp.async pieces, copy_realigned_by_words; 2-byte ones at an
  // odd element through registers, copy_realigned) and every whole pack's write-back reads it,
  // the row's head lane's too (only its wrapped head pack's weights come from global memory).
  // Every plan below reserves a stage (checked), so the realigned copy runs.
  seeded_rng rng("norms realigned stage");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const realigned_case cases[] = {
      {norm_op::layer_norm, dtype::bf16, 0, 65536, offset_both(1), 0},
      {norm_op::layer_norm, dtype::f16, 0, 65536, offset_both(1), 1},  // beta only (fp32 weights: no stage)
      {norm_op::layer_norm, dtype::bf16, 0, 65536, offset_both(3), 2},
      {norm_op::rms_norm, dtype::f16, 0, 65536, offset_both(1), 0},
      {norm_op::rms_norm, dtype::bf16, 0, 65536, in_place(1), 8},
      {norm_op::fused_add_rms_norm, dtype::bf16, 0, 65536, offset_both(1), 0},
      {norm_op::layer_norm, dtype::f32, 2 * dev.sm_count, 16384, offset_both(1), 4},  // fp32 rows wrap: one wave
      {norm_op::layer_norm, dtype::f32, 2 * dev.sm_count + 1, 65536, offset_both(3), 0},
      {norm_op::rms_norm, dtype::f32, 3 * dev.sm_count + 5, 16384, offset_both(1), 0},
      {norm_op::layer_norm, dtype::bf16, 16, 4096, offset_both(1), 0},
      {norm_op::layer_norm, dtype::f16, 133, 4096, offset_both(5), 8},
      {norm_op::rms_norm, dtype::bf16, 128, 4096, offset_both(1), 0},
      {norm_op::rms_norm, dtype::f32, 1, 4096, offset_both(1), 0},
      {norm_op::rms_norm, dtype::f32, 20 * dev.sm_count + 3, 4096, offset_both(2), 0},
      {norm_op::layer_norm, dtype::bf16, 0, 65536, offset_both(2), 0},  // 2-byte weights on words
      {norm_op::rms_norm, dtype::f16, 128, 4096, offset_both(6), 0},
  };
  run_realigned_cases(cases, rng, dev, stream.get());
}

TEST_CASE("norms: the realigned weight stage, reduced (compute-sanitizer subset)", "[gpu][norms][sanitize]") {
  seeded_rng rng("norms realigned stage, reduced");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  // The fewest rows of a persistent wide grid, and a few more (some clusters take two row steps).
  const int64_t wide = rows_for_wide(dtype::bf16, 65536, offset_both(1), dev, traits_of(norm_op::layer_norm));
  REQUIRE(wide > 0);
  const realigned_case cases[] = {
      {norm_op::layer_norm, dtype::bf16, wide + 7, 65536, offset_both(1), 0},
      {norm_op::layer_norm, dtype::f32, 2 * dev.sm_count, 16384, offset_both(1), 8},
      {norm_op::rms_norm, dtype::bf16, 16, 4096, offset_both(1), 0},
  };
  run_realigned_cases(cases, rng, dev, stream.get());
}

TEST_CASE("layer_norm fp32: many rows of 16384 columns with both weights on one CTA of 256 threads x 64 values "
          "(strides, in place, mean / rstd, weights of either type and offset; other weights keep their plans)",
          "[gpu][norms]") {
  // policy.hpp wide_rows_rules: fp32 layer_norm with gamma and beta, rows that fill 256 threads x
  // 16 packs of 4 exactly, more rows than one wave of those CTAs (two per SM).
  seeded_rng rng("layer_norm fp32 wide rows");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t rows = 2 * dev.sm_count + 3;
  struct wide32_case {
    call_layout layout;
    bool weight, beta;
    wtype w;
    int64_t weight_offset;
    norm_input input;
    bool wide;  // expected
  };
  const wide32_case cases[] = {
      {contiguous(), true, true, wtype::same, 0, norm_input::random, true},
      {strided(4), true, true, wtype::f32, 0, norm_input::mixed, true},
      {in_place(), true, true, wtype::same, 1, norm_input::large_mean, true},  // weights misaligned
      {strided(12), true, true, wtype::same, 0, norm_input::far_lanes, true},
      {contiguous(), true, false, wtype::same, 0, norm_input::random, false},  // gamma only
      {contiguous(), false, false, wtype::same, 0, norm_input::random, false},
      {offset_both(1), true, true, wtype::same, 0, norm_input::random, false},  // a head pack
  };
  int k = 0;
  for (const wide32_case& wc : cases) {
    norm_case c = case_of(norm_op::layer_norm, dtype::f32, rows, 16384, stream.get());
    c.layout = wc.layout;
    c.weight = wc.weight;
    c.beta = wc.beta;
    c.w = wc.w;
    c.weight_offset = wc.weight_offset;
    c.input = wc.input;
    c.stats = (k++ % 2) == 0;
    if (wc.layout.in_offset == 0) {  // aligned rows: the plan of this call's weights
      const dsp::plan pl = plan_with_weights(c, dev);
      INFO(describe(pl));
      CHECK(is_wide(pl) == wc.wide);
      if (wc.wide) CHECK((pl.threads_per_row == 256 && pl.packs_per_thread == 16 && pl.cluster == 1));
    }
    run_case(c, rng);
  }
}

TEST_CASE("rms_norm / fused_add_rms_norm: many rows past 16 CTAs' 32 KiB stages staged over 16 CTAs with "
          "larger stages (one and two CTAs per SM, uneven segments, strides, in place)",
          "[gpu][norms]") {
  // policy.hpp long_rows_stage_rules: fp32 rms_norm and the fused op up to 64 KiB per CTA, bf16
  // fused up to 64 KiB, bf16 rms_norm up to 48 KiB; past that they stream.
  seeded_rng rng("norms larger stages");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t rows = dev.sm_count + 5;  // enough rows for no spread: each cluster loops
  struct stage_case {
    norm_op op;
    dtype t;
    int64_t cols;
    call_layout layout;
    dsp::strategy kind;  // staged or not, on an sm_90 device with clusters
    int64_t smem;        // expected dynamic shared memory (staged)
  };
  const stage_case cases[] = {
      {norm_op::rms_norm, dtype::f32, 196608, contiguous(), dsp::strategy::staged, 3 * 48 * 1024},
      {norm_op::rms_norm, dtype::f32, 131072 + 4, in_place(), dsp::strategy::staged, 3 * 2049 * 16},  // uneven
      {norm_op::rms_norm, dtype::f32, 262144 + 4, contiguous(), dsp::strategy::streaming, 0},
      {norm_op::rms_norm, dtype::bf16, 393216, strided(8), dsp::strategy::staged, 3 * 48 * 1024},
      {norm_op::rms_norm, dtype::bf16, 393216 + 8, contiguous(), dsp::strategy::streaming, 0},
      {norm_op::fused_add_rms_norm, dtype::f32, 65536 + 4, contiguous(), dsp::strategy::staged, 3 * 2 * 1025 * 16},
      {norm_op::fused_add_rms_norm, dtype::f32, 106496, strided(4), dsp::strategy::staged, 3 * 2 * 1664 * 16},
      {norm_op::fused_add_rms_norm, dtype::bf16, 262144, contiguous(), dsp::strategy::staged, 3 * 64 * 1024},
      {norm_op::fused_add_rms_norm, dtype::bf16, 131072 + 8, strided(8), dsp::strategy::staged, 3 * 2 * 1025 * 16},
      // one element past a boundary: staged with partial edge packs, on the aligned row's stage
      {norm_op::fused_add_rms_norm, dtype::bf16, 262144 - 8, offset_both(1), dsp::strategy::staged, 3 * 64 * 1024},
      // rows whose heads differ (stride not a multiple of the pack): streaming
      {norm_op::fused_add_rms_norm, dtype::bf16, 262144 - 8, strided(1), dsp::strategy::streaming, 0},
  };
  int k = 0;
  for (const stage_case& sc : cases) {
    norm_case c = case_of(sc.op, sc.t, rows, sc.cols, stream.get());
    c.layout = sc.layout;
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    if (dev.clusters && dev.cc_major >= 9) {
      CHECK((pl.kind == dsp::strategy::staged) == (sc.kind == dsp::strategy::staged));
      if (sc.kind == dsp::strategy::staged) {
        CHECK(pl.cluster == 16);
        CHECK(pl.dynamic_smem == sc.smem);
      }
    }
    combo(c, k++);
    run_case(c, rng);
  }
}

TEST_CASE("layer_norm / rms_norm: many long rows over a cluster in registers (fp32 64-512 KiB, fused fp32 "
          "rows past the stage, 16-bit layer_norm over 2 CTAs) or streaming over >= 64 KiB segments (several rows per cluster, uneven "
          "segments, strides, in place); few long rows over a doubled cluster in registers or on 512-thread CTAs",
          "[gpu][norms]") {
  // policy.hpp clustered_rows_rules: fp32 layer_norm / rms_norm rows of 64 KiB - 512 KiB in
  // registers over up to 16 CTAs of 256 threads; longer ones (and 16-bit layer_norm past 2 x 320
  // threads) stream over a cluster.
  seeded_rng rng("norms clustered rows");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t many = dev.sm_count * 3 + 5;  // more rows than resident clusters: each loops
  struct rows_case {
    norm_op op;
    dtype t;
    int64_t rows;
    int64_t cols;
    call_layout layout;
    dsp::strategy kind;  // expected on a device with clusters
    int cluster;
  };
  const int64_t fewer = dev.sm_count + 5;  // still more than the resident clusters of 8 / 16
  const rows_case cases[] = {
      {norm_op::layer_norm, dtype::f32, many, 32768, contiguous(), dsp::strategy::registers, 4},
      {norm_op::layer_norm, dtype::f32, many, 65536, in_place(), dsp::strategy::registers, 8},
      {norm_op::layer_norm, dtype::f32, many, 24576 + 4, strided(4), dsp::strategy::registers, 4},  // uneven
      {norm_op::layer_norm, dtype::f32, many, 40000, offset_both(1), dsp::strategy::registers, 8},  // mid-pack
      {norm_op::rms_norm, dtype::f32, many, 16384, contiguous(), dsp::strategy::registers, 2},
      {norm_op::rms_norm, dtype::f32, fewer, 131072 - 4, offset_both(1), dsp::strategy::registers, 16},
      {norm_op::layer_norm, dtype::f32, fewer, 152064 + 4, strided(4), dsp::strategy::streaming, 8},
      {norm_op::layer_norm, dtype::bf16, many, 65536 + 8, strided(8), dsp::strategy::streaming, 2},  // 16-bit
      {norm_op::layer_norm, dtype::bf16, many, 16384 + 8, contiguous(), dsp::strategy::registers, 2},  // 2 x 288
      {norm_op::layer_norm, dtype::f16, many, 13000, in_place(), dsp::strategy::registers, 2},  // uneven
      // fp32 fused_add_rms_norm rows of whole packs past what 16 CTAs stage, where 16 CTAs' segments
      // fill their registers config exactly (past_stage_budget, exact_fill); the others are staged (below).
      {norm_op::fused_add_rms_norm, dtype::f32, many, 131072, contiguous(), dsp::strategy::registers, 16},
      {norm_op::fused_add_rms_norm, dtype::f32, fewer, 81920, strided(4), dsp::strategy::registers, 16},
      // (65540: segments fill it partly; staged over 16 CTAs with larger stages instead,
      // long_rows_stage_rules)
      {norm_op::fused_add_rms_norm, dtype::f32, fewer, 65536 + 4, strided(4), dsp::strategy::staged, 16},
      // Few rows whose spread cluster's segments are too long for registers: over twice that
      // cluster in registers (policy.hpp few_rows_doubling).
      {norm_op::layer_norm, dtype::f32, 32, 65536, contiguous(), dsp::strategy::registers, 8},
      {norm_op::rms_norm, dtype::bf16, 16, 131072, in_place(), dsp::strategy::registers, 16},
      {norm_op::layer_norm, dtype::bf16, 24, 65536 + 8, strided(8), dsp::strategy::registers, 8},  // uneven
      {norm_op::rms_norm, dtype::f32, 16, 131072 - 4, strided(4), dsp::strategy::registers, 16},
      // Few rows whose spread segments neither fit 384 threads nor double: 512 threads of 32
      // values at the spread cluster (policy.hpp few_rows_block).
      {norm_op::layer_norm, dtype::f32, 64, 32000, contiguous(), dsp::strategy::registers, 2},
      {norm_op::rms_norm, dtype::f32, 64, 30000, in_place(), dsp::strategy::registers, 2},
      {norm_op::layer_norm, dtype::bf16, 8, 262144 - 8, strided(8), dsp::strategy::registers, 16},  // uneven
      {norm_op::rms_norm, dtype::f16, 1, 262144, contiguous(), dsp::strategy::registers, 16},
      // Few 16-bit rows split down to 512 packs per CTA (policy.hpp narrow_few_rows_split), not
      // layer_norm rows one 256-thread CTA holds.
      {norm_op::rms_norm, dtype::bf16, 1, 8192, contiguous(), dsp::strategy::registers, 2},
      {norm_op::fused_add_rms_norm, dtype::bf16, 1, 8192, contiguous(), dsp::strategy::registers, 2},
      {norm_op::fused_add_rms_norm, dtype::f16, 33, 8192 + 8, strided(8), dsp::strategy::registers, 2},  // uneven
      {norm_op::layer_norm, dtype::bf16, 1, 16384 + 8, strided(8), dsp::strategy::registers, 4},  // uneven
      {norm_op::layer_norm, dtype::f16, 16, 12288, in_place(), dsp::strategy::registers, 2},
      {norm_op::layer_norm, dtype::bf16, 1, 8192, contiguous(), dsp::strategy::registers, 1},
  };
  int k = 0;
  for (const rows_case& rc : cases) {
    norm_case c = case_of(rc.op, rc.t, rc.rows, rc.cols, stream.get());
    c.layout = rc.layout;
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    if (dev.clusters) {
      CHECK(pl.kind == rc.kind);
      CHECK(pl.cluster == rc.cluster);
    }
    combo(c, k++);
    run_case(c, rng);
  }
}

// --- invalid arguments ------------------------------------------------------------------------------

TEST_CASE("norms: invalid arguments return invalid_argument naming the op and launch nothing",
          "[gpu][norms][sanitize]") {
  test_stream stream;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (dtype t : all_dtypes)
    for (wtype w : {wtype::same, wtype::f32}) {
      constexpr int64_t rows = 4, cols = 64;
      device_matrix a(t, rows, cols, cols), b(t, rows, cols, cols);
      std::vector<double> ones(static_cast<size_t>(rows * cols), 1.0);
      a.upload(ones);
      b.upload(ones);
      const dtype wt = api::weight_dtype(t, w);
      const device_buffer wd = upload_vector(wt, std::vector<double>(cols + 1, 1.0));
      stats_buffer mean_d(rows), rstd_d(rows);
      void* ap = a.data();
      void* bp = b.data();
      const api::mat A{ap, rows, cols, cols}, B{bp, rows, cols, cols};
      const api::vec W{wd.get(), cols};
      const api::vec W_short{wd.get(), cols - 1}, W_long{wd.get(), cols + 1};
      const api::vec W_misaligned{wd.get() + 1, cols};  // not a multiple of sizeof(W)
      // Overlapping arguments: the matrix A one element on, weights over B's or A's elements
      // (cols elements of W are at most as many bytes as A's / B's rows hold: W is T or float).
      const int64_t eb = elem_bytes(t);
      const api::mat A_next{static_cast<unsigned char*>(ap) + eb, rows, cols, cols};
      const api::vec W_in_B{bp, cols}, W_in_A{ap, cols};

      struct bad_call {
        norm_op op;
        const char* what;
        const char* keyword;
        api::mat a, b;
        api::vec g, beta;
        float eps;
      };
      const std::vector<bad_call> bad = {
          {norm_op::layer_norm, "null input, rows > 0", "null", {nullptr, rows, cols, cols}, B, W, W, 1e-5f},
          {norm_op::layer_norm, "null output, rows > 0", "null", A, {nullptr, rows, cols, cols}, W, W, 1e-5f},
          {norm_op::layer_norm, "cols == 0", "cols", {ap, rows, 0, cols}, {bp, rows, 0, cols}, {}, {}, 1e-5f},
          {norm_op::layer_norm, "row_stride < cols", "stride", {ap, rows, cols, cols - 1}, B, W, W, 1e-5f},
          {norm_op::layer_norm, "output shape differs", "rows", A, {bp, rows - 1, cols, cols}, W, W, 1e-5f},
          {norm_op::layer_norm, "rows < 0", "rows", {ap, -2, cols, cols}, {bp, -2, cols, cols}, W, W, 1e-5f},
          {norm_op::layer_norm, "gamma size < cols", "gamma", A, B, W_short, W, 1e-5f},
          {norm_op::layer_norm, "gamma size > cols", "gamma", A, B, W_long, W, 1e-5f},
          {norm_op::layer_norm, "beta size != cols", "beta", A, B, W, W_short, 1e-5f},
          {norm_op::layer_norm, "gamma not aligned to its element", "align", A, B, W_misaligned, W, 1e-5f},
          {norm_op::layer_norm, "eps < 0", "eps", A, B, W, W, -1e-5f},
          {norm_op::layer_norm, "eps NaN", "eps", A, B, W, W, nan},
          {norm_op::layer_norm, "eps +inf", "eps", A, B, W, W, inf},
          {norm_op::layer_norm, "eps -inf", "eps", A, B, W, W, -inf},
          {norm_op::rms_norm, "null input, rows > 0", "null", {nullptr, rows, cols, cols}, B, W, {}, 1e-6f},
          {norm_op::rms_norm, "cols < 0", "cols", {ap, rows, -1, cols}, {bp, rows, -1, cols}, W, {}, 1e-6f},
          {norm_op::rms_norm, "output row_stride < cols", "stride", A, {bp, rows, cols, 3}, W, {}, 1e-6f},
          {norm_op::rms_norm, "output cols differ", "cols", A, {bp, rows, cols - 1, cols}, W, {}, 1e-6f},
          {norm_op::rms_norm, "weight size < cols", "weight", A, B, W_short, {}, 1e-6f},
          {norm_op::rms_norm, "weight size > cols", "weight", A, B, W_long, {}, 1e-6f},
          {norm_op::rms_norm, "weight not aligned to its element", "align", A, B, W_misaligned, {}, 1e-6f},
          {norm_op::rms_norm, "eps < 0", "eps", A, B, W, {}, -1.0f},
          {norm_op::rms_norm, "eps NaN", "eps", A, B, W, {}, nan},
          {norm_op::rms_norm, "eps +inf", "eps", A, B, W, {}, inf},
          {norm_op::fused_add_rms_norm, "null x, rows > 0", "null", {nullptr, rows, cols, cols}, B, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "null residual, rows > 0", "null", A, {nullptr, rows, cols, cols}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "x cols == 0", "cols", {ap, rows, 0, cols}, {bp, rows, 0, cols}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "x row_stride < cols", "stride", {ap, rows, cols, 1}, B, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "residual row_stride < cols", "stride", A, {bp, rows, cols, cols - 1}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "residual rows differ", "residual", A, {bp, rows + 1, cols, cols}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "residual cols differ", "residual", A, {bp, rows, cols - 1, cols}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "rows < 0", "rows", {ap, -1, cols, cols}, {bp, -1, cols, cols}, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "weight size != cols", "weight", A, B, W_long, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "eps NaN", "eps", A, B, W, {}, nan},
          {norm_op::fused_add_rms_norm, "eps < 0", "eps", A, B, W, {}, -1e-6f},
          {norm_op::fused_add_rms_norm, "eps -inf", "eps", A, B, W, {}, -inf},
          // Memory that would race (dispatch/memory_overlap.hpp).
          {norm_op::layer_norm, "output one element past the input's start", "shares", A, A_next, W, W, 1e-5f},
          {norm_op::layer_norm, "gamma inside the output", "gamma", A, B, W_in_B, W, 1e-5f},
          {norm_op::layer_norm, "beta inside the output", "beta", A, B, W, W_in_B, 1e-5f},
          {norm_op::rms_norm, "output one element past the input's start", "shares", A, A_next, W, {}, 1e-6f},
          {norm_op::rms_norm, "weight inside the output", "weight", A, B, W_in_B, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "residual is x", "residual", A, A, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "residual one element past x's start", "residual", A, A_next, W, {}, 1e-6f},
          {norm_op::fused_add_rms_norm, "weight inside x", "weight", A, B, W_in_A, {}, 1e-6f},
      };
      for (const bad_call& c : bad) {
        INFO(to_string(c.op) << " " << to_string(t) << " " << api::to_string(w) << ": " << c.what);
        rowwise::status st;
        switch (c.op) {
          case norm_op::layer_norm:
            st = api::run_layer_norm(t, w, c.a, c.b, c.g, c.beta, c.eps, stream.get(), mean_d.data(), rstd_d.data());
            break;
          case norm_op::rms_norm: st = api::run_rms_norm(t, w, c.a, c.b, c.g, c.eps, stream.get()); break;
          case norm_op::fused_add_rms_norm: st = api::run_fused_add_rms_norm(t, w, c.a, c.b, c.g, c.eps, stream.get()); break;
        }
        INFO("message: " << st.message());
        CHECK_FALSE(st.ok());
        CHECK(st.code() == rowwise::errc::invalid_argument);
        CHECK(st.cuda_error() == cudaSuccess);
        const std::string msg = st.message();
        CHECK(msg.rfind(std::string(to_string(c.op)) + ":", 0) == 0);
        CHECK(msg.find(c.keyword) != std::string::npos);
      }
      stream.sync();
      RW_CUDA(cudaGetLastError());
      (void)a.download();
      (void)b.download();
      CHECK(a.unchanged_report().empty());
      CHECK(b.unchanged_report().empty());
      CHECK(mean_d.all_untouched());
      CHECK(rstd_d.all_untouched());
    }
}

// --- > 2^31 elements --------------------------------------------------------------------------------

TEST_CASE("rms_norm: more than 2^31 elements (bf16 8193 x 262144 with W = float; a SAMPLE of rows is checked)",
          "[gpu][norms][large]") {
  constexpr int64_t cols = 262144;
  constexpr int64_t rows = (int64_t{1} << 31) / cols + 1;
  constexpr int64_t n = rows * cols;
  static_assert(n > (int64_t{1} << 31), "more than 2^31 elements");
  constexpr int64_t tail = 4096;
  const dtype t = dtype::bf16;
  const size_t bytes = static_cast<size_t>((n + tail) * elem_bytes(t));
  if (std::string why; !device_memory_for(2 * bytes, why)) {
    WARN(why);
    return;
  }
  seeded_rng rng("rms_norm > 2^31");
  INFO(rng.describe());
  test_stream stream;
  device_buffer in(bytes), out(bytes);
  out.fill(poison_byte);
  RW_CUDA(api::fill_uniform_device(t, in.get(), n, rng.next_u64(), -3.0f, 3.0f, stream.get()));
  stream.sync();
  const std::vector<double> weight = make_weights(dtype::f32, cols, 2.0, rng);
  const device_buffer wd = upload_vector(dtype::f32, weight);

  const std::vector<int64_t> sample = sample_rows(rows, cols, rng);
  const int64_t m = static_cast<int64_t>(sample.size());
  const std::vector<double> x = download_rows(in, t, sample, cols);

  const auto dev = device_limits_now();
  INFO(describe(plan_of(t, rows, cols, {{in.get(), cols}, {out.get(), cols}}, dev, rms_op)));
  const rowwise::status st = api::run_rms_norm(t, wtype::f32, {in.get(), rows, cols, cols}, {out.get(), rows, cols, cols},
                                               {wd.get(), cols}, 1e-6f, stream.get());
  INFO("status: " << st.message());
  REQUIRE(st.ok());
  stream.sync();

  const std::vector<double> got = download_rows(out, t, sample, cols);
  std::vector<double> ref(x.size());
  for (int64_t k = 0; k < m; ++k)
    rms_norm_ref(x.data() + k * cols, cols, weight.data(), static_cast<double>(1e-6f), ref.data() + k * cols);
  const check_result res = check_close(ref.data(), got.data(), m, cols, norm_tolerance(norm_op::rms_norm, t, cols));
  INFO("checked rows (sample): " << m << "; a failing 'row' below indexes the sample, which is sorted");
  INFO(rowwise_test::describe(res));
  CHECK(res.ok);
  CHECK(tail_poisoned(out, t, n, tail));
}

// --- CUDA graphs ------------------------------------------------------------------------------------

/// Ends the capture on `stream` of three calls that returned s1..s3: checks their statuses, that the
/// capture ended and that its graph holds one kernel per call and nothing else. Returns the graph.
static cudaGraph_t end_capture_of_three(cudaStream_t stream, const rowwise::status& s1, const rowwise::status& s2,
                                        const rowwise::status& s3) {
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  INFO("statuses: " << s1.message() << " / " << s2.message() << " / " << s3.message() << "; end capture: "
                    << cudaGetErrorString(end));
  CHECK(s1.ok());
  CHECK(s2.ok());
  CHECK(s3.ok());
  REQUIRE(end == cudaSuccess);
  REQUIRE(graph != nullptr);
  size_t nodes = 0;
  const cudaError_t counted = cudaGraphGetNodes(graph, nullptr, &nodes);
  CHECK(counted == cudaSuccess);
  CHECK(nodes == 3);
  return graph;
}

TEST_CASE("norms: captured into a CUDA graph and replayed with fresh inputs",
          "[gpu][norms][graph]") {
  seeded_rng rng("norms graph");
  INFO(rng.describe());
  // layer_norm fp32 64 x 1000 with gamma, beta, mean, rstd; rms_norm bf16 2 x 152064 (cluster
  // split on sm_90) with a float weight; fused_add_rms_norm fp16 300 x 4096 with an fp16 weight.
  const int64_t ln_rows = 64, ln_cols = 1000, rn_rows = 2, rn_cols = 152064, fu_rows = 300, fu_cols = 4096;
  device_matrix ln_in(dtype::f32, ln_rows, ln_cols, ln_cols), ln_out(dtype::f32, ln_rows, ln_cols, ln_cols);
  device_matrix rn_in(dtype::bf16, rn_rows, rn_cols, rn_cols), rn_out(dtype::bf16, rn_rows, rn_cols, rn_cols);
  device_matrix fu_x(dtype::f16, fu_rows, fu_cols, fu_cols), fu_r(dtype::f16, fu_rows, fu_cols, fu_cols);
  const std::vector<double> gamma = make_weights(dtype::f32, ln_cols, 2.0, rng), beta = make_weights(dtype::f32, ln_cols, 1.0, rng);
  const std::vector<double> rn_w = make_weights(dtype::f32, rn_cols, 2.0, rng), fu_w = make_weights(dtype::f16, fu_cols, 2.0, rng);
  const device_buffer gamma_d = upload_vector(dtype::f32, gamma), beta_d = upload_vector(dtype::f32, beta);
  const device_buffer rn_wd = upload_vector(dtype::f32, rn_w), fu_wd = upload_vector(dtype::f16, fu_w);
  stats_buffer mean_d(ln_rows), rstd_d(ln_rows);

  test_stream stream;
  RW_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  const rowwise::status s1 = api::run_layer_norm(dtype::f32, wtype::same, api::as_mat(ln_in), api::as_mat(ln_out),
                                                 {gamma_d.get(), ln_cols}, {beta_d.get(), ln_cols}, 1e-5f, stream.get(),
                                                 mean_d.data(), rstd_d.data());
  const rowwise::status s2 = api::run_rms_norm(dtype::bf16, wtype::f32, api::as_mat(rn_in), api::as_mat(rn_out),
                                               {rn_wd.get(), rn_cols}, 1e-6f, stream.get());
  const rowwise::status s3 = api::run_fused_add_rms_norm(dtype::f16, wtype::same, api::as_mat(fu_x), api::as_mat(fu_r),
                                                         {fu_wd.get(), fu_cols}, 1e-6f, stream.get());
  graph_guard guard{end_capture_of_three(stream.get(), s1, s2, s3)};
  RW_CUDA(cudaGraphInstantiate(&guard.e, guard.g, 0));

  for (int replay = 0; replay < 2; ++replay) {
    INFO("replay " << replay);
    const std::vector<double> ln_x = make_inputs(dtype::f32, ln_rows, ln_cols, norm_input::random, rng);
    const std::vector<double> rn_x = make_inputs(dtype::bf16, rn_rows, rn_cols, norm_input::random, rng);
    const std::vector<double> fx = make_inputs(dtype::f16, fu_rows, fu_cols, norm_input::random, rng);
    const std::vector<double> fr = make_inputs(dtype::f16, fu_rows, fu_cols, norm_input::random, rng);
    ln_in.upload(ln_x);
    rn_in.upload(rn_x);
    fu_x.upload(fx);
    fu_r.upload(fr);
    ln_out.poison();
    rn_out.poison();
    mean_d.buf.fill(poison_byte);
    rstd_d.buf.fill(poison_byte);
    RW_CUDA(cudaGraphLaunch(guard.e, stream.get()));
    stream.sync();

    {  // layer_norm
      const std::vector<double> got = ln_out.download();
      std::vector<double> ref(got.size()), means(ln_rows), rstds(ln_rows);
      for (int64_t r = 0; r < ln_rows; ++r)
        layer_norm_ref(ln_x.data() + r * ln_cols, ln_cols, gamma.data(), beta.data(), static_cast<double>(1e-5f),
                       ref.data() + r * ln_cols, &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)]);
      const tolerance base = norm_tolerance(norm_op::layer_norm, dtype::f32, ln_cols);
      const check_result res = check_rows(ref, got, ln_rows, ln_cols, [&](int64_t r) {
        return layer_norm_row_tolerance(base, &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)], 1,
                                        max_abs(gamma));
      });
      INFO("layer_norm: " << rowwise_test::describe(res));
      CHECK(res.ok);
      const std::string bad = check_stats(mean_d.values(), rstd_d.values(), means, rstds, ln_cols, 1e-5f);
      INFO("mean/rstd: " << bad);
      CHECK(bad.empty());
    }
    {  // rms_norm
      const std::vector<double> got = rn_out.download();
      std::vector<double> ref(got.size());
      for (int64_t r = 0; r < rn_rows; ++r)
        rms_norm_ref(rn_x.data() + r * rn_cols, rn_cols, rn_w.data(), static_cast<double>(1e-6f), ref.data() + r * rn_cols);
      const check_result res = check_close(ref.data(), got.data(), rn_rows, rn_cols,
                                           norm_tolerance(norm_op::rms_norm, dtype::bf16, rn_cols));
      INFO("rms_norm: " << rowwise_test::describe(res));
      CHECK(res.ok);
    }
    {  // fused_add_rms_norm
      const std::vector<double> got_x = fu_x.download();
      const std::vector<double> got_r = fu_r.download();
      std::vector<double> ref_x(got_x.size()), ref_r(got_r.size());
      for (int64_t r = 0; r < fu_rows; ++r)
        fused_add_rms_norm_ref(fx.data() + r * fu_cols, fr.data() + r * fu_cols, fu_cols, fu_w.data(),
                               static_cast<double>(1e-6f), round_through<__half>, ref_x.data() + r * fu_cols,
                               ref_r.data() + r * fu_cols);
      CHECK(got_r == ref_r);  // exact: round_T(fp32(x) + fp32(residual))
      const check_result res = check_close(ref_x.data(), got_x.data(), fu_rows, fu_cols,
                                           norm_tolerance(norm_op::fused_add_rms_norm, dtype::f16, fu_cols));
      INFO("fused_add_rms_norm: " << rowwise_test::describe(res));
      CHECK(res.ok);
    }
  }
}

// One kernel instance serves layer_norm with both weights and with gamma only, whose column stages
// differ (32 / 16 KiB at fp32 4096 columns). Its dynamic shared memory limit is a property of the
// function: the smaller call's set-up once lowered it under the larger call's remembered launch,
// which then failed, and inside a global-mode capture took the whole capture down (bench/NOTES.md
// session 34 e). The eager calls give both set-ups in the order that lowered it; the capture is in
// cudaStreamCaptureModeGlobal, the mode of PyTorch's graphs.
TEST_CASE("norms: one kernel at two stage sizes, alternated in a global-mode CUDA graph capture",
          "[gpu][norms][graph]") {
  seeded_rng rng("norms graph stage sizes");
  INFO(rng.describe());
  const int64_t rows = 3, cols = 4096;
  device_matrix in(dtype::f32, rows, cols, cols);
  device_matrix out_both(dtype::f32, rows, cols, cols), out_gamma(dtype::f32, rows, cols, cols),
      out_again(dtype::f32, rows, cols, cols);
  const std::vector<double> gamma = make_weights(dtype::f32, cols, 2.0, rng), beta = make_weights(dtype::f32, cols, 1.0, rng);
  const device_buffer gamma_d = upload_vector(dtype::f32, gamma), beta_d = upload_vector(dtype::f32, beta);
  const auto both = [&](device_matrix& o, cudaStream_t st) {
    return api::run_layer_norm(dtype::f32, wtype::same, api::as_mat(in), api::as_mat(o), {gamma_d.get(), cols},
                               {beta_d.get(), cols}, 1e-5f, st);
  };
  const auto gamma_only = [&](device_matrix& o, cudaStream_t st) {
    return api::run_layer_norm(dtype::f32, wtype::same, api::as_mat(in), api::as_mat(o), {gamma_d.get(), cols},
                               {nullptr, 0}, 1e-5f, st);
  };
  test_stream stream;
  // Eager: both weights, then gamma only (the set-up order that lowered the limit).
  REQUIRE(both(out_both, stream.get()).ok());
  REQUIRE(gamma_only(out_gamma, stream.get()).ok());
  stream.sync();

  RW_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  const rowwise::status s1 = both(out_both, stream.get());
  const rowwise::status s2 = gamma_only(out_gamma, stream.get());
  const rowwise::status s3 = both(out_again, stream.get());
  graph_guard guard{end_capture_of_three(stream.get(), s1, s2, s3)};
  RW_CUDA(cudaGraphInstantiate(&guard.e, guard.g, 0));

  const std::vector<double> x = make_inputs(dtype::f32, rows, cols, norm_input::random, rng);
  in.upload(x);
  out_both.poison();
  out_gamma.poison();
  out_again.poison();
  RW_CUDA(cudaGraphLaunch(guard.e, stream.get()));
  stream.sync();
  const auto check = [&](device_matrix& o, const double* b, const char* what) {
    const std::vector<double> got = o.download();
    std::vector<double> ref(got.size()), means(rows), rstds(rows);
    for (int64_t r = 0; r < rows; ++r)
      layer_norm_ref(x.data() + r * cols, cols, gamma.data(), b, static_cast<double>(1e-5f),
                     ref.data() + r * cols, &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)]);
    const tolerance base = norm_tolerance(norm_op::layer_norm, dtype::f32, cols);
    const check_result res = check_rows(ref, got, rows, cols, [&](int64_t r) {
      return layer_norm_row_tolerance(base, &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)], 1,
                                      max_abs(gamma));
    });
    INFO(what << ": " << rowwise_test::describe(res));
    CHECK(res.ok);
  };
  check(out_both, beta.data(), "both weights (first)");
  check(out_gamma, nullptr, "gamma only");
  check(out_again, beta.data(), "both weights (again)");
}

// --- the compute-sanitizer subset -------------------------------------------------------------------

// Run by memcheck and racecheck, not synccheck (scripts/h200_run.sh SYNCCHECK_SPEC): synccheck
// (compute-sanitizer 2025.3.1) stops with an illegal address, and reports no error, on any grid
// whose clusters of 16 run two to a GPC and exchange by the push (st.async counted on transaction
// barriers): a kernel doing nothing but cluster_all_reduce does it from the eighth cluster of 16
// on, and passes with the same sums through cluster barriers (bench/NOTES.md session 34 a,
// experiment 83). These grids launch more than 7 clusters of 16 (two or more CTAs per SM).
TEST_CASE("norms: fp32 rows over clusters of 16 CTAs, several per SM (compute-sanitizer subset, not synccheck)",
          "[gpu][norms][sanitize][no_synccheck]") {
  seeded_rng rng("norms sanitize c16");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  // fp32 fused_add_rms_norm past what 16 CTAs stage, over 16 CTAs of 160 x 32 values
  // (clustered_rows_rules: past_stage_budget, exact_fill), a row stride of cols + 4; rms_norm
  // over 16 CTAs of 192 x 32 values (the fp32 clustered-rows rule).
  const std::pair<norm_op, int64_t> picks[] = {{norm_op::fused_add_rms_norm, 81920}, {norm_op::rms_norm, 98304}};
  int k = 0;
  for (const auto& [op, cols] : picks) {
    norm_case c = case_of(op, dtype::f32, dev.sm_count + 7, cols, stream.get());
    c.layout = strided(4);
    combo(c, (k++ * 5) % 16 & ~1);  // with a weight
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    if (dev.clusters) CHECK((pl.kind == dsp::strategy::registers && pl.cluster == 16));
    run_case(c, rng);
  }
  // Staged over 16 CTAs: fp32 fused_add_rms_norm rows just past 16 CTAs' 32 KiB stages, with 32.8
  // KiB stages, two CTAs per SM (policy.hpp long_rows_stage_rules), the last segment shorter, just
  // enough rows for no spread; and fp32 rms_norm rows one element past a 16-byte boundary, with
  // partial edge packs (kernels/stage_edge_pack.cuh), which the general subset's staged pick
  // (found with the fused op) does not reach.
  struct staged16_case {
    norm_op op;
    int64_t rows;
    int64_t cols;
    call_layout layout;
  };
  const staged16_case staged16[] = {
      {norm_op::fused_add_rms_norm, dev.sm_count + 5, 65536 + 4, contiguous()},
      {norm_op::rms_norm, dev.sm_count + 7, 131072 + 4, offset_both(1)},
  };
  for (const staged16_case& sc : staged16) {
    norm_case c = case_of(sc.op, dtype::f32, sc.rows, sc.cols, stream.get());
    c.layout = sc.layout;
    combo(c, (k++ * 5) % 16 & ~1);  // with a weight
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    if (dev.clusters && dev.cc_major >= 9) CHECK((pl.kind == dsp::strategy::staged && pl.cluster == 16));
    run_case(c, rng);
  }
}

TEST_CASE("norms: one small shape per strategy (compute-sanitizer subset)",
          "[gpu][norms][sanitize]") {
  seeded_rng rng("norms sanitize");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  int k = 0;
  for (const sanitizer_pick& p : sanitizer_picks(dev)) {
    INFO("strategy: " << to_string(p.r));
    // The staged strategy is the rms_norm family's choice: find its widths with the fused op, whose
    // rows (two matrices) stage first. (rms_norm's first staged fp32 rows one element past a
    // boundary, 131076 columns, take clusters of 16 several to a GPC, which synccheck cannot run:
    // that case is in the [no_synccheck] subset below.)
    const int64_t cols = sanitizer_cols(p, dev, p.r == regime::staged ? fused_op : plain_op);
    if (cols < 0) {
      CHECK_FALSE(regime_required(p.r, dev));
      WARN("the plan never picks '" << to_string(p.r) << "' for " << p.rows << " rows on this device: not run");
      continue;
    }
    for (norm_op op : all_norm_ops) {
      norm_case c = case_of(op, p.t, p.rows, cols, stream.get());
      c.layout = (op == norm_op::fused_add_rms_norm && p.layout.in_place) ? offset_both(p.layout.in_offset) : p.layout;
      combo(c, (k++ * 5) % 16);
      run_case(c, rng);
    }
  }
  // Many fp32 rows in registers over a cluster of 4 with the weights' column stage (policy.hpp
  // clustered_rows_rules), misaligned by one element so the edge packs take the checked path.
  for (norm_op op : {norm_op::layer_norm, norm_op::rms_norm}) {
    // Rows enough to fill the SMs: no spread split.
    norm_case c = case_of(op, dtype::f32, dev.sm_count + 7, 32768 - 4, stream.get());
    c.layout = offset_both(1);
    combo(c, (k++ * 5) % 16 & ~1);  // with a weight
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(op));
    INFO(describe(pl));
    if (dev.clusters) CHECK((pl.kind == dsp::strategy::registers && pl.cluster == 4));
    run_case(c, rng);
  }
  // Rows one element past a 16-byte boundary whose partial last pack wraps onto the head pack
  // (kernels/thread_packs.cuh), every op, sub-warp groups and a block: the wrapped pack's loads
  // and stores (the residual's among them) and its weights, the other packs' weights read by
  // words (row_io.cuh: load_column_params_by_words).
  for (dtype t : {dtype::f32, dtype::bf16})
    for (int64_t cols : {int64_t{64}, int64_t{4096}})
      for (norm_op op : all_norm_ops) {
        norm_case c = case_of(op, t, 5, cols, stream.get());
        c.layout = offset_both(1);
        combo(c, (k++ * 5) % 16 & ~1);  // with a weight
        run_case(c, rng);
      }
  // Many 16-bit rows held 64 values per thread (policy.hpp wide_rows_rules): 256 threads, the
  // fewest CTAs a wide plan has; and layer_norm over a cluster of 2 such CTAs, weights staged.
  const std::pair<norm_op, int64_t> wide_picks[] = {
      {norm_op::layer_norm, 16384}, {norm_op::rms_norm, 16384}, {norm_op::layer_norm, dev.clusters ? 32768 : 16384}};
  for (const auto& [op, cols] : wide_picks) {
    norm_case c = case_of(op, dtype::bf16, rows_for_wide(dtype::bf16, cols, contiguous(), dev, traits_of(op)), cols,
                          stream.get());
    REQUIRE(c.rows > 0);
    combo(c, (k++ * 5) % 16 & ~1);  // with a weight (staged over the cluster)
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(op));
    INFO(describe(pl));
    CHECK(is_wide(pl));
    run_case(c, rng);
  }
  // fp32 layer_norm rows of 16384 with both weights on one CTA of 256 threads x 64 values
  // (wide_rows_rules), one more row than a wave of them, in place.
  {
    norm_case c = case_of(norm_op::layer_norm, dtype::f32, 2 * dev.sm_count + 1, 16384, stream.get());
    c.layout = in_place();
    combo(c, 0);  // both weights, mean / rstd
    CHECK(is_wide(plan_with_weights(c, dev)));
    run_case(c, rng);
  }
  // Two rows over clusters of 16 CTAs of 512 threads (policy.hpp few_rows_block), both weights
  // staged (128 KiB per CTA), uneven segments.
  {
    norm_case c = case_of(norm_op::layer_norm, dtype::f32, 2, 200000, stream.get());
    combo(c, 0);  // both weights
    const dsp::plan pl = plan_of(c.t, c.rows, c.cols, c.layout, dev, traits_of(c.op));
    INFO(describe(pl));
    if (dev.clusters) CHECK((pl.kind == dsp::strategy::registers && pl.block == 512 && pl.cluster == 16));
    run_case(c, rng);
  }
}
