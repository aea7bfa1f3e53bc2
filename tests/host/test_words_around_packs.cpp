// tests/host/test_words_around_packs.cpp — misaligned 2-byte weights read by words stay inside.
//
// A row whose packs are not aligned like its weights reads each whole pack's 2-byte weights as
// 4-byte words (row_io.cuh: load_column_params_by_words); at an odd element those words hold the
// column before the pack and the one after it. The write-back decides once per row whether that
// is safe for every whole pack (row_pack_span.hpp: words_around_whole_packs, from the row's
// packs' column modulo N as a thread computes it). Checked here against every whole pack of rows
// of every head and length, wrapped or not: when it allows the words, every word read lies inside
// [0, cols); when it refuses them, some whole pack would read outside (so the test is not looser
// than it has to be).
#include <catch2/catch.hpp>

#include <rowwise/kernels/row_pack_span.hpp>
#include <rowwise/kernels/thread_pack_indices.cuh>

#include <cstdint>

namespace {

namespace rk = rowwise::kernels;

template <int N, bool Wrap>
void check_width() {
  int64_t allowed = 0, refused = 0;
  for (int head = 0; head < N; ++head)
    for (int64_t cols = 1; cols <= 8 * N + 3; ++cols) {
      // One thread holding every pack of the row (G = 1, K large enough): c0 is pack 0's column,
      // as in the kernels; its residue is what the write-back tests.
      constexpr int K = 16;
      const rk::thread_packs<K, 1, N, Wrap> tp(true, 0, K, cols, head);
      const int ref = static_cast<int>(tp.c0 & (N - 1));
      const bool ok = rk::words_around_whole_packs(ref, cols, N);
      bool all_inside = true, any_whole = false;
      for (int k = 0; k < K; ++k) {
        if (!tp.whole(k)) continue;
        any_whole = true;
        const int64_t c = tp.col(k);
        INFO("N " << N << " wrap " << Wrap << " head " << head << " cols " << cols << " pack at " << c);
        CHECK(c % N == (ref + N) % N);  // every whole pack at ref modulo N
        CHECK(c >= ref);
        if (c - 1 < 0 || c + N + 1 > cols) all_inside = false;  // the words read [c - 1, c + N + 1)
      }
      INFO("N " << N << " wrap " << Wrap << " head " << head << " cols " << cols << " ref " << ref);
      if (ok) CHECK(all_inside);
      if (any_whole && !ok) CHECK(!all_inside);
      if (any_whole) ++(ok ? allowed : refused);
    }
  CHECK(allowed > 0);
  CHECK(refused > 0);
}

}  // namespace

TEST_CASE("misaligned weights read by words stay inside the weight vector (every head, length, wrap)",
          "[host][thread_packs]") {
  check_width<4, false>();
  check_width<8, false>();
  check_width<8, true>();
}
