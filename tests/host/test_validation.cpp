// tests/host/test_validation.cpp — the pure host pieces behind the API's argument checks and its
// choice of vector width, without a GPU: rowwise::status, the validation helpers of
// dispatch/validate.hpp (check_matrix, extent_fits, validate_in_out, vector_fits, eps_valid,
// element_aligned, and every op's whole check: validate_softmax, validate_layer_norm, ...), the
// per-op messages, dispatch/memory_overlap.hpp (share_bytes against a byte-by-byte reference) and
// dispatch/alignment.hpp (same_phase, choose_pack_elems, uniform_head).
// Calling rowwise::softmax itself needs nvcc; tests/gpu/test_*.cpp do that.
#include <catch2/catch.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <rowwise/dispatch/alignment.hpp>
#include <rowwise/dispatch/validate.hpp>
#include <rowwise/status.hpp>
#include <rowwise/views.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace dsp = rowwise::dispatch;
using rowwise::errc;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

template <class Msg>
void check_messages(const char* op) {
  const std::string p = std::string(op) + ": ";
  const char* all[] = {Msg::rows,        Msg::cols,         Msg::in_null,         Msg::out_null,
                       Msg::in_stride,   Msg::out_stride,   Msg::shape,           Msg::in_align,
                       Msg::out_align,   Msg::weight_size,  Msg::gamma_size,      Msg::beta_size,
                       Msg::weight_align, Msg::eps,         Msg::residual_null,   Msg::residual_stride,
                       Msg::residual_shape, Msg::residual_align, Msg::launch,     Msg::device,
                       Msg::plan,        Msg::in_extent,    Msg::out_extent,      Msg::residual_extent,
                       Msg::overlap,     Msg::residual_overlap, Msg::weight_overlap, Msg::gamma_overlap,
                       Msg::beta_overlap, Msg::stats_align, Msg::stats_overlap, Msg::target,
                       Msg::gamma_align, Msg::beta_align, Msg::code_target};
  for (const char* m : all) {
    INFO(m);
    CHECK(starts_with(m, p));
    CHECK(std::strlen(m) > p.size());
  }
}

// Fake device addresses: only their values matter to the pure helpers (never dereferenced).
template <class T>
T* fake(uintptr_t byte_address) {
  return reinterpret_cast<T*>(byte_address);
}

}  // namespace

TEST_CASE("status: success / invalid_argument / unsupported / cuda_error", "[host][validation]") {
  const rowwise::status ok;
  CHECK(ok.ok());
  CHECK(static_cast<bool>(ok));
  CHECK(ok.code() == errc::success);
  CHECK(ok.cuda_error() == cudaSuccess);
  CHECK(std::string(ok.message()) == "success");

  const rowwise::status bad = rowwise::status::invalid("softmax: cols < 1");
  CHECK_FALSE(bad.ok());
  CHECK_FALSE(static_cast<bool>(bad));
  CHECK(bad.code() == errc::invalid_argument);
  CHECK(bad.cuda_error() == cudaSuccess);
  CHECK(std::string(bad.message()) == "softmax: cols < 1");

  const rowwise::status ns = rowwise::status::not_supported("x: no");
  CHECK(ns.code() == errc::unsupported);
  CHECK_FALSE(ns.ok());

  const rowwise::status launch = rowwise::status::from_cuda(cudaErrorInvalidConfiguration, "softmax: kernel launch failed");
  CHECK(launch.code() == errc::cuda_error);
  CHECK(launch.cuda_error() == cudaErrorInvalidConfiguration);
  CHECK_FALSE(launch.ok());
  CHECK(std::string(launch.message()) == "softmax: kernel launch failed");

  const rowwise::status fine = rowwise::status::from_cuda(cudaSuccess, "softmax: kernel launch failed");
  CHECK(fine.ok());
  CHECK(fine.code() == errc::success);
}

TEST_CASE("validation messages: every message of every op names the op", "[host][validation]") {
  check_messages<dsp::softmax_messages>("softmax");
  check_messages<dsp::log_softmax_messages>("log_softmax");
  check_messages<dsp::layer_norm_messages>("layer_norm");
  check_messages<dsp::rms_norm_messages>("rms_norm");
  check_messages<dsp::fused_add_rms_norm_messages>("fused_add_rms_norm");
}

TEST_CASE("check_matrix: rows >= 0 / cols >= 1 / data when rows > 0 / row_stride >= cols / element alignment",
          "[host][validation]") {
  using M = dsp::softmax_messages;
  auto check = [](const auto& m) {
    return dsp::check_matrix(m, M::in_null, M::in_stride, M::in_align, M::rows, M::cols, M::in_extent);
  };
  float* p = fake<float>(0x10000);
  CHECK(check(rowwise::matrix(p, 4, 100)) == nullptr);
  CHECK(check(rowwise::matrix(p, 4, 100, 100)) == nullptr);
  CHECK(check(rowwise::matrix(p, 4, 100, 1000)) == nullptr);
  CHECK(check(rowwise::matrix(p, 4, 1, 1)) == nullptr);
  CHECK(check(rowwise::matrix(p + 1, 4, 100, 101)) == nullptr);  // element-aligned offsets are fine
  CHECK(check(rowwise::matrix(p, 0, 100)) == nullptr);           // 0 rows
  CHECK(check(rowwise::matrix<float>(nullptr, 0, 100)) == nullptr);  // 0 rows, no data: fine
  CHECK(check(rowwise::matrix(p, int64_t{1} << 40, 7, 7)) == nullptr);

  CHECK(check(rowwise::matrix(p, -1, 100)) == M::rows);
  CHECK(check(rowwise::matrix(p, 4, 0)) == M::cols);
  CHECK(check(rowwise::matrix(p, 4, -5, 10)) == M::cols);
  CHECK(check(rowwise::matrix(p, 0, 0)) == M::cols);  // cols < 1 is invalid even with 0 rows
  CHECK(check(rowwise::matrix<float>(nullptr, 1, 100)) == M::in_null);
  CHECK(check(rowwise::matrix(p, 4, 100, 99)) == M::in_stride);
  CHECK(check(rowwise::matrix(p, 4, 100, 0)) == M::in_stride);
  CHECK(check(rowwise::matrix(p, 4, 100, -100)) == M::in_stride);
  CHECK(check(rowwise::matrix(fake<float>(0x10002), 4, 100)) == M::in_align);
  CHECK(check(rowwise::matrix(fake<__half>(0x10001), 4, 100)) == M::in_align);
  CHECK(check(rowwise::matrix(fake<__half>(0x10002), 4, 100)) == nullptr);
  CHECK(check(rowwise::matrix(fake<__nv_bfloat16>(0x10003), 4, 100)) == M::in_align);
  // Rows past the address space: the span overflows int64_t bytes, or wraps past the end.
  CHECK(check(rowwise::matrix(p, int64_t{1} << 40, 7, int64_t{1} << 30)) == M::in_extent);
  CHECK(check(rowwise::matrix(p, 3, 7, std::numeric_limits<int64_t>::max() / 2)) == M::in_extent);
  CHECK(check(rowwise::matrix(fake<float>(UINTPTR_MAX - 63), 2, 8)) == M::in_extent);
  CHECK(check(rowwise::matrix(fake<float>(UINTPTR_MAX - 63), 2, 8, 8)) == M::in_extent);
  // One past the last byte must be an address (the overlap test compares ends).
  CHECK(check(rowwise::matrix(fake<float>(UINTPTR_MAX - 63), 1, 15)) == nullptr);
  CHECK(check(rowwise::matrix(fake<float>(UINTPTR_MAX - 63), 1, 16)) == M::in_extent);
  CHECK(check(rowwise::matrix(p, 1, int64_t{1} << 60, int64_t{1} << 60)) == nullptr);  // 2^62 bytes fit
  CHECK(check(rowwise::matrix(p, 1, int64_t{1} << 61, int64_t{1} << 61)) == M::in_extent);  // 2^63 do not
}

TEST_CASE("validate_in_out: the input first then the shapes then the output", "[host][validation]") {
  using M = dsp::layer_norm_messages;
  const float* in = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  CHECK(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix(out, 3, 7)).ok());
  CHECK(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7, 9), rowwise::matrix(out, 3, 7, 13)).ok());
  // In place, through the mutable -> const view conversion.
  const rowwise::matrix_view<const float> as_const = rowwise::matrix(out, 3, 7);
  CHECK(dsp::validate_in_out<M>(as_const, rowwise::matrix(out, 3, 7)).ok());

  auto msg = [](rowwise::status s) { return std::string(s.message()); };
  const rowwise::status rows = dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix(out, 2, 7));
  CHECK(rows.code() == errc::invalid_argument);
  CHECK(msg(rows) == M::shape);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix(out, 3, 8))) == M::shape);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix<const float>(nullptr, 3, 7), rowwise::matrix(out, 3, 7))) == M::in_null);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix<float>(nullptr, 3, 7))) == M::out_null);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7, 6), rowwise::matrix(out, 3, 7))) == M::in_stride);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix(out, 3, 7, 6))) == M::out_stride);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, -3, 7), rowwise::matrix(out, -3, 7))) == M::rows);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 0), rowwise::matrix(out, 3, 0))) == M::cols);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(fake<const float>(0x10001), 3, 7), rowwise::matrix(out, 3, 7))) ==
        M::in_align);
  CHECK(msg(dsp::validate_in_out<M>(rowwise::matrix(in, 3, 7), rowwise::matrix(fake<float>(0x20001), 3, 7))) ==
        M::out_align);
  // 0 rows: no data needed on either side.
  CHECK(dsp::validate_in_out<M>(rowwise::matrix<const float>(nullptr, 0, 7), rowwise::matrix<float>(nullptr, 0, 7)).ok());
}

TEST_CASE("vector_fits: absent (null or size 0) or exactly cols elements", "[host][validation]") {
  const float* w = fake<const float>(0x30000);
  CHECK(dsp::vector_fits(rowwise::vector(w, 100), 100));
  CHECK(dsp::vector_fits(rowwise::vector<const float>(nullptr, 0), 100));
  CHECK(dsp::vector_fits(rowwise::vector<const float>(nullptr, 100), 100));
  CHECK(dsp::vector_fits(rowwise::vector(w, 0), 100));  // size 0: absent
  CHECK_FALSE(dsp::vector_fits(rowwise::vector(w, 99), 100));
  CHECK_FALSE(dsp::vector_fits(rowwise::vector(w, 101), 100));
  CHECK_FALSE(dsp::vector_fits(rowwise::vector(w, -1), 100));
  CHECK(rowwise::vector(w, 5).present());
  CHECK_FALSE(rowwise::vector(w, 0).present());
  CHECK_FALSE(rowwise::vector<const float>(nullptr, 5).present());
  CHECK(dsp::element_aligned(fake<const float>(0x30004)));
  CHECK_FALSE(dsp::element_aligned(fake<const float>(0x30002)));
  CHECK(dsp::element_aligned(fake<const __half>(0x30002)));
  CHECK_FALSE(dsp::element_aligned(fake<const __half>(0x30001)));
  CHECK(dsp::element_aligned<float>(nullptr));
}

TEST_CASE("eps_valid: finite and >= 0", "[host][validation]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(dsp::eps_valid(0.0f));
  CHECK(dsp::eps_valid(-0.0f));
  CHECK(dsp::eps_valid(1e-5f));
  CHECK(dsp::eps_valid(1e-45f));  // a subnormal
  CHECK(dsp::eps_valid(std::numeric_limits<float>::max()));
  CHECK_FALSE(dsp::eps_valid(-1e-30f));
  CHECK_FALSE(dsp::eps_valid(-1.0f));
  CHECK_FALSE(dsp::eps_valid(inf));
  CHECK_FALSE(dsp::eps_valid(-inf));
  CHECK_FALSE(dsp::eps_valid(std::numeric_limits<float>::quiet_NaN()));
  CHECK_FALSE(dsp::eps_valid(-std::numeric_limits<float>::quiet_NaN()));
}

TEST_CASE("choose_pack_elems: the 16-byte pack when every matrix is in the same phase (else 1)",
          "[host][validation][alignment]") {
  const uintptr_t a = 0x100000, b = 0x200000;  // 256-byte aligned, like cudaMalloc
  SECTION("fp32 (pack 4)") {
    const int eb = 4, n = 4;
    auto pick = [&](uintptr_t in, int64_t in_stride, uintptr_t out, int64_t out_stride) {
      const dsp::row_layout l[] = {{in, in_stride}, {out, out_stride}};
      return dsp::choose_pack_elems(l, 2, eb, n);
    };
    CHECK(pick(a, 1000, b, 1000) == 4);
    CHECK(pick(a + 4, 1000, b + 4, 1000) == 4);        // both offset by 1 element: same phase
    CHECK(pick(a + 12, 1000, b + 12, 1000) == 4);      // both offset by 3
    CHECK(pick(a + 4, 1000, b, 1000) == 1);            // only the input offset
    CHECK(pick(a, 1000, b + 4, 1000) == 1);            // only the output offset (address below the input's phase)
    CHECK(pick(a + 8, 1000, b, 1000) == 1);            // offset by 2: no intermediate width
    CHECK(pick(a + 16, 1000, b, 1000) == 4);           // offset by a whole pack
    CHECK(pick(a, 1001, b, 1001) == 4);                // odd strides, equal: rows stay in phase
    CHECK(pick(a, 1001, b, 1005) == 4);                // strides equal mod 4
    CHECK(pick(a, 1008, b, 1013) == 1);                // strides differ mod 4
    CHECK(pick(a, 1013, b, 1008) == 1);                // ... whichever is larger
    CHECK(pick(b, 1000, a, 1000) == 4);                // the output below the input
    CHECK(pick(a, 1000, a, 1000) == 4);                // in place
    CHECK(pick(a + 4, 1003, a + 4, 1003) == 4);        // in place, offset, odd stride
  }
  SECTION("fp16 / bf16 (pack 8)") {
    const int eb = 2, n = 8;
    auto pick = [&](uintptr_t in, int64_t in_stride, uintptr_t out, int64_t out_stride) {
      const dsp::row_layout l[] = {{in, in_stride}, {out, out_stride}};
      return dsp::choose_pack_elems(l, 2, eb, n);
    };
    CHECK(pick(a, 4096, b, 4096) == 8);
    CHECK(pick(a + 2, 4096, b + 2, 4096) == 8);
    CHECK(pick(a + 2, 4096, b, 4096) == 1);
    CHECK(pick(a + 8, 4096, b, 4096) == 1);            // 4 elements apart: not a whole pack
    CHECK(pick(a + 16, 4096, b, 4096) == 8);           // 8 elements apart
    CHECK(pick(a, 4097, b, 4105) == 8);
    CHECK(pick(a, 4097, b, 4101) == 1);
  }
  SECTION("three matrices (fused_add_rms_norm's x and residual, or more)") {
    const dsp::row_layout same[] = {{a + 4, 100}, {b + 4, 100}, {a + 0x10004, 104}};
    CHECK(dsp::choose_pack_elems(same, 3, 4, 4) == 4);
    const dsp::row_layout third_off[] = {{a, 100}, {b, 100}, {a + 0x10004, 100}};
    CHECK(dsp::choose_pack_elems(third_off, 3, 4, 4) == 1);
    const dsp::row_layout one[] = {{a + 4, 101}};
    CHECK(dsp::choose_pack_elems(one, 1, 4, 4) == 4);  // a lone matrix is always in phase with itself
  }
  SECTION("same_phase at every width") {
    const dsp::row_layout l[] = {{a + 2 * 4, 64}, {b + 6 * 4, 68}};  // 4 elements apart, strides differ by 4
    CHECK(dsp::same_phase(l, 2, 4, 1));
    CHECK(dsp::same_phase(l, 2, 4, 2));
    CHECK(dsp::same_phase(l, 2, 4, 4));
    CHECK_FALSE(dsp::same_phase(l, 2, 4, 8));
  }
}

TEST_CASE("uniform_head: the head every row shares (-1 when the stride moves it)", "[host][validation][alignment]") {
  const uintptr_t a = 0x100000;
  CHECK(dsp::uniform_head({a, 1024}, 4, 4) == 0);
  CHECK(dsp::uniform_head({a + 4, 1024}, 4, 4) == 1);
  CHECK(dsp::uniform_head({a + 12, 1024}, 4, 4) == 3);
  CHECK(dsp::uniform_head({a + 12, 1025}, 4, 4) == -1);  // rows start at different phases
  CHECK(dsp::uniform_head({a + 14, 4096}, 2, 8) == 7);
  CHECK(dsp::uniform_head({a + 14, 4100}, 2, 8) == -1);
  CHECK(dsp::uniform_head({a + 4, 1025}, 4, 1) == 0);    // pack 1: no head
}

namespace {

/// The bytes of `r` as a set over [0, size): the reference share_bytes is checked against.
std::vector<bool> byte_set(const dsp::byte_runs& r, size_t size) {
  std::vector<bool> set(size, false);
  if (r.empty()) return set;
  for (int64_t i = 0; i < r.runs; ++i)
    for (int64_t b = 0; b < r.run; ++b) set.at(static_cast<size_t>(r.begin + i * r.stride + b)) = true;
  return set;
}

}  // namespace

TEST_CASE("share_bytes: against the byte sets of random runs (vectors, same and different strides)",
          "[host][validation][overlap]") {
  std::mt19937_64 rng(20261201);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t shared = 0, same_stride = 0, different_refused = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    dsp::byte_runs r[2];
    const int64_t common_stride = pick(1, 24);
    for (dsp::byte_runs& x : r) {
      x.begin = static_cast<uintptr_t>(pick(1, 160));
      x.runs = pick(0, 4) == 0 ? 1 : pick(1, 6);
      x.run = pick(1, 16);
      x.stride = trial % 2 == 0 ? common_stride : pick(1, 24);
      if (x.stride < x.run) x.stride = x.run;
      if (x.runs == 1) x.stride = x.run;
    }
    const std::vector<bool> a = byte_set(r[0], 512), b = byte_set(r[1], 512);
    bool truth = false;
    for (size_t i = 0; i < a.size(); ++i) truth = truth || (a[i] && b[i]);
    const bool got = dsp::share_bytes(r[0], r[1]);
    INFO("a: begin " << r[0].begin << " runs " << r[0].runs << " run " << r[0].run << " stride " << r[0].stride
                     << "; b: begin " << r[1].begin << " runs " << r[1].runs << " run " << r[1].run << " stride "
                     << r[1].stride);
    REQUIRE(dsp::share_bytes(r[1], r[0]) == got);  // symmetric
    const bool exact = r[0].runs == 1 || r[1].runs == 1 || r[0].stride == r[1].stride;
    if (exact) {
      REQUIRE(got == truth);
      same_stride += r[0].runs > 1 && r[1].runs > 1;
    } else {
      // Different strides: never a missed overlap; a refusal only where the spans intersect.
      if (truth) REQUIRE(got);
      const bool spans_meet = r[0].begin < r[1].end() && r[1].begin < r[0].end();
      REQUIRE(got == spans_meet);
      different_refused += got && !truth;
    }
    shared += truth;
  }
  // The draw must exercise both answers and the exact same-stride path.
  CHECK(shared > 20000);
  CHECK(shared < 180000);
  CHECK(same_stride > 20000);
  CHECK(different_refused > 0);
}

TEST_CASE("share_bytes: empty arguments share nothing; an absent vector or null statistic is empty",
          "[host][validation][overlap]") {
  const dsp::byte_runs m = dsp::bytes_of(rowwise::matrix(fake<float>(0x1000), 4, 8));
  CHECK(dsp::share_bytes(m, m));
  CHECK_FALSE(dsp::share_bytes(m, dsp::bytes_of(rowwise::matrix(fake<float>(0x1000), 0, 8))));
  CHECK_FALSE(dsp::share_bytes(m, dsp::bytes_of(rowwise::vector(fake<const float>(0x1000), 0))));
  CHECK_FALSE(dsp::share_bytes(m, dsp::bytes_of(rowwise::vector<const float>(nullptr, 8))));
  CHECK_FALSE(dsp::share_bytes(m, dsp::bytes_of(static_cast<const float*>(nullptr), 4)));
  CHECK(dsp::share_bytes(m, dsp::bytes_of(fake<const float>(0x1000 + 4 * 31), 1)));   // the last element
  CHECK_FALSE(dsp::share_bytes(m, dsp::bytes_of(fake<const float>(0x1000 + 4 * 32), 1)));
}

TEST_CASE("validate_softmax: in place or disjoint; a shifted or re-strided output over the input is refused",
          "[host][validation][overlap]") {
  using M = dsp::softmax_messages;
  float* buf = fake<float>(0x100000);
  auto in = [&](int64_t offset, int64_t stride) { return rowwise::matrix<const float>(buf + offset, 8, 64, stride); };
  auto out = [&](int64_t offset, int64_t stride) { return rowwise::matrix(buf + offset, 8, 64, stride); };
  auto msg = [](rowwise::status s) { return s.ok() ? std::string("ok") : std::string(s.message()); };
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(0, 64))) == "ok");      // in place
  CHECK(msg(dsp::validate_softmax<M>(in(0, 100), out(0, 100))) == "ok");    // in place, strided
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(512, 64))) == "ok");    // right after the input
  CHECK(msg(dsp::validate_softmax<M>(in(0, 128), out(64, 128))) == "ok");   // interleaved rows
  CHECK(msg(dsp::validate_softmax<M>(in(0, 192), out(64, 192))) == "ok");   // q / k slices of one qkv buffer
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(1, 64))) == M::overlap);     // shifted by one element
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(511, 64))) == M::overlap);   // last element shared
  CHECK(msg(dsp::validate_softmax<M>(in(0, 128), out(63, 128))) == M::overlap);  // interleaved, one too early
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(0, 65))) == M::overlap);     // same data, other stride
  CHECK(msg(dsp::validate_softmax<M>(in(0, 128), out(64, 129))) == M::overlap);  // different strides, spans meet
  CHECK(msg(dsp::validate_softmax<M>(in(0, 64), out(-512, 64))) == "ok");        // right before the input
  // One row: in place whatever the strides say (they name no element).
  CHECK(dsp::validate_softmax<M>(rowwise::matrix<const float>(buf, 1, 64, 64), rowwise::matrix(buf, 1, 64, 80)).ok());
  CHECK(msg(dsp::validate_softmax<M>(rowwise::matrix<const float>(buf, 1, 64, 64), rowwise::matrix(buf + 1, 1, 64, 80))) ==
        M::overlap);
  // Argument errors come first, as before.
  CHECK(msg(dsp::validate_softmax<M>(in(0, 63), out(1, 64))) == M::in_stride);
  // 0 rows: nothing is touched.
  CHECK(dsp::validate_softmax<M>(rowwise::matrix<const float>(buf, 0, 64), rowwise::matrix(buf + 1, 0, 64)).ok());
}

TEST_CASE("validate_layer_norm: weights outside the output, statistics apart from everything",
          "[host][validation][overlap]") {
  using M = dsp::layer_norm_messages;
  constexpr int64_t rows = 4, cols = 32;
  const float* in = fake<const float>(0x100000);
  float* out = fake<float>(0x200000);
  const float* g = fake<const float>(0x300000);
  const float* b = fake<const float>(0x300100);
  float* mean = fake<float>(0x400000);
  float* rstd = fake<float>(0x400010);
  auto msg = [](rowwise::status s) { return s.ok() ? std::string("ok") : std::string(s.message()); };
  auto call = [&](const float* in_p, float* out_p, int64_t stride, const float* g_p, const float* b_p, float* m_p,
                  float* r_p) {
    return msg(dsp::validate_layer_norm<M>(rowwise::matrix(in_p, rows, cols, stride),
                                           rowwise::matrix(out_p, rows, cols, stride), rowwise::vector(g_p, cols),
                                           rowwise::vector(b_p, cols), 1e-5f, m_p, r_p));
  };
  CHECK(call(in, out, cols, g, b, mean, rstd) == "ok");
  CHECK(call(in, out, cols, g, b, nullptr, nullptr) == "ok");
  CHECK(call(out, out, cols, g, b, mean, rstd) == "ok");  // in place
  CHECK(call(in, out, cols, nullptr, nullptr, mean, rstd) == "ok");  // no weights
  CHECK(call(in, out, 2 * cols, out + cols, out + cols + 64, mean, rstd) == "ok");   // weights in the rows' gap
  CHECK(call(in, out, cols, g, b, const_cast<float*>(in) + 1000, out + 5000) == "ok");   // statistics past the matrices
  CHECK(call(in, out + 1, cols, g, b, mean, rstd) == "ok");           // disjoint (different buffers)
  CHECK(call(in, out, cols, out + 3 * cols, b, mean, rstd) == M::gamma_overlap);
  CHECK(call(in, out, 2 * cols, g, out + cols - 1, mean, rstd) == M::beta_overlap);  // one element into row 0
  CHECK(call(in, out, cols, g, b, out + 100, rstd) == M::stats_overlap);
  CHECK(call(in, out, cols, g, b, mean, const_cast<float*>(in) + rows * cols - 1) == M::stats_overlap);
  CHECK(call(in, out, cols, g, b, const_cast<float*>(g) + 31, rstd) == M::stats_overlap);
  CHECK(call(in, out, cols, g, b, mean, mean + 3) == M::stats_overlap);  // rstd inside mean's 4 floats
  CHECK(call(in, out, cols, g, b, mean, mean + 4) == "ok");
  CHECK(call(in, out, cols, g, b, fake<float>(0x400002), rstd) == M::stats_align);
  CHECK(call(in, out, cols, g, b, mean, fake<float>(0x400013)) == M::stats_align);
  CHECK(call(in, const_cast<float*>(in) + 5, cols, g, b, mean, rstd) == M::overlap);
  // Each weight's alignment under its own name; an absent one (size 0) is never read, so its
  // pointer is not checked. With 0 rows nothing is written to the statistics.
  CHECK(call(in, out, cols, fake<const float>(0x300002), b, mean, rstd) == M::gamma_align);
  CHECK(call(in, out, cols, g, fake<const float>(0x300102), mean, rstd) == M::beta_align);
  CHECK(msg(dsp::validate_layer_norm<M>(rowwise::matrix(in, rows, cols), rowwise::matrix(out, rows, cols),
                                        rowwise::vector(fake<const float>(0x300002), 0),
                                        rowwise::vector(fake<const float>(0x300102), 0), 1e-5f, mean, rstd)) == "ok");
  CHECK(msg(dsp::validate_layer_norm<M>(rowwise::matrix(in, 0, cols), rowwise::matrix(out, 0, cols),
                                        rowwise::vector(g, cols), rowwise::vector(b, cols), 1e-5f,
                                        fake<float>(0x400002), fake<float>(0x400013))) == "ok");
  // Earlier errors keep their order: a short gamma inside the output is a size error.
  CHECK(msg(dsp::validate_layer_norm<M>(rowwise::matrix(in, rows, cols), rowwise::matrix(out, rows, cols),
                                        rowwise::vector<const float>(out, cols - 1), rowwise::vector(b, cols), 1e-5f,
                                        mean, rstd)) == M::gamma_size);
}

TEST_CASE("validate_rms_norm / validate_fused_add_rms_norm: the weight outside what is written; x and residual apart",
          "[host][validation][overlap]") {
  constexpr int64_t rows = 4, cols = 32;
  auto msg = [](rowwise::status s) { return s.ok() ? std::string("ok") : std::string(s.message()); };
  {
    using M = dsp::rms_norm_messages;
    const float* in = fake<const float>(0x100000);
    float* out = fake<float>(0x200000);
    auto call = [&](const float* in_p, float* out_p, const float* w) {
      return msg(dsp::validate_rms_norm<M>(rowwise::matrix(in_p, rows, cols), rowwise::matrix(out_p, rows, cols),
                                           rowwise::vector(w, cols), 1e-6f));
    };
    CHECK(call(in, out, fake<const float>(0x300000)) == "ok");
    CHECK(call(out, out, fake<const float>(0x300000)) == "ok");
    CHECK(call(in, out, in) == "ok");  // the weight may be read from the input
    CHECK(call(in, out, out + rows * cols - 1) == M::weight_overlap);
    CHECK(call(in, out, out - cols) == "ok");  // ends where the output begins
    CHECK(call(in, out, out - cols + 1) == M::weight_overlap);
    CHECK(call(in, const_cast<float*>(in) + cols * rows - 1, fake<const float>(0x300000)) == M::overlap);
    CHECK(call(in, out, fake<const float>(0x300002)) == M::weight_align);
    // An absent weight (size 0) is never read: its pointer is not checked.
    CHECK(msg(dsp::validate_rms_norm<M>(rowwise::matrix(in, rows, cols), rowwise::matrix(out, rows, cols),
                                        rowwise::vector(fake<const float>(0x300002), 0), 1e-6f)) == "ok");
  }
  {
    using M = dsp::fused_add_rms_norm_messages;
    __nv_bfloat16* x = fake<__nv_bfloat16>(0x100000);
    __nv_bfloat16* res = fake<__nv_bfloat16>(0x200000);
    const float* w = fake<const float>(0x300000);
    auto call = [&](__nv_bfloat16* x_p, __nv_bfloat16* r_p, int64_t stride, const void* w_p) {
      return msg(dsp::validate_fused_add_rms_norm<M>(rowwise::matrix(x_p, rows, cols, stride),
                                                     rowwise::matrix(r_p, rows, cols, stride),
                                                     rowwise::vector(static_cast<const float*>(w_p), cols), 1e-6f));
    };
    CHECK(call(x, res, cols, w) == "ok");
    CHECK(call(x, x + cols, 2 * cols, w) == "ok");     // interleaved rows of one buffer
    CHECK(call(x, x, cols, w) == M::residual_overlap);  // the same matrix: both are written
    CHECK(call(x, x + 1, cols, w) == M::residual_overlap);
    CHECK(call(x, res, cols, x + 8) == M::weight_overlap);
    CHECK(call(x, res, cols, res + 8) == M::weight_overlap);
    CHECK(call(x, res, 4 * cols, x + cols) == "ok");          // 32 floats in x's gap of 3 x 32 bf16
    CHECK(call(x, res, 2 * cols, x + cols) == M::weight_overlap);  // 128 bytes over a 64-byte gap
    CHECK(msg(dsp::validate_fused_add_rms_norm<M>(rowwise::matrix(x, rows, cols),
                                                  rowwise::matrix(fake<__nv_bfloat16>(UINTPTR_MAX - 15), rows, cols),
                                                  rowwise::vector(w, cols), 1e-6f)) == M::residual_extent);
    // Errors in x name x (it is both the input and the output).
    CHECK(msg(dsp::validate_fused_add_rms_norm<M>(rowwise::matrix<__nv_bfloat16>(nullptr, rows, cols),
                                                  rowwise::matrix(res, rows, cols), rowwise::vector(w, cols), 1e-6f)) ==
          "fused_add_rms_norm: x data is null while rows > 0");
    CHECK(msg(dsp::validate_fused_add_rms_norm<M>(rowwise::matrix(x, rows, cols, cols - 1),
                                                  rowwise::matrix(res, rows, cols), rowwise::vector(w, cols), 1e-6f)) ==
          "fused_add_rms_norm: x row_stride < cols");
  }
}
