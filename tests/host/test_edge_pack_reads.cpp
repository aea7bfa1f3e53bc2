// tests/host/test_edge_pack_reads.cpp — a row's edge packs are read whole only inside the matrix.
//
// kernels/row_pack_span.hpp: edge_pack_reads_for says whether a registers kernel may read a row's
// partial head pack (the aligned pack the row starts in) and its partial tail pack (the one it
// ends in) as whole 16-byte packs, whose other slots belong to the neighbouring rows or the gap
// between rows. Whatever it allows must lie inside the matrix: from the first row's first element
// to the last row's last, for every pack width, matrix phase, row count, length and stride.
#include <catch2/catch.hpp>

#include <rowwise/kernels/row_pack_span.hpp>

#include <cstdint>

namespace {

namespace rk = rowwise::kernels;

template <int N>
void check_width() {
  int64_t head_reads = 0, tail_reads = 0;
  for (int64_t base = 0; base < N; ++base)  // the matrix's first element, in elements past an aligned address
    for (int64_t rows = 1; rows <= 4; ++rows)
      for (int64_t cols = 1; cols <= 3 * N + 1; ++cols)
        for (int64_t stride = cols; stride <= cols + N + 1; ++stride) {
          const int64_t first = base, end = base + (rows - 1) * stride + cols;  // [first, end)
          for (int64_t r = 0; r < rows; ++r) {
            const auto e = rk::edge_pack_reads_for<N>(r, rows, stride);
            const int64_t start = base + r * stride;
            const int64_t head_pack = start - start % N;  // the pack the row starts in
            INFO("N " << N << " base " << base << " rows " << rows << " cols " << cols << " stride " << stride
                      << " row " << r);
            // thread_packs.cuh reads a pack whole when it is inside the row or the edges it
            // crosses are allowed (a wrapped head pack and its tail pack: both edges).
            for (int64_t p = head_pack; p < start + cols; p += N) {
              const bool before = p < start, after = p + N > start + cols;
              if (!(before || after) || !((!before || e.head) && (!after || e.tail))) continue;
              CHECK(p >= first);
              CHECK(p + N <= end);
              ++(before ? head_reads : tail_reads);
            }
            // A row inside the matrix (neither first nor last) reads both edges whole once rows are
            // N - 1 elements apart: the rule is not vacuous.
            if (r > 0 && r + 1 < rows && stride >= N - 1) CHECK((e.head && e.tail));
          }
        }
  if (N > 1) {  // packs of one element are never partial
    CHECK(head_reads > 0);
    CHECK(tail_reads > 0);
  }
}

}  // namespace

TEST_CASE("edge packs read whole lie inside the matrix (every width, phase, length, stride)", "[host][thread_packs]") {
  check_width<1>();
  check_width<2>();
  check_width<4>();
  check_width<8>();
}
