// tests/gpu/test_softmax.cpp — rowwise::softmax and rowwise::log_softmax on the GPU against the fp64
// references (tests/support/reference.hpp), per DESIGN.md "Correctness method":
//   * inputs drawn fresh from a seeded rng (ROWWISE_TEST_SEED reproduces a run; every case INFOs
//     it) and quantized through T, so the reference sees exactly what the GPU reads;
//   * output buffers poisoned (0xFF bytes: NaN in fp32/fp16/bf16) before every launch;
//   * EVERY output element checked with check_close (tests/support/tolerance.hpp), and every byte
//     outside the rows (prefix, gaps of strided rows, tail) compared with what it held before;
//     out-of-place inputs must come back unchanged too.
// Shapes come from the dispatch plan itself (dispatch::plan_rows with the real device limits):
// every regime boundary +-1, for the 16-byte path and the narrow (pack 1) path.
//
// Tags: [gpu] all; [sanitize] the quick subset run under compute-sanitizer (one small shape per
// strategy, invalid arguments, 0 rows); [large] > 2^31 elements; [graph] CUDA graph capture.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
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

const char* op_name(bool log) { return log ? "log_softmax" : "softmax"; }

// --- inputs --------------------------------------------------------------------------------------

/// Adversarial rows: the kinds of inputs.hpp, plus placements that land on a pack's edges.
enum class row_kind {
  random,
  adversarial,  // row r takes all_adversarial_kinds()[r % 8], then the extra kinds below
};

constexpr int extra_kinds = 7;  // NaN first, NaN last, half the row -inf, one finite rest -inf, and
                                // the finite mask fills: a causal-style suffix of T's lowest value,
                                // one of -1e10, and a whole row of T's lowest value

/// T's lowest finite value (torch.finfo(dtype).min, the usual attention-mask fill).
double lowest_finite(dtype t) {
  switch (t) {
    case dtype::f32: return -static_cast<double>(std::numeric_limits<float>::max());
    case dtype::f16: return -65504.0;
    case dtype::bf16: return -0x1.fe0000p+127;  // -(2 - 2^-7) * 2^127
  }
  return 0.0;
}

void extra_row(int which, dtype t, int64_t cols, seeded_rng& rng, double* row) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double ninf = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < cols; ++c) row[c] = rng.normal(0.0, 2.0);
  switch (which) {
    case 0: row[0] = nan; break;          // NaN in the head slot
    case 1: row[cols - 1] = nan; break;   // NaN in the tail slot
    case 2:                               // -inf entries mixed with finite ones: exact zeros (-inf for log)
      for (int64_t c = 0; c < cols; c += 2) row[c] = ninf;
      break;
    case 3: {                             // a single finite logit among -inf: softmax 1 there
      const int64_t keep = rng.index(cols);
      for (int64_t c = 0; c < cols; ++c)
        if (c != keep) row[c] = ninf;
      break;
    }
    case 4:                               // logits, then T's lowest (whole threads and CTAs of it)
    case 5: {                             // the same with -1e10 (-inf once quantised to fp16)
      const double fill = which == 4 ? lowest_finite(t) : -1e10;
      for (int64_t c = 1 + rng.index(cols); c < cols; ++c) row[c] = fill;
      break;
    }
    default:                              // every element T's lowest: softmax 1 / cols
      for (int64_t c = 0; c < cols; ++c) row[c] = lowest_finite(t);
      break;
  }
}

/// rows x cols inputs, quantized through t. random: each row uniform in [-s, s) with s drawn from
/// {0.5, 4, 16} (uniform rather than normal: it is ~8x cheaper to draw and covers the same range).
std::vector<double> make_inputs(dtype t, int64_t rows, int64_t cols, row_kind kind, seeded_rng& rng) {
  std::vector<double> x(static_cast<size_t>(rows * cols));
  const auto& kinds = all_adversarial_kinds();
  const int64_t nk = static_cast<int64_t>(kinds.size()) + extra_kinds;
  for (int64_t r = 0; r < rows; ++r) {
    double* row = x.data() + r * cols;
    if (kind == row_kind::random) {
      static const double scales[] = {0.5, 4.0, 16.0};
      const double s = scales[rng.index(3)];
      for (int64_t c = 0; c < cols; ++c) row[c] = rng.uniform(-s, s);
    } else {
      const int64_t k = r % nk;
      if (k < static_cast<int64_t>(kinds.size())) {
        visit_dtype(t, [&](auto tag) {
          adversarial_row<typename decltype(tag)::type>(kinds[static_cast<size_t>(k)], cols, rng, row);
        });
      } else {
        extra_row(static_cast<int>(k - static_cast<int64_t>(kinds.size())), t, cols, rng, row);
      }
    }
  }
  quantize(t, x.data(), x.size());
  return x;
}

std::vector<double> reference(bool log, const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    if (log)
      log_softmax_ref(x.data() + r * cols, cols, y.data() + r * cols);
    else
      softmax_ref(x.data() + r * cols, cols, y.data() + r * cols);
  }
  return y;
}

tolerance tolerance_for(dtype t, bool log, int64_t cols) {
  return default_tolerance(log ? op_kind::log_softmax : op_kind::softmax, mantissa_bits(t), cols);
}

// --- one call, fully checked ---------------------------------------------------------------------

struct softmax_case {
  dtype t = dtype::f32;
  bool log = false;
  int64_t rows = 1;
  int64_t cols = 1;
  call_layout layout = contiguous();
  row_kind kind = row_kind::random;
  cudaStream_t stream = nullptr;
};

/// Allocate (poisoned), upload fresh inputs, call, and check every element, the untouched bytes,
/// the unchanged input, and that the intended vector path was planned.
void run_case(const softmax_case& c, seeded_rng& rng) {
  const call_layout& L = c.layout;
  INFO(op_name(c.log) << " " << shape_text(c.t, c.rows, c.cols) << "; " << describe(L));
  INFO(rng.describe());

  const std::vector<double> x = make_inputs(c.t, c.rows, c.cols, c.kind, rng);
  device_matrix in(c.t, c.rows, c.cols, c.cols + L.in_pad, L.in_offset);
  in.upload(x);
  std::unique_ptr<device_matrix> out_own;
  if (!L.in_place) out_own = std::make_unique<device_matrix>(c.t, c.rows, c.cols, c.cols + L.out_pad, L.out_offset);
  device_matrix& out = L.in_place ? in : *out_own;  // a fresh matrix is poisoned

  const auto dev = device_limits_now();
  const dsp::plan pl = plan_of(c.t, c.rows, c.cols, {{in.data(), in.stride()}, {out.data(), out.stride()}}, dev);
  INFO(describe(pl));
  CHECK(pl.pack_elems == (L.narrow ? 1 : widest_pack(c.t)));       // the intended vector path
  CHECK(same_kernel(pl, plan_of(c.t, c.rows, c.cols, L, dev)));     // the plan the shapes were chosen by

  const rowwise::status st = api::run_softmax(c.t, c.log, api::as_mat(in), api::as_mat(out), c.stream);
  INFO("status: " << st.message());
  REQUIRE(st.ok());
  RW_CUDA(cudaStreamSynchronize(c.stream));
  RW_CUDA(cudaGetLastError());

  const std::vector<double> got = out.download();
  const std::vector<double> ref = reference(c.log, x, c.rows, c.cols);
  const check_result res = check_close(ref.data(), got.data(), c.rows, c.cols, tolerance_for(c.t, c.log, c.cols));
  INFO(describe(res));
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
}

}  // namespace

// --- regime boundaries ---------------------------------------------------------------------------

// One test case per dtype, so that a run can spread them over processes.
static void regime_boundaries(dtype only) {
  seeded_rng rng(std::string("softmax regime boundaries ") + to_string(only));
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  // Row counts with different plans: few rows (split over clusters up to 16), 64 rows (clusters
  // of at most 2 on 132 SMs), the fewest rows that never split (sm_count / 2 + 1), and many rows
  // (grid-stride loops). Layouts: aligned, both pointers offset by pack - 1 elements (the largest
  // head: a row spans the most packs its width allows), and out of phase (the narrow path, pack
  // 1). The boundaries are those of each layout's own plan. Each case holds at most 4M elements;
  // small ones run both ops, big ones one (alternating).
  const int64_t row_counts[] = {3, 64, dev.sm_count / 2 + 1, 1000};
  constexpr int64_t max_elements = int64_t{4} << 20;
  constexpr int64_t small = int64_t{1} << 18;
  for (dtype t : all_dtypes) {
    if (t != only) continue;
    int ri = 0;
    for (int64_t rows : row_counts) {
      const int n = widest_pack(t);
      const call_layout layouts[] = {contiguous(), offset_both(n - 1), (ri++ % 2) ? offset_in_only() : offset_out_only()};
      for (const call_layout& L : layouts) {
        const std::vector<int64_t> cols_list = regime_boundary_cols(t, rows, L, dev, max_elements);
        for (size_t i = 0; i < cols_list.size(); ++i) {
          const int64_t cols = cols_list[i];
          const bool one_op = rows * cols > small;
          for (bool log : {false, true})
            if (!one_op || log == (((i / 2) + static_cast<size_t>(rows)) % 2 == 1))
              run_case({t, log, rows, cols, L, row_kind::random, stream.get()}, rng);
        }
      }
    }
  }
}

TEST_CASE("softmax/log_softmax: every regime boundary +-1 of the dispatch plan, fp32", "[gpu][softmax]") {
  regime_boundaries(dtype::f32);
}
TEST_CASE("softmax/log_softmax: every regime boundary +-1 of the dispatch plan, fp16", "[gpu][softmax]") {
  regime_boundaries(dtype::f16);
}
TEST_CASE("softmax/log_softmax: every regime boundary +-1 of the dispatch plan, bf16", "[gpu][softmax]") {
  regime_boundaries(dtype::bf16);
}

// --- assorted widths -------------------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: small / odd / prime / power-of-two / vocabulary-sized cols (default stream)",
          "[gpu][softmax]") {
  seeded_rng rng("softmax assorted cols");
  INFO(rng.describe());
  const int64_t cols_list[] = {1,    2,    3,     7,     31,     32,     33,     97,      1000,
                               1009, 1024, 4096,  4099,  32749,  152064, 262144, int64_t{1} << 20};
  const int64_t row_mix[] = {1, 3, 7, 64, 1000};
  int i = 0;
  for (int64_t cols : cols_list) {
    // Two row counts per width: one from the mix and one row; at most ~2M elements.
    const int64_t mixed = std::max<int64_t>(1, std::min<int64_t>(row_mix[i++ % 5], (int64_t{2} << 20) / cols));
    for (int64_t rows : {mixed, int64_t{1}})
      for (dtype t : all_dtypes)
        for (bool log : {false, true}) run_case({t, log, rows, cols, contiguous(), row_kind::random, nullptr}, rng);
  }
}

// --- alignment ------------------------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: pointer offsets / strided rows / in place", "[gpu][softmax]") {
  seeded_rng rng("softmax layouts");
  INFO(rng.describe());
  test_stream stream;
  const call_layout layouts[] = {offset_both(1), offset_in_only(),  offset_out_only(), strided(1),
                                 strided(8),     strided(13),       strided_mismatch(), in_place(),
                                 in_place(1),    in_place(0, 13),   in_place(3, 8)};
  const int64_t cols_list[] = {1, 5, 33, 257, 1000, 4099, 32749, 152064};
  int i = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : cols_list)
      for (const call_layout& L : layouts) {
        const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(37, (int64_t{1} << 20) / cols));
        const bool log = (i++ % 2) == 1;
        run_case({t, log, rows, cols, L, row_kind::random, stream.get()}, rng);
        if (rows * cols <= (int64_t{1} << 16)) run_case({t, !log, rows, cols, L, row_kind::random, stream.get()}, rng);
      }
}

TEST_CASE("softmax/log_softmax: many short rows off a 16-byte boundary (edge packs read whole between rows, in "
          "parts at the matrix's ends)",
          "[gpu][softmax]") {
  // Row r's partial head and tail packs are read as whole 16-byte packs when r is neither the
  // matrix's first nor its last row (row_io.cuh edge_pack_reads): their other slots hold the
  // neighbouring rows' elements, or the gap's poison (a NaN) in strided layouts, which must not
  // reach the row. Rows of 1-512 columns at several heads, contiguous, strided and in place.
  seeded_rng rng("softmax short offset rows");
  INFO(rng.describe());
  test_stream stream;
  const call_layout layouts[] = {offset_both(1),       offset_both(5), offset_strided(1, 8),
                                 offset_strided(3, 1), in_place(1),    in_place(7, 3)};
  const int64_t cols_list[] = {1, 2, 3, 7, 8, 9, 15, 16, 24, 31, 32, 40, 64, 100, 128, 256, 512};
  int i = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : cols_list)
      for (const call_layout& L : layouts)
        run_case({t, (i++ % 2) == 1, 1000, cols, L, row_kind::random, stream.get()}, rng);
}

TEST_CASE("softmax/log_softmax: 0 rows is a successful no-op that touches nothing", "[gpu][softmax][sanitize]") {
  test_stream stream;
  for (dtype t : all_dtypes)
    for (bool log : {false, true}) {
      INFO(op_name(log) << " " << to_string(t));
      device_matrix in(t, 0, 100, 100, 0, 256), out(t, 0, 100, 100, 0, 256);
      // Some input bytes that a stray launch would turn into outputs.
      std::vector<unsigned char> junk(in.bytes(), 0x3C);
      RW_CUDA(cudaMemcpy(in.data(), junk.data(), junk.size(), cudaMemcpyHostToDevice));
      const auto s1 = api::run_softmax(t, log, {in.data(), 0, 100, 100}, {out.data(), 0, 100, 100}, stream.get());
      CHECK(s1.ok());
      // Null data is fine with 0 rows.
      const auto s2 = api::run_softmax(t, log, {nullptr, 0, 100, 100}, {nullptr, 0, 100, 100}, stream.get());
      CHECK(s2.ok());
      // In place, strided.
      const auto s3 = api::run_softmax(t, log, {out.data(), 0, 7, 9}, {out.data(), 0, 7, 9}, stream.get());
      CHECK(s3.ok());
      stream.sync();
      RW_CUDA(cudaGetLastError());
      (void)out.download();
      const std::string changed = out.unchanged_report();
      INFO(changed);
      CHECK(changed.empty());
    }
}

TEST_CASE("softmax/log_softmax: few long rows are split over a thread-block cluster (1 and 8 x 152064; 16-32 "
          "rows of 32000-131072 over a doubled cluster; 1-64 rows of 30000-262144 on 512-thread CTAs)",
          "[gpu][softmax]") {
  seeded_rng rng("softmax few long rows");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  if (dev.clusters) {
    // DESIGN.md: too few rows to fill the GPU -> split each row over the blocks of a cluster.
    const auto p = plan_of(dtype::bf16, 1, 152064, contiguous(), dev);
    INFO(describe(p));
    CHECK(p.cluster >= 8);
  } else {
    WARN("device without thread-block clusters (sm_" << dev.cc_major << dev.cc_minor
                                                      << "): 1 x 152064 runs without a cluster split");
  }
  test_stream stream;
  for (dtype t : all_dtypes)
    for (int64_t rows : {1, 2, 8})
      for (bool log : {false, true}) {
        run_case({t, log, rows, 152064, contiguous(), row_kind::random, stream.get()}, rng);
        if (rows == 1) run_case({t, log, rows, 152064, offset_in_only(), row_kind::random, stream.get()}, rng);
      }
  // Few rows whose spread cluster's segments are too long for registers: over twice that cluster
  // in registers (policy.hpp few_rows_doubling), also where the spread was halved for short
  // segments (bf16 32 x 32000) and with uneven segments.
  struct doubled_case {
    dtype t;
    int64_t rows;
    int64_t cols;
    call_layout layout;
    int cluster;
  };
  const doubled_case doubled[] = {{dtype::f32, 16, 131072, contiguous(), 16},
                                  {dtype::bf16, 32, 65536, in_place(), 8},
                                  {dtype::bf16, 32, 32000, strided(8), 4},
                                  {dtype::f16, 24, 65536 + 8, contiguous(), 8},
                                  {dtype::f32, 16, 131072 - 4, strided(4), 16}};
  // A case's plan holds its rows in registers over the expected cluster (and block, where `block`
  // is not 0); then softmax and log_softmax run on it.
  const auto run_cluster_case = [&](const doubled_case& dc, int block) {
    const auto p = plan_of(dc.t, dc.rows, dc.cols, dc.layout, dev);
    INFO(describe(p));
    if (dev.clusters) {
      CHECK(p.kind == dsp::strategy::registers);
      if (block != 0) CHECK(p.block == block);
      CHECK(p.cluster == dc.cluster);
    }
    for (bool log : {false, true}) run_case({dc.t, log, dc.rows, dc.cols, dc.layout, row_kind::random, stream.get()}, rng);
  };
  for (const doubled_case& dc : doubled) run_cluster_case(dc, 0);
  // Few rows whose spread segments neither fit 384 threads nor double: 512 threads of 32 values at
  // the spread cluster (policy.hpp few_rows_block), also with uneven segments.
  const doubled_case block512[] = {{dtype::f32, 64, 32000, contiguous(), 2},
                                   {dtype::bf16, 64, 30000, strided(8), 2},
                                   {dtype::f16, 1, 262144, in_place(), 16},
                                   {dtype::f32, 8, 262144 - 4, strided(4), 16},
                                   {dtype::bf16, 2, 200000, contiguous(), 16}};
  for (const doubled_case& dc : block512) run_cluster_case(dc, 512);
  // Few 16-bit rows split down to 512 packs per CTA where the clusters take at most half the SMs
  // (policy.hpp narrow_few_rows_split), also with uneven segments; not past half the SMs.
  const doubled_case split16[] = {{dtype::bf16, 1, 8192, contiguous(), 2},
                                  {dtype::f16, 16, 16384, in_place(), 4},
                                  {dtype::bf16, 4, 12000 + 8, strided(8), 2},
                                  {dtype::bf16, 1, 65536, contiguous(), 16},
                                  {dtype::f16, 64, 8192, contiguous(), 1}};
  for (const doubled_case& dc : split16) run_cluster_case(dc, 0);
}

TEST_CASE("softmax/log_softmax: many long rows split over a cluster (in registers, staged or streaming over "
          ">= 64 KiB segments; several rows per cluster, uneven segments, strides, in place)",
          "[gpu][softmax]") {
  seeded_rng rng("softmax clustered rows");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t many = dev.sm_count * 3 + 5;  // more rows than resident clusters: each loops
  const std::pair<int64_t, call_layout> cases[] = {
      {32768, contiguous()}, {65536, in_place()}, {24576 + 4, strided(4)}, {40000, offset_both(1)}};
  for (const auto& [cols, layout] : cases) {
    const auto p = plan_of(dtype::f32, many, cols, layout, dev);
    INFO(describe(p));
    if (dev.clusters) {
      CHECK(p.kind == dsp::strategy::registers);
      CHECK(p.cluster > 1);
    }
    for (bool log : {false, true}) run_case({dtype::f32, log, many, cols, layout, row_kind::random, stream.get()}, rng);
  }
  // 16-bit rows over clusters in registers (also rows one CTA of more than 256 threads would hold),
  // fp32 up to 512 KiB; longer rows: staged over a cluster of >= 64 KiB segments (with sm_count + 5
  // rows, clusters of 8 and 16 loop).
  struct split_case {
    dtype t;
    int64_t rows;
    int64_t cols;
    call_layout layout;
    dsp::strategy kind;
    int cluster;
  };
  const split_case splits[] = {
      {dtype::bf16, many, 16384 + 8, contiguous(), dsp::strategy::registers, 4},
      {dtype::f16, many, 13000, strided(8), dsp::strategy::registers, 2},
      // one element past a boundary: the partial last pack wraps onto the head pack, so the row takes
      // its aligned twin's single CTA of 192 x 8; three elements more and it needs a cluster of 2
      {dtype::bf16, many, 12288, offset_both(1), dsp::strategy::registers, 1},
      {dtype::bf16, many, 12288 + 3, offset_both(1), dsp::strategy::registers, 2},
      {dtype::f16, many, 10000, contiguous(), dsp::strategy::registers, 2},     // uneven segments
      {dtype::bf16, many, 65536 - 8, in_place(), dsp::strategy::registers, 8},
      // 16-bit rows of 128 KiB in registers too (no longer staged first: policy.hpp)
      {dtype::bf16, many, 65536, in_place(), dsp::strategy::registers, 8},
      {dtype::f16, many, 65536, strided(8), dsp::strategy::registers, 8},
      {dtype::f32, dev.sm_count + 5, 131072, strided(4), dsp::strategy::registers, 16},
      // aligned rows of 128 KiB and more, past the registers rules: staged over streaming's
      // cluster (>= 64 KiB per CTA)
      {dtype::f16, dev.sm_count + 5, 152064, contiguous(), dsp::strategy::staged, 4},
      {dtype::f32, dev.sm_count + 5, 262144 + 4, in_place(), dsp::strategy::staged, 16},
      // one element past a 16-byte boundary: staged too, the head pack and the partial last pack
      // staged by words (kernels/stage_edge_pack.cuh); the last CTA holds a one-pack tail
      {dtype::f32, dev.sm_count + 5, 152064 + 4, offset_both(1), dsp::strategy::staged, 8},
      {dtype::f32, dev.sm_count + 5, 262144 + 4, offset_both(1), dsp::strategy::staged, 16},
      {dtype::bf16, dev.sm_count + 5, 152064, offset_both(1), dsp::strategy::staged, 4},
      {dtype::f16, dev.sm_count + 5, 152064 + 3, offset_strided(3, 5), dsp::strategy::staged, 4},
      // rows whose heads differ (stride not a multiple of the pack): streaming
      {dtype::f32, dev.sm_count + 5, 262144 + 4, strided(1), dsp::strategy::streaming, 16},
  };
  for (const split_case& sc : splits) {
    const auto p = plan_of(sc.t, sc.rows, sc.cols, sc.layout, dev);
    INFO(describe(p));
    if (dev.clusters) {
      CHECK(p.kind == sc.kind);
      CHECK(p.cluster == sc.cluster);
    }
    for (bool log : {false, true}) run_case({sc.t, log, sc.rows, sc.cols, sc.layout, row_kind::random, stream.get()}, rng);
  }
  // Many 16-bit rows past 256 threads of 32 values that fill a wide config exactly: one CTA of
  // 64 values per thread (policy.hpp wide_rows_rules).
  const std::pair<dtype, std::pair<int64_t, call_layout>> wide_cases[] = {
      {dtype::bf16, {12288, strided(8)}}, {dtype::f16, {16384, in_place()}}, {dtype::bf16, {10240, contiguous()}},
      {dtype::f16, {9216, contiguous()}}};
  for (const auto& [t, shape] : wide_cases) {
    const auto& [cols, layout] = shape;
    const int64_t rows = rows_for_wide(t, cols, layout, dev, softmax_traits);
    REQUIRE(rows > 0);
    const auto p = plan_of(t, rows, cols, layout, dev);
    INFO(describe(p));
    CHECK(p.threads_per_row * p.packs_per_thread * 8 == cols);
    for (bool log : {false, true}) run_case({t, log, rows, cols, layout, row_kind::random, stream.get()}, rng);
  }
}

// --- adversarial rows -------------------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: adversarial rows (logit 120 / span 200 / all -inf / NaN / +inf / subnormal / "
          "constant / finite mask fills / cols = 1)",
          "[gpu][softmax]") {
  // DESIGN.md: all -inf -> zeros (log: -inf); a NaN anywhere -> NaN row; +inf -> NaN row. Finite
  // mask fills (T's lowest, -1e10) are ordinary logits: a row of them is uniform, and a thread
  // holding only them must not turn the row into NaN (2^lo overflowed for |max| >= ~1.5e9).
  seeded_rng rng("softmax adversarial");
  INFO(rng.describe());
  test_stream stream;
  const int64_t nk = static_cast<int64_t>(all_adversarial_kinds().size()) + extra_kinds;
  const int64_t cols_list[] = {1, 2, 3, 33, 1000, 4099, 40000, 152064};
  int i = 0;
  for (dtype t : all_dtypes)
    for (int64_t cols : cols_list)
      for (bool log : {false, true}) {
        const int64_t rows = cols <= 4099 ? 3 * nk : nk;  // every kind at least once
        const int which = i++ % 3;
        const call_layout L = which == 0 ? contiguous() : (which == 1 ? offset_both(1) : offset_in_only());
        run_case({t, log, rows, cols, L, row_kind::adversarial, stream.get()}, rng);
      }
}

TEST_CASE("softmax/log_softmax: adversarial rows on the staged strategy (many long rows: the two sweeps of "
          "pass 1, the packed max, a segment's unguarded steps and its guarded tail, partial edge packs)",
          "[gpu][softmax]") {
  seeded_rng rng("softmax staged adversarial");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  const int64_t rows = dev.sm_count + 5;  // clusters loop over rows; every adversarial kind occurs
  struct staged_case {
    dtype t;
    int64_t cols;
    call_layout layout;
  };
  // 152064 over 4 (16-bit) / 8 (fp32) CTAs: segments of 4752 packs, a guarded tail after four
  // whole steps; 70000 16-bit over 2 (past the cluster rows in registers, which hold 65536);
  // 262144 bf16 over 8, segments of whole steps only.
  const staged_case cases[] = {{dtype::f32, 152064, contiguous()},
                               {dtype::bf16, 152064, in_place()},
                               {dtype::f16, 152064, strided(8)},
                               {dtype::f16, 70000, contiguous()},
                               {dtype::bf16, 262144, contiguous()},
                               // a row's head and last pack partial: an adversarial element there
                               {dtype::bf16, 152064, offset_both(1)},
                               {dtype::f32, 152064 + 2, offset_strided(3, 2)}};
  for (const staged_case& c : cases) {
    const auto p = plan_of(c.t, rows, c.cols, c.layout, dev);
    INFO(describe(p));
    if (dev.clusters) CHECK(p.kind == dsp::strategy::staged);
    for (bool log : {false, true}) run_case({c.t, log, rows, c.cols, c.layout, row_kind::adversarial, stream.get()}, rng);
  }
}

// --- > 2^31 elements --------------------------------------------------------------------------------

TEST_CASE("softmax: more than 2^31 elements (bf16 524291 x 4096 in place; a SAMPLE of rows is checked)",
          "[gpu][softmax][large]") {
  constexpr int64_t cols = 4096;
  constexpr int64_t rows = (int64_t{1} << 31) / cols + 3;
  constexpr int64_t n = rows * cols;
  static_assert(n > (int64_t{1} << 31), "more than 2^31 elements");
  constexpr int64_t tail = 4096;
  const dtype t = dtype::bf16;
  const size_t bytes = static_cast<size_t>((n + tail) * elem_bytes(t));
  if (std::string why; !device_memory_for(bytes, why)) {
    WARN(why);
    return;
  }
  seeded_rng rng("softmax > 2^31");
  INFO(rng.describe());
  test_stream stream;
  device_buffer buf(bytes);
  buf.fill(poison_byte);
  RW_CUDA(api::fill_uniform_device(t, buf.get(), n, rng.next_u64(), -12.0f, 12.0f, stream.get()));
  stream.sync();

  const std::vector<int64_t> sample = sample_rows(rows, cols, rng);
  const int64_t m = static_cast<int64_t>(sample.size());
  const std::vector<double> x = download_rows(buf, t, sample, cols);

  const auto dev = device_limits_now();
  INFO(describe(plan_of(t, rows, cols, {{buf.get(), cols}, {buf.get(), cols}}, dev)));
  const rowwise::status st = api::run_softmax(t, false, {buf.get(), rows, cols, cols}, {buf.get(), rows, cols, cols},
                                              stream.get());
  INFO("status: " << st.message());
  REQUIRE(st.ok());
  stream.sync();

  const std::vector<double> got = download_rows(buf, t, sample, cols);
  const std::vector<double> ref = reference(false, x, m, cols);
  const check_result res = check_close(ref.data(), got.data(), m, cols, tolerance_for(t, false, cols));
  INFO("checked rows (sample): " << m << "; a failing 'row' below indexes the sample, which is sorted");
  INFO(describe(res));
  CHECK(res.ok);

  CHECK(tail_poisoned(buf, t, n, tail));
}

// --- CUDA graphs ------------------------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: captured into a CUDA graph (thread-local capture) and replayed with fresh inputs",
          "[gpu][softmax][graph]") {
  seeded_rng rng("softmax graph");
  INFO(rng.describe());
  struct call {
    dtype t;
    bool log;
    int64_t rows, cols;
  };
  // One call per regime family (on H200): sub-warp, warp, cluster split in registers, cluster
  // split with the shared-memory cache, streaming.
  const call calls[] = {{dtype::f32, true, 300, 7},        {dtype::f32, false, 64, 1000},
                        {dtype::bf16, true, 2, 152064},    {dtype::bf16, false, 2, 600000},
                        {dtype::f32, false, 1, 1 << 20}};
  std::vector<std::unique_ptr<device_matrix>> ins, outs;
  for (const call& c : calls) {
    ins.push_back(std::make_unique<device_matrix>(c.t, c.rows, c.cols, c.cols));
    outs.push_back(std::make_unique<device_matrix>(c.t, c.rows, c.cols, c.cols));
  }
  test_stream stream;
  RW_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  std::vector<rowwise::status> statuses;
  for (size_t k = 0; k < std::size(calls); ++k)
    statuses.push_back(api::run_softmax(calls[k].t, calls[k].log, api::as_mat(*ins[k]), api::as_mat(*outs[k]),
                                        stream.get()));
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream.get(), &graph);  // always end the capture first
  for (const auto& s : statuses) {
    INFO("status during capture: " << s.message());
    CHECK(s.ok());
  }
  REQUIRE(end == cudaSuccess);
  REQUIRE(graph != nullptr);
  graph_guard guard{graph};
  // Exactly one kernel node per call: no memset, copy or allocation nodes.
  size_t nodes = 0;
  RW_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == std::size(calls));
  std::vector<cudaGraphNode_t> list(nodes);
  RW_CUDA(cudaGraphGetNodes(graph, list.data(), &nodes));
  for (cudaGraphNode_t node : list) {
    cudaGraphNodeType type;
    RW_CUDA(cudaGraphNodeGetType(node, &type));
    CHECK(type == cudaGraphNodeTypeKernel);
  }
  RW_CUDA(cudaGraphInstantiate(&guard.e, graph, 0));

  for (int replay = 0; replay < 2; ++replay) {
    INFO("replay " << replay);
    std::vector<std::vector<double>> xs;
    for (size_t k = 0; k < std::size(calls); ++k) {
      xs.push_back(make_inputs(calls[k].t, calls[k].rows, calls[k].cols, row_kind::random, rng));
      ins[k]->upload(xs.back());
      outs[k]->poison();
    }
    RW_CUDA(cudaGraphLaunch(guard.e, stream.get()));
    stream.sync();
    for (size_t k = 0; k < std::size(calls); ++k) {
      const call& c = calls[k];
      INFO(op_name(c.log) << " " << shape_text(c.t, c.rows, c.cols));
      const std::vector<double> got = outs[k]->download();
      const std::vector<double> ref = reference(c.log, xs[k], c.rows, c.cols);
      const check_result res = check_close(ref.data(), got.data(), c.rows, c.cols, tolerance_for(c.t, c.log, c.cols));
      INFO(describe(res));
      CHECK(res.ok);
      CHECK(outs[k]->untouched_report().empty());
    }
  }
}

// --- invalid arguments ------------------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: invalid arguments return invalid_argument naming the op and launch nothing",
          "[gpu][softmax][sanitize]") {
  seeded_rng rng("softmax invalid");
  test_stream stream;
  for (dtype t : all_dtypes)
    for (bool log : {false, true}) {
      const char* op = op_name(log);
      constexpr int64_t rows = 4, cols = 100;
      device_matrix in(t, rows, cols, cols), out(t, rows, cols, cols);
      in.upload(make_inputs(t, rows, cols, row_kind::random, rng));
      void* ip = in.data();
      void* outp = out.data();
      void* in_misaligned = static_cast<unsigned char*>(ip) + 1;  // not a multiple of sizeof(T)
      void* out_misaligned = static_cast<unsigned char*>(outp) + 1;
      void* in_next = static_cast<unsigned char*>(ip) + elem_bytes(t);  // the input's second element
      struct bad_call {
        const char* what;
        const char* keyword;  // the message must name the bad argument
        api::mat in, out;
      };
      const bad_call bad[] = {
          {"null input, rows > 0", "null", {nullptr, rows, cols, cols}, {outp, rows, cols, cols}},
          {"null output, rows > 0", "null", {ip, rows, cols, cols}, {nullptr, rows, cols, cols}},
          {"cols == 0", "cols", {ip, rows, 0, cols}, {outp, rows, 0, cols}},
          {"cols < 0", "cols", {ip, rows, -3, cols}, {outp, rows, -3, cols}},
          {"input row_stride < cols", "stride", {ip, rows, cols, cols - 1}, {outp, rows, cols, cols}},
          {"output row_stride < cols", "stride", {ip, rows, cols, cols}, {outp, rows, cols, cols - 1}},
          {"output rows != input rows", "rows", {ip, rows, cols, cols}, {outp, rows - 1, cols, cols}},
          {"output cols != input cols", "cols", {ip, rows, cols, cols}, {outp, rows, cols - 1, cols}},
          {"rows < 0", "rows", {ip, -1, cols, cols}, {outp, -1, cols, cols}},
          {"input not aligned to its element", "align", {in_misaligned, rows, cols, cols}, {outp, rows, cols, cols}},
          {"output not aligned to its element", "align", {ip, rows, cols, cols}, {out_misaligned, rows, cols, cols}},
          // Memory that would race (dispatch/memory_overlap.hpp): in place needs the same matrix.
          {"output one element past the input's start", "shares", {ip, rows, cols, cols}, {in_next, rows, cols, cols}},
          {"output over the input with another row_stride", "shares", {ip, rows - 1, cols, cols},
           {ip, rows - 1, cols, cols + 1}},
      };
      for (const bad_call& b : bad) {
        INFO(op << " " << to_string(t) << ": " << b.what);
        const rowwise::status st = api::run_softmax(t, log, b.in, b.out, stream.get());
        INFO("message: " << st.message());
        CHECK_FALSE(st.ok());
        CHECK(st.code() == rowwise::errc::invalid_argument);
        CHECK(st.cuda_error() == cudaSuccess);
        const std::string msg = st.message();
        CHECK(msg.rfind(std::string(op) + ":", 0) == 0);  // starts with "<op>:"
        CHECK(msg.find(b.keyword) != std::string::npos);
      }
      stream.sync();
      RW_CUDA(cudaGetLastError());
      (void)in.download();
      (void)out.download();
      CHECK(in.unchanged_report().empty());
      const std::string changed = out.unchanged_report();
      INFO("output after the invalid calls: " << (changed.empty() ? "untouched" : changed));
      CHECK(changed.empty());
    }
}

// --- the compute-sanitizer subset -------------------------------------------------------------------

TEST_CASE("softmax/log_softmax: one small shape per strategy (compute-sanitizer subset)",
          "[gpu][softmax][sanitize]") {
  seeded_rng rng("softmax sanitize");
  INFO(rng.describe());
  const auto dev = device_limits_now();
  test_stream stream;
  for (const sanitizer_pick& p : sanitizer_picks(dev)) {
    INFO("strategy: " << to_string(p.r));
    const int64_t cols = sanitizer_cols(p, dev);
    if (cols < 0) {
      CHECK_FALSE(regime_required(p.r, dev));
      WARN("the plan never picks '" << to_string(p.r) << "' for " << p.rows << " rows on this device: not run");
      continue;
    }
    for (bool log : {false, true}) run_case({p.t, log, p.rows, cols, p.layout, row_kind::random, stream.get()}, rng);
  }
  // Rows one element past a 16-byte boundary whose partial last pack wraps onto the head pack
  // (kernels/thread_packs.cuh): sub-warp groups, a warp, a block, few rows over a cluster.
  for (dtype t : {dtype::f32, dtype::bf16})
    for (int64_t cols : {int64_t{64}, int64_t{1024}, int64_t{4096}, int64_t{65536}})
      for (bool log : {false, true}) run_case({t, log, 3, cols, offset_both(1), row_kind::random, stream.get()}, rng);
  // Many 16-bit rows held 64 values per thread (policy.hpp wide_rows_rules), strided by a pack.
  const int64_t rows = rows_for_wide(dtype::f16, 16384, strided(8), dev, softmax_traits);
  REQUIRE(rows > 0);
  INFO(describe(plan_of(dtype::f16, rows, 16384, strided(8), dev)));
  CHECK(is_wide(plan_of(dtype::f16, rows, 16384, strided(8), dev)));
  for (bool log : {false, true})
    run_case({dtype::f16, log, rows, 16384, strided(8), row_kind::random, stream.get()}, rng);
  // One row over 16 CTAs of 512 threads (policy.hpp few_rows_block), segments of 1563 packs on
  // 512 threads of 4: partly filled threads.
  const auto block512 = plan_of(dtype::bf16, 1, 200000, contiguous(), dev);
  INFO(describe(block512));
  if (dev.clusters) CHECK((block512.kind == dsp::strategy::registers && block512.block == 512));
  for (bool log : {false, true})
    run_case({dtype::bf16, log, 1, 200000, contiguous(), row_kind::random, stream.get()}, rng);
}
