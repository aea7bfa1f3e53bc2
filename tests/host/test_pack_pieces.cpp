// tests/host/test_pack_pieces.cpp — a partial pack's pieces cover its range exactly once.
//
// kernels/row_pack_span.hpp: for_suffix_pieces / for_prefix_pieces choose the aligned
// power-of-two accesses (pieces) that move slots [lo, N) or [0, hi) of a pack (row_io.cuh: a row's
// head and tail packs, and the wrapped head pack). Every slot of the range must be in exactly one
// piece, none outside it, each piece aligned to its own size within the pack and no wider than
// half the pack, and no more of them than log2(N).
#include <catch2/catch.hpp>

#include <rowwise/kernels/row_pack_span.hpp>

#include <vector>

namespace {

namespace rk = rowwise::kernels;

struct piece {
  int q, s;
};

/// Whether `pieces` cover [lo, hi) of a pack of n exactly once, aligned, at most log2(n) of them.
bool covers(const std::vector<piece>& pieces, int n, int lo, int hi) {
  std::vector<int> hits(n, 0);
  int log2n = 0;
  while ((1 << log2n) < n) ++log2n;
  if (static_cast<int>(pieces.size()) > log2n) return false;
  for (const piece& p : pieces) {
    if (p.s < 1 || p.s > n / 2 || (p.s & (p.s - 1)) != 0 || p.q % p.s != 0 || p.q < 0 || p.q + p.s > n) return false;
    for (int j = p.q; j < p.q + p.s; ++j) ++hits[j];
  }
  for (int j = 0; j < n; ++j)
    if (hits[j] != (j >= lo && j < hi ? 1 : 0)) return false;
  return true;
}

template <int N>
void check_pack_width() {
  for (int lo = 1; lo < N; ++lo) {
    std::vector<piece> got;
    rk::for_suffix_pieces<N>(lo, [&](int q, int s) { got.push_back({q, s}); });
    INFO("N " << N << ", suffix from " << lo);
    CHECK(covers(got, N, lo, N));
  }
  for (int hi = 1; hi < N; ++hi) {
    std::vector<piece> got;
    rk::for_prefix_pieces<N>(hi, [&](int q, int s) { got.push_back({q, s}); });
    INFO("N " << N << ", prefix to " << hi);
    CHECK(covers(got, N, 0, hi));
  }
}

}  // namespace

TEST_CASE("pack pieces: a partial pack's suffix or prefix moves in at most log2(N) aligned accesses, each slot once",
          "[host][pieces]") {
  check_pack_width<2>();
  check_pack_width<4>();
  check_pack_width<8>();
  check_pack_width<16>();  // one-byte elements, should a 16-element pack ever come
  // The 16-bit head pack one element past a 16-byte boundary: 2, 4 and 8 bytes.
  std::vector<piece> head;
  rk::for_suffix_pieces<8>(1, [&](int q, int s) { head.push_back({q, s}); });
  REQUIRE(head.size() == 3);
  CHECK((head[0].q == 4 && head[0].s == 4));
  CHECK((head[1].q == 2 && head[1].s == 2));
  CHECK((head[2].q == 1 && head[2].s == 1));
}
