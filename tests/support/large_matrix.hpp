// tests/support/large_matrix.hpp — checking a matrix of more than 2^31 elements by a sample of its
// rows: which rows, how to read them back, and whether the poisoned bytes after it survived.
// (Shared by the softmax and norm tests; the reference and the launch differ, the bookkeeping
// does not.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "support/device_matrix.hpp"
#include "support/inputs.hpp"

namespace rowwise_test {

/// Whether `bytes` of device memory plus 512 MiB of headroom are free; else `why` says how much.
inline bool device_memory_for(size_t bytes, std::string& why) {
  size_t free_b = 0, total_b = 0;
  RW_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (free_b >= bytes + (size_t{512} << 20)) return true;
  why = "skipped: needs " + std::to_string(bytes >> 20) + " MiB of device memory, " +
        std::to_string(free_b >> 20) + " MiB free";
  return false;
}

/// The rows to check in a rows x cols matrix with more than 2^31 elements: the first two, the two
/// on either side of element 2^31 (byte 2^32 for 16-bit types), the last two and 50 random ones;
/// sorted, without repeats.
inline std::vector<int64_t> sample_rows(int64_t rows, int64_t cols, seeded_rng& rng) {
  const int64_t around = (int64_t{1} << 31) / cols;
  std::vector<int64_t> s = {0, 1, around - 1, around, rows - 2, rows - 1};
  for (int k = 0; k < 50; ++k) s.push_back(rng.index(rows));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// The given rows of a contiguous matrix (cols elements of `t` per row) in `buf`, decoded to
/// fp64, one row after another in the order given.
inline std::vector<double> download_rows(const device_buffer& buf, dtype t, const std::vector<int64_t>& rows,
                                         int64_t cols) {
  const size_t row_bytes = static_cast<size_t>(cols * elem_bytes(t));
  std::vector<unsigned char> raw(rows.size() * row_bytes);
  for (size_t k = 0; k < rows.size(); ++k)
    buf.download(raw.data() + k * row_bytes, row_bytes, static_cast<size_t>(rows[k]) * row_bytes);
  std::vector<double> v(rows.size() * static_cast<size_t>(cols));
  decode(t, raw.data(), v.size(), v.data());
  return v;
}

/// Every byte of the `tail` elements that follow the first `n` elements of `buf` still holds
/// poison_byte: nothing was written past the matrix.
inline bool tail_poisoned(const device_buffer& buf, dtype t, int64_t n, int64_t tail) {
  std::vector<unsigned char> after(static_cast<size_t>(tail * elem_bytes(t)));
  buf.download(after.data(), after.size(), static_cast<size_t>(n * elem_bytes(t)));
  return std::all_of(after.begin(), after.end(), [](unsigned char b) { return b == poison_byte; });
}

}  // namespace rowwise_test
