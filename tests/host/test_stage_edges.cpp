// tests/host/test_stage_edges.cpp — the staged kernel's CTAs cover a row exactly once, and stage
// its partial packs without reading outside it.
//
// kernels/stage_edge_pack.cuh holds the staged kernel's arithmetic: which packs of a row each
// CTA of a cluster stages (staged_segment), which of them are partial (the row's head pack and
// its last one, for rows that start or end inside a 16-byte pack), and how a partial pack moves
// by 4-byte words (edge_words: cp.async for words inside the row, the pad for words outside, a
// lone 2-byte element loaded and stored later). Here, for the staged plans of many widths and
// every head:
//  - every column of the row lies in exactly one CTA's segment;
//  - a pack the kernel takes as whole lies inside the row (its 16-byte copy and store read and
//    write nothing else), and a pack it takes as partial is one;
//  - the words of a partial pack copy every element of the row in it once, copy no word that
//    holds an element outside the row, and leave at most one lone element for later (two only in
//    a pack that is the row's head and last at once).
#include <catch2/catch.hpp>

#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/kernels/stage_edge_pack.cuh>

#include "support/device_models.hpp"
#include "support/plan_problems.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace dsp = rowwise::dispatch;
namespace rk = rowwise::kernels;

/// The elements of the partial pack at col0 that its words reach, each marked in `seen` (indexed
/// by column); an error for an element reached twice or a copied word that leaves the row.
template <int ElemBytes, int N>
std::string check_edge_words(int64_t col0, int64_t cols, bool first_and_last, std::vector<int>& seen) {
  using words = rk::edge_words<ElemBytes, N>;
  int lones = 0;
  for (int w = 0; w < words::count; ++w) {
    const int64_t c = col0 + static_cast<int64_t>(w) * words::per_word;
    auto mark = [&](int64_t col) -> std::string {
      if (col < 0 || col >= cols) return "element " + std::to_string(col) + " outside the row reached";
      if (seen[static_cast<size_t>(col)]++ != 0) return "element " + std::to_string(col) + " reached twice";
      return "";
    };
    std::string e;
    switch (words::kind(col0, cols, w)) {
      case rk::edge_word::inside:  // a cp.async of the whole word: every element of it
        for (int j = 0; j < words::per_word && e.empty(); ++j) e = mark(c + j);
        break;
      case rk::edge_word::outside:
        for (int j = 0; j < words::per_word; ++j)
          if (c + j >= 0 && c + j < cols) return "element " + std::to_string(c + j) + " of the row padded";
        break;
      case rk::edge_word::lone_low:
        ++lones;
        if (c + 1 >= 0 && c + 1 < cols) return "lone_low word whose second element is in the row";
        e = mark(c);
        break;
      case rk::edge_word::lone_high:
        ++lones;
        if (c >= 0 && c < cols) return "lone_high word whose first element is in the row";
        e = mark(c + 1);
        break;
    }
    if (!e.empty()) return e;
  }
  if (lones > (first_and_last ? 2 : 1)) return "more lone elements than store_edge_lone keeps";
  const int deferred = words::deferred_lone(col0, cols);
  if ((lones > 0) != (deferred >= 0)) return "deferred_lone disagrees with the words";
  return "";
}

/// Every pack of a row of `cols` elements with this head, whole ones by their N elements and
/// partial ones by check_edge_words (rows of one pack are partial at both ends): each element of
/// the row reached once, nothing outside it.
template <int ElemBytes, int N>
std::string check_row_words(int64_t cols, int head) {
  std::vector<int> seen(static_cast<size_t>(cols), 0);
  const int64_t packs = (cols + head + N - 1) / N;
  for (int64_t p = 0; p < packs; ++p) {
    const int64_t col0 = p * N - head;
    if (col0 >= 0 && col0 + N <= cols) {
      for (int j = 0; j < N; ++j) ++seen[static_cast<size_t>(col0 + j)];
    } else if (const std::string e = check_edge_words<ElemBytes, N>(col0, cols, packs == 1, seen); !e.empty()) {
      return "pack at column " + std::to_string(col0) + ": " + e;
    }
  }
  for (int64_t c = 0; c < cols; ++c)
    if (seen[static_cast<size_t>(c)] != 1) return "column " + std::to_string(c) + " reached " +
                                                  std::to_string(seen[static_cast<size_t>(c)]) + " times";
  return "";
}

/// A staged row of `cols` columns with this head over `cluster` CTAs of `segment` packs.
template <int ElemBytes, bool Edges>
std::string check_staged_row(int64_t cols, int head, int cluster, int64_t segment) {
  constexpr int n = 16 / ElemBytes;
  std::vector<int> seen(static_cast<size_t>(cols), 0);
  const int64_t row_packs = (cols + head + n - 1) / n;
  for (int rank = 0; rank < cluster; ++rank) {
    const rk::staged_segment<n, Edges> seg(cols, head, segment, static_cast<unsigned>(rank));
    if (seg.len > segment) return "segment longer than planned";
    for (int p = 0; p < seg.len; ++p) {
      const int64_t col0 = seg.col_of(p);
      const bool whole = col0 >= 0 && col0 + n <= cols;
      if (seg.edge(p) == whole) return "pack at column " + std::to_string(col0) + (whole ? " whole" : " partial") +
                                       " but taken as the other";
      if (whole) {
        for (int j = 0; j < n; ++j)
          if (seen[static_cast<size_t>(col0 + j)]++ != 0) return "column " + std::to_string(col0 + j) + " twice";
      } else {
        const bool first_and_last = row_packs == 1;
        const std::string e = check_edge_words<ElemBytes, n>(col0, cols, first_and_last, seen);
        if (!e.empty()) return "partial pack at column " + std::to_string(col0) + ": " + e;
      }
    }
  }
  for (int64_t c = 0; c < cols; ++c)
    if (seen[static_cast<size_t>(c)] != 1) return "column " + std::to_string(c) + " never staged";
  return "";
}

/// Checks the staged plans of softmax and fused_add_rms_norm rows (many and few rows) of this
/// width at every head; counts the rows checked.
void check_cols(int64_t cols, int elem_bytes, int& checked) {
  const dsp::device_limits dev = rowwise_test::h200_like();
  const int n = 16 / elem_bytes;
  struct op_shape {
    bool column_params;
    int inputs;
  };
  for (const op_shape op : {op_shape{false, 1}, op_shape{true, 1}, op_shape{true, 2}})
    for (int64_t rows : {int64_t{8}, int64_t{100000}})
      for (int head = 0; head < n; ++head) {
        const dsp::problem p = rowwise_test::plan_problem(
            rows, cols, elem_bytes, n, head, /*staged_op=*/true,
            rowwise_test::weights_desc{op.column_params ? 1 : 0, op.column_params ? elem_bytes : 0}, op.inputs);
        const dsp::plan pl = dsp::plan_rows(p, dev);
        if (pl.kind != dsp::strategy::staged) continue;
        const bool edges = pl.partial_packs;
        std::string e;
        if (elem_bytes == 4)
          e = edges ? check_staged_row<4, true>(cols, head, pl.cluster, pl.segment_packs)
                    : check_staged_row<4, false>(cols, head, pl.cluster, pl.segment_packs);
        else
          e = edges ? check_staged_row<2, true>(cols, head, pl.cluster, pl.segment_packs)
                    : check_staged_row<2, false>(cols, head, pl.cluster, pl.segment_packs);
        ++checked;
        if (!e.empty()) {
          INFO(elem_bytes << "-byte elements, " << rows << " x " << cols << ", head " << head << ", inputs "
                          << op.inputs << ": cluster " << pl.cluster << ", segment " << pl.segment_packs
                          << ", partial_packs " << edges);
          FAIL_CHECK(e);
          return;
        }
      }
}

}  // namespace

TEST_CASE("staged rows: each CTA's segment, its partial packs and their words cover a row exactly once",
          "[host][plan]") {
  int checked = 0;
  for (int elem_bytes : {4, 2}) {
    for (int64_t base : {8192, 12288, 16384, 32768, 65536, 131072, 152064, 262144, 393216})
      for (int64_t d = -9; d <= 9; ++d) check_cols(base + d, elem_bytes, checked);
    for (int64_t cols = 152064 - 200; cols < 152064; cols += 7) check_cols(cols, elem_bytes, checked);
  }
  INFO("staged rows checked: " << checked);
  CHECK(checked > 1000);
}

TEST_CASE("staged rows: a partial pack's words, for every position of the row in the pack", "[host][plan]") {
  // Rows of 1 to 40 elements, every pack they span (including rows of one pack, partial at both
  // ends): the words reach exactly the row's elements of the pack.
  int checked = 0;
  for (int64_t cols = 1; cols <= 40; ++cols)
    for (int head = 0; head < 8; ++head) {
      const std::string e2 = check_row_words<2, 8>(cols, head);
      INFO("2-byte elements, cols " << cols << ", head " << head << ": " << e2);
      CHECK(e2.empty());
      ++checked;
      if (head < 4) {
        const std::string e4 = check_row_words<4, 4>(cols, head);
        INFO("4-byte elements, cols " << cols << ", head " << head << ": " << e4);
        CHECK(e4.empty());
        ++checked;
      }
    }
  CHECK(checked == 40 * 12);
  // The cases the staged kernel meets (rows one element past a boundary): the head pack's first
  // element and, for lengths a multiple of N, the last pack's only one are lone 2-byte elements.
  using w8 = rk::edge_words<2, 8>;
  CHECK(w8::kind(-1, 1024, 0) == rk::edge_word::lone_high);
  CHECK(w8::deferred_lone(-1, 1024) == 0);
  CHECK(w8::kind(1023, 1024, 0) == rk::edge_word::lone_low);
  CHECK(w8::kind(1023, 1024, 1) == rk::edge_word::outside);
  CHECK(w8::kind(-2, 1024, 0) == rk::edge_word::outside);
  CHECK(w8::kind(-2, 1024, 1) == rk::edge_word::inside);
  CHECK(w8::deferred_lone(-2, 1024) == -1);
  using w4 = rk::edge_words<4, 4>;
  CHECK(w4::kind(-1, 1024, 0) == rk::edge_word::outside);
  CHECK(w4::kind(-1, 1024, 1) == rk::edge_word::inside);
  CHECK(w4::deferred_lone(-1, 1024) == -1);
}
