// tests/gpu_compute80/test_compute80.cpp — rowwise compiled for compute_80 PTX only, run on
// whatever GPU is present (on an sm_90 GPU: the driver's JIT of that PTX), in one program with a
// second build of rowwise compiled for the project's own targets (api_builds.hpp).
//
// The defect this guards against: the dispatch planned for the device (sm_90: rows split over
// thread-block clusters, the staged kernel) while the loaded kernels were sm_80 code without
// clusters, which saw one CTA per cluster and left the other segments of each row unwritten. The
// shapes below are ones the device's own plan would split over clusters or stage; each call is
// checked against the fp64 reference, with poisoned outputs whose bytes outside the rows must stay
// untouched. The last case runs the same op through both builds, one after the other: each must
// run its own kernels under a plan for them (the inline ABI namespace of rowwise/abi.hpp keeps the
// two builds' instances apart).
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_compute80/api_builds.hpp"
#include "support/device_matrix.hpp"
#include "support/inputs.hpp"
#include "support/reference.hpp"
#include "support/tolerance.hpp"

namespace {

using namespace rowwise_test;

struct shape {
  int64_t rows, cols;
};

/// rows x cols uniform in [-s, s), quantized through t.
std::vector<double> random_rows(dtype t, int64_t rows, int64_t cols, double s, seeded_rng& rng) {
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (double& v : x) v = rng.uniform(-s, s);
  quantize(t, x.data(), x.size());
  return x;
}

/// The target a build's dispatch reads for its rowwise kernels on the current device.
int code_arch_now(const rowwise_build& build) {
  int arch = 0;
  RW_CUDA(build.loaded_code_arch(arch));
  return arch;
}

/// The device's own plan splits the shape over a cluster or stages it (only on sm_90+ devices:
/// elsewhere the sm_80 code is the device's own and there is nothing to lower); the plan for the
/// loaded code does neither.
void check_plans(dtype t, const shape& s, op_traits op, int arch) {
  const dsp::device_limits dev = device_limits_now();
  const dsp::plan native = plan_of(t, s.rows, s.cols, contiguous(), dev, op);
  const dsp::plan loaded = plan_of(t, s.rows, s.cols, contiguous(), dsp::limits_for_code(dev, arch), op);
  INFO("device's plan: " << describe(native));
  INFO("loaded code's plan: " << describe(loaded));
  if (dev.cc_major >= 9) CHECK((native.cluster > 1 || native.kind == dsp::strategy::staged));
  CHECK(loaded.valid);
  CHECK(loaded.cluster == 1);
  CHECK(loaded.kind != dsp::strategy::staged);
}

void check_output(device_matrix& out, const std::vector<double>& ref, tolerance tol) {
  const std::vector<double> got = out.download();
  const check_result res = check_close(ref.data(), got.data(), out.rows(), out.cols(), tol);
  INFO(describe(res));
  CHECK(res.ok);
  const std::string gaps = out.untouched_report();
  INFO("output bytes outside the rows, and unwritten elements: " << (gaps.empty() ? "none" : gaps));
  CHECK(gaps.empty());
}

/// softmax fp32 of rows x cols through one build, against fp64 (rows strided by cols + 4, the gap
/// poisoned and checked untouched).
void check_softmax(const rowwise_build& build, const shape& s, seeded_rng& rng) {
  INFO(build.name << " (" << build.abi_namespace << "): softmax fp32 " << s.rows << " x " << s.cols);
  const std::vector<double> x = random_rows(dtype::f32, s.rows, s.cols, 8.0, rng);
  device_matrix in(dtype::f32, s.rows, s.cols, s.cols + 4, 0);
  device_matrix out(dtype::f32, s.rows, s.cols, s.cols + 4, 0);
  in.upload(x);
  const rowwise::status st = build.softmax_f32(static_cast<const float*>(in.data()), static_cast<float*>(out.data()),
                                               s.rows, s.cols, in.stride(), 0);
  INFO("status: " << st.message());
  REQUIRE(st.ok());
  RW_CUDA(cudaDeviceSynchronize());
  std::vector<double> ref(x.size());
  for (int64_t r = 0; r < s.rows; ++r) softmax_ref(x.data() + r * s.cols, s.cols, ref.data() + r * s.cols);
  check_output(out, ref, default_tolerance(op_kind::softmax, mantissa_bits(dtype::f32), s.cols));
}

}  // namespace

TEST_CASE("compute_80 code on this GPU: the dispatch reads its kernels' target as sm_80 (the PTX it was built "
          "with, JIT-compiled here)",
          "[gpu][compute80]") {
  const int arch = code_arch_now(compute80_build);
  INFO("loaded code arch " << arch);
  CHECK(arch == 80);
}

TEST_CASE("compute_80 code: softmax fp32 of rows the device would split over clusters or stage", "[gpu][compute80]") {
  const int arch = code_arch_now(compute80_build);
  seeded_rng rng("compute80 softmax");
  INFO(rng.describe());
  for (const shape s : {shape{1, 8192}, shape{1, 152064}, shape{8, 152064}, shape{1, 1 << 20}, shape{600, 65536}, shape{100, 262144}}) {
    check_plans(dtype::f32, s, softmax_traits, arch);
    check_softmax(compute80_build, s, rng);
  }
}

TEST_CASE("compute_80 code: layer_norm and rms_norm bf16 of rows the device would split over clusters or stage",
          "[gpu][compute80]") {
  const int arch = code_arch_now(compute80_build);
  seeded_rng rng("compute80 norms");
  INFO(rng.describe());
  const float eps = 1e-5f;
  for (const shape s : {shape{1, 32768}, shape{2, 65536}, shape{4, 131072}}) {
    INFO("layer_norm bf16, fp32 gamma and beta, " << s.rows << " x " << s.cols);
    check_plans(dtype::bf16, s, weighted_op, arch);
    const std::vector<double> x = random_rows(dtype::bf16, s.rows, s.cols, 4.0, rng);
    std::vector<double> gamma(static_cast<size_t>(s.cols)), beta(static_cast<size_t>(s.cols));
    for (double& v : gamma) v = rng.uniform(-2.0, 2.0);
    for (double& v : beta) v = rng.uniform(-1.0, 1.0);
    quantize(dtype::f32, gamma.data(), gamma.size());
    quantize(dtype::f32, beta.data(), beta.size());
    const device_buffer gamma_d = upload_vector(dtype::f32, gamma), beta_d = upload_vector(dtype::f32, beta);
    device_buffer stats(static_cast<size_t>(2 * s.rows) * sizeof(float));
    stats.fill(0xFF);  // NaN until written
    device_matrix in(dtype::bf16, s.rows, s.cols, s.cols, 0);
    device_matrix out(dtype::bf16, s.rows, s.cols, s.cols, 0);
    in.upload(x);
    float* mean_d = reinterpret_cast<float*>(stats.get());
    const rowwise::status st = compute80_build.layer_norm_bf16(
        static_cast<const uint16_t*>(in.data()), static_cast<uint16_t*>(out.data()), s.rows, s.cols, in.stride(),
        reinterpret_cast<const float*>(gamma_d.get()), reinterpret_cast<const float*>(beta_d.get()), eps, mean_d,
        mean_d + s.rows, 0);
    INFO("status: " << st.message());
    REQUIRE(st.ok());
    RW_CUDA(cudaDeviceSynchronize());
    std::vector<double> ref(x.size()), means(static_cast<size_t>(s.rows)), rstds(static_cast<size_t>(s.rows));
    for (int64_t r = 0; r < s.rows; ++r)
      layer_norm_ref(x.data() + r * s.cols, s.cols, gamma.data(), beta.data(), eps, ref.data() + r * s.cols,
                     &means[static_cast<size_t>(r)], &rstds[static_cast<size_t>(r)]);
    const tolerance base = default_tolerance(op_kind::layer_norm, mantissa_bits(dtype::bf16), s.cols);
    check_output(out, ref, layer_norm_row_tolerance(base, means.data(), rstds.data(), s.rows, 2.0));
    // mean / rstd: fp32 statistics of the whole row (a row normalised by a segment's statistics
    // would be off by far more than fp32 rounding).
    std::vector<float> got(static_cast<size_t>(2 * s.rows));
    RW_CUDA(cudaMemcpy(got.data(), stats.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int64_t r = 0; r < s.rows; ++r) {
      const double m = got[static_cast<size_t>(r)], rs = got[static_cast<size_t>(s.rows + r)];
      INFO("row " << r << ": mean " << m << " (reference " << means[static_cast<size_t>(r)] << "), rstd " << rs
                  << " (reference " << rstds[static_cast<size_t>(r)] << ")");
      CHECK(std::fabs(m - means[static_cast<size_t>(r)]) <= 1e-4 / rstds[static_cast<size_t>(r)]);
      CHECK(std::fabs(rs - rstds[static_cast<size_t>(r)]) <= 1e-4 * rstds[static_cast<size_t>(r)]);
    }
  }
  for (const shape s : {shape{1, 8192}, shape{16, 131072}, shape{2000, 65536}}) {
    INFO("rms_norm bf16, bf16 weight, " << s.rows << " x " << s.cols);
    check_plans(dtype::bf16, s, rms_op, arch);
    const std::vector<double> x = random_rows(dtype::bf16, s.rows, s.cols, 4.0, rng);
    std::vector<double> w(static_cast<size_t>(s.cols));
    for (double& v : w) v = rng.uniform(-2.0, 2.0);
    quantize(dtype::bf16, w.data(), w.size());
    const device_buffer w_d = upload_vector(dtype::bf16, w);
    device_matrix in(dtype::bf16, s.rows, s.cols, s.cols, 0);
    device_matrix out(dtype::bf16, s.rows, s.cols, s.cols, 0);
    in.upload(x);
    const rowwise::status st = compute80_build.rms_norm_bf16(static_cast<const uint16_t*>(in.data()),
                                                        static_cast<uint16_t*>(out.data()), s.rows, s.cols, in.stride(),
                                                        reinterpret_cast<const uint16_t*>(w_d.get()), eps, 0);
    INFO("status: " << st.message());
    REQUIRE(st.ok());
    RW_CUDA(cudaDeviceSynchronize());
    std::vector<double> ref(x.size());
    for (int64_t r = 0; r < s.rows; ++r) rms_norm_ref(x.data() + r * s.cols, s.cols, w.data(), eps, ref.data() + r * s.cols);
    check_output(out, ref, default_tolerance(op_kind::rms_norm, mantissa_bits(dtype::bf16), s.cols));
  }
}

TEST_CASE("two builds of rowwise in one program (compute_80 PTX and the project's targets): each runs its own "
          "kernels under its own plan",
          "[gpu][compute80]") {
  INFO(compute80_build.name << ": " << compute80_build.abi_namespace << ", " << native_build.name << ": "
                            << native_build.abi_namespace);
  REQUIRE(std::string(compute80_build.abi_namespace) != native_build.abi_namespace);
  const int arch80 = code_arch_now(compute80_build), native = code_arch_now(native_build);
  const dsp::device_limits dev = device_limits_now();
  const int device_arch = dev.cc_major * 10 + dev.cc_minor;
  INFO("device sm_" << device_arch << "; loaded targets: " << arch80 << " and " << native << "; native build's highest "
                    << native_build.highest_target);
  CHECK(arch80 == 80);
  // The runtime runs a build's best code for the device: its highest target when the device
  // has it (the pack builds 90 alone, so 90 on the H200).
  if (native_build.highest_target <= device_arch) CHECK(native == native_build.highest_target);
  seeded_rng rng("compute80 and native softmax");
  INFO(rng.describe());
  // Interleaved, so that each build's calls follow the other's on one stream.
  for (const shape s : {shape{1, 8192}, shape{1, 152064}, shape{8, 152064}}) {
    const dsp::plan native_plan = plan_of(dtype::f32, s.rows, s.cols, contiguous(), dsp::limits_for_code(dev, native),
                                          softmax_traits);
    INFO("native build's plan: " << describe(native_plan));
    if (native >= 90) CHECK((native_plan.cluster > 1 || native_plan.kind == dsp::strategy::staged));
    check_plans(dtype::f32, s, softmax_traits, arch80);
    check_softmax(native_build, s, rng);
    check_softmax(compute80_build, s, rng);
    check_softmax(native_build, s, rng);
  }
}
