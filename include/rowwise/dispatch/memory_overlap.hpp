// rowwise/dispatch/memory_overlap.hpp — whether two arguments of a call share memory, on the
// host, before anything is launched (dispatch/validate.hpp refuses the calls whose kernels would
// race: an output that partly covers the input, weights or statistics inside a written matrix).
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/views.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

/// The bytes of an argument as `runs` runs of `run` bytes, one every `stride` bytes from `begin`:
/// a matrix's rows, or one run for a vector. Empty without data or bytes.
struct byte_runs {
  uintptr_t begin = 0;
  int64_t runs = 0;
  int64_t run = 0;
  int64_t stride = 0;

  constexpr bool empty() const { return begin == 0 || runs <= 0 || run <= 0; }
  /// One past the last byte (not empty; the matrix's extent checked: validate.hpp extent_fits).
  constexpr uintptr_t end() const { return begin + static_cast<uintptr_t>((runs - 1) * stride + run); }
};

/// A matrix's rows (validated: rows >= 0, 1 <= cols <= row_stride, within the address space).
template <class T>
inline byte_runs bytes_of(const matrix_view<T>& m) {
  const int64_t e = static_cast<int64_t>(sizeof(T));
  return {reinterpret_cast<uintptr_t>(m.data), m.rows, m.cols * e, m.row_stride * e};
}

/// A vector's elements; nothing when it is absent.
template <class T>
inline byte_runs bytes_of(const vector_view<T>& v) {
  if (!v.present()) return {};
  const int64_t bytes = v.size * static_cast<int64_t>(sizeof(T));
  return {reinterpret_cast<uintptr_t>(v.data), 1, bytes, bytes};
}

/// `count` floats at `p` (a per-row statistic); nothing when p is null.
inline byte_runs bytes_of(const float* p, int64_t count) {
  if (p == nullptr || count <= 0) return {};
  const int64_t bytes = count * static_cast<int64_t>(sizeof(float));
  return {reinterpret_cast<uintptr_t>(p), 1, bytes, bytes};
}

/// floor(a / b) for b > 0.
constexpr int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0 && a < 0) ? 1 : 0); }

/// Whether a run of `m` (not empty) meets the bytes [lo, hi): the first run that ends after lo,
/// if any, starts before hi (runs are ordered and disjoint: stride >= run).
constexpr bool runs_meet(const byte_runs& m, uintptr_t lo, uintptr_t hi) {
  // Run r ends after lo when r * stride > lo - begin - run.
  const int64_t after = static_cast<int64_t>(lo - m.begin) - m.run;  // spans intersect: no overflow
  int64_t r = floor_div(after, m.stride) + 1;
  if (r < 0) r = 0;
  return r < m.runs && m.begin + static_cast<uintptr_t>(r * m.stride) < hi;
}

/// Whether `a` and `b` share a byte. Exact where either is one run (a vector, a matrix of one
/// row) or both have the same stride (a matrix and an interleaved or shifted copy of its layout);
/// matrices of different strides whose spans intersect count as sharing, so such interleavings
/// are refused rather than risked.
constexpr bool share_bytes(const byte_runs& a, const byte_runs& b) {
  if (a.empty() || b.empty()) return false;
  if (a.end() <= b.begin || b.end() <= a.begin) return false;
  if (a.runs == 1) return runs_meet(b, a.begin, a.end());
  if (b.runs == 1) return runs_meet(a, b.begin, b.end());
  if (a.stride != b.stride) return true;
  // Run i of a covers [i S, i S + a.run) and run j of b [d + j S, d + j S + b.run) (from a.begin):
  // they meet when -b.run < d + k S < a.run for k = j - i in [1 - a.runs, b.runs - 1]; the
  // smallest such k past the lower bound decides.
  const int64_t d = static_cast<int64_t>(b.begin - a.begin);  // the spans intersect: no overflow
  const int64_t s = a.stride;
  int64_t k = floor_div(-b.run - d, s) + 1;
  if (k < 1 - a.runs) k = 1 - a.runs;
  return k <= b.runs - 1 && d + k * s < a.run;
}

/// Whether two matrices of the same shape are the same matrix (an op in place): the same data and,
/// with more than one row, the same row_stride (a single row's stride names no element).
template <class A, class B>
inline bool same_matrix(const matrix_view<A>& a, const matrix_view<B>& b) {
  return static_cast<const void*>(a.data) == static_cast<const void*>(b.data) &&
         (a.rows <= 1 || a.row_stride == b.row_stride);
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
