// tests/host/test_thread_packs.cpp — a registers kernel's threads cover a row exactly once.
//
// kernels/thread_pack_indices.cuh decides which columns each thread of a registers kernel loads
// and stores: whole packs by one access, a row's edge packs element by element, and the row's
// partial last pack wrapped onto its partial head pack when it fits there (a row one element past
// a 16-byte boundary whose length is a multiple of N). Here every thread of one row is built as
// registers_kernel.cuh builds it (its lane, its CTA's segment of the cluster, the row's head) for
// the config the plan chose, and the columns are collected the way load_op_packs and
// store_op_packs (thread_packs.cuh) reach them. Every column of the row must be loaded once and
// stored once, by the same thread, and nothing outside the row touched; for rows of every head,
// against plans made for that head and for rows whose heads differ (head -1).
#include <catch2/catch.hpp>

#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/dispatch/policy.hpp>
#include <rowwise/kernels/thread_pack_indices.cuh>

#include "support/device_models.hpp"
#include "support/plan_problems.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace dsp = rowwise::dispatch;
namespace rk = rowwise::kernels;

/// Who touched each column of a row: -1 nobody, else the thread (rank * G + lane); -2 twice.
struct coverage {
  std::vector<int64_t> by;
  std::string error;
  explicit coverage(int64_t cols) : by(static_cast<size_t>(cols), -1) {}
  void mark(int64_t c, int64_t thread, const char* what) {
    if (!error.empty()) return;
    if (c < 0 || c >= static_cast<int64_t>(by.size())) {
      error = std::string(what) + ": column " + std::to_string(c) + " outside the row";
      return;
    }
    if (by[static_cast<size_t>(c)] != -1) error = std::string(what) + ": column " + std::to_string(c) + " twice";
    by[static_cast<size_t>(c)] = thread;
  }
};

/// The columns of pack k of `tp` that an element-wise load or store reaches (store_row_pack,
/// load_row_pack_raw): those inside the row.
template <class TP>
void edge_pack(const TP& tp, int k, int n, int64_t thread, coverage& cv, const char* what) {
  for (int j = 0; j < n; ++j) {
    const int64_t c = tp.col(k) + j;
    if (c >= 0 && c < tp.cols) cv.mark(c, thread, what);
  }
}

/// The wrapped head pack's columns (load_wrapped_head_raw, store_wrapped_head).
template <class TP>
void wrapped_pack(const TP& tp, int n, int64_t thread, coverage& cv, const char* what) {
  const int tail = tp.head_pack_tail();
  for (int j = 0; j < n; ++j) {
    if (j < tail)
      cv.mark(tp.cols - tail + j, thread, what);
    else if (j >= tp.head())
      cv.mark(j - tp.head(), thread, what);
  }
}

template <int K, int G, int N, bool Wrap>
std::string check_row(int64_t cols, int head, int cluster, int64_t segment_packs) {
  coverage loads(cols), stores(cols);
  for (int rank = 0; rank < cluster; ++rank) {
    const int64_t seg_begin = rank * segment_packs;
    for (int lane = 0; lane < G; ++lane) {
      const int64_t thread = int64_t{rank} * G + lane;
      const rk::thread_packs<K, G, N, Wrap> tp(true, seg_begin + lane, seg_begin + segment_packs, cols, head);
      if (tp.all_whole()) {  // both sides' branch-free path
        for (int k = 0; k < K; ++k)
          for (int j = 0; j < N; ++j) {
            loads.mark(tp.col(k) + j, thread, "load (all whole)");
            stores.mark(tp.col(k) + j, thread, "store (all whole)");
          }
        continue;
      }
      // load_op_packs: whole packs, then every other pack that touches the row.
      for (int k = 0; k < K; ++k)
        if (tp.whole(k))
          for (int j = 0; j < N; ++j) loads.mark(tp.col(k) + j, thread, "load (whole)");
      for (int k = 0; k < K; ++k) {
        if (k == 0 && tp.head_pack_tail() > 0)
          wrapped_pack(tp, N, thread, loads, "load (wrapped head)");
        else if (!tp.whole(k) && tp.touches(k))
          edge_pack(tp, k, N, thread, loads, "load (edge)");
      }
      // store_op_packs: whole packs, then the head pack (wrapped or not) and the partial tail.
      for (int k = 0; k < K; ++k)
        if (tp.whole(k))
          for (int j = 0; j < N; ++j) stores.mark(tp.col(k) + j, thread, "store (whole)");
      if (tp.head_pack_tail() > 0)
        wrapped_pack(tp, N, thread, stores, "store (wrapped head)");
      else if (!tp.whole(0) && tp.touches(0))
        edge_pack(tp, 0, N, thread, stores, "store (head)");
      if (K > 1) {
        const int kt = tp.partial_tail();
        if (kt > 0) edge_pack(tp, kt, N, thread, stores, "store (tail)");
      }
    }
  }
  if (!loads.error.empty()) return loads.error;
  if (!stores.error.empty()) return stores.error;
  for (int64_t c = 0; c < cols; ++c) {
    if (loads.by[static_cast<size_t>(c)] < 0) return "column " + std::to_string(c) + " never loaded";
    if (stores.by[static_cast<size_t>(c)] != loads.by[static_cast<size_t>(c)])
      return "column " + std::to_string(c) + " stored by another thread than loaded it (or never)";
  }
  return "";
}

using row_checker = std::string (*)(int64_t, int, int, int64_t);

template <int N, bool Wrap, std::size_t... I>
constexpr std::array<row_checker, sizeof...(I)> checkers_for(std::index_sequence<I...>) {
  return {&check_row<dsp::registers_k(static_cast<int>(I), N), dsp::registers_configs[I].g, N, Wrap>...};
}

/// The plan's kernel instance, as launch.cuh picks it: with the wrap's code where the plan names
/// it (plan.hpp: wrap_instance; the instance without would leave a wrapped row's last columns
/// unmoved), and always for the ops that have no other (policy.hpp: wrap_instance_only_ops).
template <int N>
std::string check_plan_row(const dsp::plan& pl, int64_t cols, int head, bool wrap_instance_only) {
  constexpr auto configs = std::make_index_sequence<dsp::registers_config_count>{};
  static constexpr auto wrapping = checkers_for<N, true>(configs);
  static constexpr auto plain = checkers_for<N, false>(configs);
  if (rk::packs_wrap(N) && wrap_instance_only && !pl.wrap_instance)
    return "a plan of an op with only the wrap instance does not name it";
  const auto& table = rk::packs_wrap(N) && (pl.wrap_instance || wrap_instance_only) ? wrapping : plain;
  return table[static_cast<size_t>(pl.config)](cols, head, pl.cluster, pl.segment_packs);
}

struct op_shape {
  const char* name;
  bool staged_op;
  int weights;
  int row_inputs;
};
constexpr op_shape op_shapes[] = {
    {"softmax", true, 0, 1}, {"layer_norm", false, 2, 1}, {"fused_add_rms_norm", true, 1, 2}};

/// Checks every row head against the plans of (rows, cols); counts the registers plans checked.
void check_cols(int64_t cols, int elem_bytes, int& checked) {
  const dsp::device_limits dev = rowwise_test::h200_like();
  const int n = 16 / elem_bytes;
  for (const op_shape& op : op_shapes)
    for (int64_t rows : {int64_t{1}, int64_t{100000}})
      for (int plan_head = -1; plan_head < n; ++plan_head) {
        const dsp::problem p = rowwise_test::plan_problem(
            rows, cols, elem_bytes, n, plan_head, op.staged_op,
            rowwise_test::weights_desc{op.weights, op.weights > 0 ? elem_bytes : 0}, op.row_inputs);
        const dsp::plan pl = dsp::plan_rows(p, dev);
        if (pl.kind != dsp::strategy::registers) continue;
        // Rows of a planned head have that head; rows planned for head -1 have any.
        for (int head = plan_head < 0 ? 0 : plan_head; head < (plan_head < 0 ? n : plan_head + 1); ++head) {
          const bool wrap_only = dsp::wrap_instance_only(dsp::op_kind_for(op.weights > 0, op.staged_op, op.row_inputs), n);
          const std::string e = n == 4 ? check_plan_row<4>(pl, cols, head, wrap_only)
                                       : check_plan_row<8>(pl, cols, head, wrap_only);
          ++checked;
          if (!e.empty()) {
            INFO(op.name << " " << elem_bytes << "-byte elements, " << rows << " x " << cols << ", row head " << head
                         << ", plan head " << plan_head << ": config " << pl.config << " (G " << pl.threads_per_row
                         << ", K " << pl.packs_per_thread << "), cluster " << pl.cluster << ", segment "
                         << pl.segment_packs << (pl.wrap_instance ? ", wrap instance" : ""));
            FAIL_CHECK(e);
            return;
          }
        }
      }
}

}  // namespace

TEST_CASE("thread_packs: a registers plan's threads load and store every column of a row once, wrapped "
          "head packs included",
          "[host][plan]") {
  int checked = 0;
  for (int elem_bytes : {4, 2}) {
    for (int64_t cols = 1; cols <= 2100; ++cols) check_cols(cols, elem_bytes, checked);
    for (int64_t base : {4096, 5120, 8192, 12288, 16384, 32768, 65536, 131072, 152064})
      for (int64_t d = -9; d <= 9; ++d) check_cols(base + d, elem_bytes, checked);
  }
  INFO("registers rows checked: " << checked);
  CHECK(checked > 100000);
}

TEST_CASE("thread_packs: the wrap takes a partial last pack only into a partial head pack with room",
          "[host][plan]") {
  CHECK(rk::wrapped_row_tail(1024, 8, 1) == 1);  // 1 + 1023 + ... : the last pack holds 1 element
  CHECK(rk::wrapped_row_tail(1024, 8, 7) == 7);
  CHECK(rk::wrapped_row_tail(1024, 8, 0) == 0);  // aligned: nothing partial
  CHECK(rk::wrapped_row_tail(1025, 8, 1) == 0);  // a last pack of 2 does not fit 1 free slot
  CHECK(rk::wrapped_row_tail(1023, 8, 1) == 0);  // 1 + 1023: ends on a pack boundary
  CHECK(rk::wrapped_row_tail(5, 8, 4) == 1);     // 4 free + 5 columns: packs [-4, 4) and [4, 12)
  CHECK(rk::wrapped_row_tail(3, 8, 4) == 0);     // one pack only
  CHECK(rk::wrapped_row_tail(1024, 4, 1) == 1);  // fp32 packs likewise
  CHECK(rk::wrapped_row_tail(1025, 4, 1) == 0);
  CHECK(rk::wrapped_row_tail(1026, 4, 2) == 0);  // 2 + 1026: ends on a pack boundary
  CHECK(rk::wrapped_row_tail(1026, 4, 3) == 1);
  CHECK(rk::wrapped_row_tail(1024, 2, 1) == 0);  // packs of 2 never wrap
  // The kernel's count and the plan's agree (plan.hpp: registers_row_packs_for).
  for (int n : {4, 8})
    for (int64_t cols = 1; cols < 200; ++cols)
      for (int head = 0; head < n; ++head) {
        const int64_t spanned = (cols + head + n - 1) / n;
        CHECK(dsp::registers_row_packs_for(cols, n, head) ==
              spanned - (rk::wrapped_row_tail(cols, n, head) > 0 ? 1 : 0));
      }
}

TEST_CASE("thread_packs: plans name the wrap instance exactly when some row of theirs wraps", "[host][plan]") {
  // Aligned rows (head 0) never wrap; packs of 2 never do (their instances compile without the
  // wrap); packs of 4 (fp32) do as packs of 8 do.
  for (int64_t cols : {8, 1024, 32768, 65536, 4097}) {
    CHECK_FALSE(dsp::registers_rows_wrap(cols, 8, 0));
    CHECK_FALSE(dsp::registers_rows_wrap(cols, 4, 0));
    for (int head = -1; head < 2; ++head) CHECK_FALSE(dsp::registers_rows_wrap(cols, 2, head));
  }
  CHECK(dsp::registers_rows_wrap(65536, 4, 1));        // fp32, one past a boundary
  CHECK(dsp::registers_rows_wrap(65536, 4, 3));
  CHECK_FALSE(dsp::registers_rows_wrap(65537, 4, 1));  // a last pack of 2 does not fit 1 free slot
  CHECK(dsp::registers_rows_wrap(32768, 8, 1));    // one past a boundary, a multiple of 8 long
  CHECK(dsp::registers_rows_wrap(32768, 8, -1));   // heads differ: some row wraps
  CHECK_FALSE(dsp::registers_rows_wrap(32769, 8, 1));   // a last pack of 2 does not fit 1 free slot
  CHECK_FALSE(dsp::registers_rows_wrap(32769, 8, -1));  // ... nor h + 1 into h, for any head
  CHECK(dsp::registers_rows_wrap(32766, 8, 4));         // a last pack of 2 into 4 free slots
  // The flag is the plan's (the launcher picks the instance by it), for every head and width.
  const dsp::device_limits dev = rowwise_test::h200_like();
  int wrapping = 0, plain = 0;
  for (int elem_bytes : {4, 2})
    for (int64_t cols : {int64_t{1000}, int64_t{4096}, int64_t{8192}, int64_t{32768}, int64_t{65536}})
      for (int head = -1; head < 16 / elem_bytes; ++head) {
        const int n = 16 / elem_bytes;
        const dsp::problem p = rowwise_test::plan_problem(100000, cols, elem_bytes, n, head, true,
                                                          rowwise_test::weights_desc{0, 0}, 1);
        const dsp::plan pl = dsp::plan_rows(p, dev);
        if (pl.kind != dsp::strategy::registers) continue;
        INFO(elem_bytes << "-byte elements, " << cols << " columns, head " << head);
        CHECK(pl.wrapped_rows == dsp::registers_rows_wrap(cols, n, head));
        if (pl.wrapped_rows) CHECK(pl.wrap_instance);
        (pl.wrapped_rows ? wrapping : plain) += 1;
      }
  CHECK(wrapping > 0);
  CHECK(plain > 0);
}

TEST_CASE("thread_packs: groups that merge edge packs take the wrap instance for rows not of whole packs",
          "[host][plan]") {
  // The merge's code is in the wrap instance only (registers_kernel.cuh): 16-bit rows on groups of
  // 2 (up to 32 columns in a pack of 8's groups) take it wherever a row starts or ends inside a
  // pack, wrapped or not, and the instance without it for rows of whole packs.
  const dsp::device_limits dev = rowwise_test::h200_like();
  const auto softmax_plan = [&](int64_t cols, int elem_bytes, int head) {
    const int n = 16 / elem_bytes;
    return dsp::plan_rows(rowwise_test::plan_problem(2097152, cols, elem_bytes, n, head, true,
                                                     rowwise_test::weights_desc{0, 0}, 1),
                          dev);
  };
  CHECK(rk::merges_edge_packs(2, 8, 2));
  CHECK_FALSE(rk::merges_edge_packs(2, 8, 4));
  CHECK_FALSE(rk::merges_edge_packs(4, 4, 2));
  dsp::plan pl = softmax_plan(32, 2, 0);  // aligned rows of whole packs
  REQUIRE(pl.kind == dsp::strategy::registers);
  REQUIRE(pl.threads_per_row == 2);
  CHECK_FALSE(pl.wrapped_rows);
  CHECK_FALSE(pl.wrap_instance);
  pl = softmax_plan(32, 2, 7);  // one element past a boundary: wraps
  REQUIRE(pl.threads_per_row == 2);
  CHECK(pl.wrapped_rows);
  CHECK(pl.wrap_instance);
  pl = softmax_plan(30, 2, 0);  // aligned, a partial last pack: no wrap, but edges to merge
  REQUIRE(pl.threads_per_row == 2);
  CHECK_FALSE(pl.wrapped_rows);
  CHECK(pl.wrap_instance);
  pl = softmax_plan(32, 2, -1);  // heads differ
  REQUIRE(pl.threads_per_row == 2);
  CHECK(pl.wrap_instance);
  // Groups that do not merge keep the instance without the wrap where no row wraps.
  pl = softmax_plan(30, 4, 0);
  REQUIRE(pl.kind == dsp::strategy::registers);
  CHECK_FALSE(rk::merges_edge_packs(4, 4, pl.threads_per_row));
  CHECK_FALSE(pl.wrap_instance);
  pl = softmax_plan(126, 2, 0);
  REQUIRE(pl.threads_per_row > 2);
  CHECK_FALSE(pl.wrap_instance);
}

TEST_CASE("policy: softmax plans count the budget their instances compile under", "[host][plan]") {
  // policy.hpp: row_kernel_register_cap lowers only fused instances: every softmax plan of 1-1024
  // columns, any head, counts its budget, wrap instance or not.
  const dsp::device_limits dev = rowwise_test::h200_like();
  for (int elem_bytes : {2, 4})
    for (int64_t cols = 1; cols <= 1024; ++cols)
      for (int head : {0, 1, -1}) {
        const int n = 16 / elem_bytes;
        const dsp::problem p =
            rowwise_test::plan_problem(1 << 20, cols, elem_bytes, n, head, true, rowwise_test::weights_desc{0, 0}, 1);
        const dsp::plan pl = dsp::plan_rows(p, dev);
        if (pl.kind != dsp::strategy::registers) continue;
        const int values = pl.packs_per_thread * n;
        INFO(elem_bytes << "-byte elements, " << cols << " columns, head " << head);
        CHECK(dsp::row_kernel_registers_of(p, pl.block, values, pl.threads_per_row, false, pl.wrap_instance) ==
              dsp::row_kernel_registers_for(false, false, elem_bytes, pl.block, values, pl.threads_per_row));
      }
}

TEST_CASE("policy: 16-bit fused rows of 32 values cap their wrap instances only, and keep the prefetch",
          "[host][plan]") {
  // policy.hpp: row_kernel_register_cap, fused_16bit_wrap_registers. Aligned rows of whole packs run
  // the instance without the wrap under the fused budget; rows offset by one element the wrap
  // instance under the cap; both prefetch (decided at the budget, as measured).
  const dsp::device_limits dev = rowwise_test::h200_like();
  const int fused = dsp::row_kernel_registers.fused_residual;
  for (int64_t cols : {1024, 2048, 4096, 5120}) {
    INFO(cols << " columns");
    const dsp::problem aligned =
        rowwise_test::plan_problem(32768, cols, 2, 8, 0, true, rowwise_test::weights_desc{1, 2}, 2);
    const dsp::problem offset =
        rowwise_test::plan_problem(32768, cols, 2, 8, 1, true, rowwise_test::weights_desc{1, 2}, 2);
    const dsp::plan pa = dsp::plan_rows(aligned, dev);
    const dsp::plan po = dsp::plan_rows(offset, dev);
    REQUIRE(pa.kind == dsp::strategy::registers);
    REQUIRE(po.kind == dsp::strategy::registers);
    REQUIRE(pa.packs_per_thread * 8 <= dsp::fused_16bit_wrap_max_values);
    REQUIRE(po.packs_per_thread * 8 <= dsp::fused_16bit_wrap_max_values);
    CHECK_FALSE(pa.wrap_instance);
    CHECK(po.wrap_instance);
    const int va = pa.packs_per_thread * 8, vo = po.packs_per_thread * 8;
    CHECK(dsp::row_kernel_registers_of(aligned, pa.block, va, pa.threads_per_row, false, pa.wrap_instance) == fused);
    CHECK(dsp::row_kernel_registers_of(offset, po.block, vo, po.threads_per_row, false, po.wrap_instance) ==
          dsp::fused_16bit_wrap_registers);
    CHECK(dsp::row_kernel_prefetches_of(aligned, pa.block, va, pa.threads_per_row, false));
    CHECK(dsp::row_kernel_prefetches_of(offset, po.block, vo, po.threads_per_row, false));
  }
  // fp32 fused rows and 16-bit ones of more than 32 values keep the budget in either instance.
  CHECK(dsp::row_kernel_register_cap(fused, true, 4, 32, true) == fused);
  CHECK(dsp::row_kernel_register_cap(fused, true, 2, 64, true) == fused);
  CHECK(dsp::row_kernel_register_cap(fused, true, 2, 32, false) == fused);
}
