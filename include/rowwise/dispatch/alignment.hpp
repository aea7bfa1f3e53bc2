// rowwise/dispatch/alignment.hpp — the widest vector access every matrix of a call allows.
//
// Kernels align packs to memory (kernels/row_io.cuh), so a pack of N elements is usable when all
// matrices of the call are at the same position modulo N elements in every row: equal base
// addresses mod N*sizeof(T) and equal row strides mod N. Pure host arithmetic.
#pragma once

#include <cstdint>

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

struct row_layout {
  uintptr_t address;   // base address in bytes (null for an absent matrix)
  int64_t row_stride;  // elements
};

/// True when pack width n (elements of elem_bytes) keeps every layout in the same phase.
inline bool same_phase(const row_layout* layouts, int count, int elem_bytes, int n) {
  const uintptr_t a0 = layouts[0].address / static_cast<uintptr_t>(elem_bytes);
  const int64_t s0 = layouts[0].row_stride;
  for (int i = 1; i < count; ++i) {
    const uintptr_t ai = layouts[i].address / static_cast<uintptr_t>(elem_bytes);
    if ((ai - a0) % static_cast<uintptr_t>(n) != 0) return false;
    if (((layouts[i].row_stride - s0) % n + n) % n != 0) return false;
  }
  return true;
}

/// The pack width to launch with: `widest` (16 bytes' worth) when the layouts agree, else 1.
/// (Intermediate widths would need more kernel instantiations for a case that only arises
/// when, say, the output is offset from the input by an odd number of elements.)
inline int choose_pack_elems(const row_layout* layouts, int count, int elem_bytes, int widest) {
  return same_phase(layouts, count, elem_bytes, widest) ? widest : 1;
}

/// The head (elements before the first n-aligned element) shared by every row, or -1 when the
/// row stride makes it differ from row to row.
inline int uniform_head(const row_layout& layout, int elem_bytes, int n) {
  if (layout.row_stride % n != 0) return -1;
  return static_cast<int>((layout.address / static_cast<uintptr_t>(elem_bytes)) % static_cast<uintptr_t>(n));
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
