// tests/support/plan_problems.hpp — dispatch::problem as run_rows (dispatch/launch.cuh) describes a
// call to the plan, built from the few things the host tests vary.
#pragma once

#include <rowwise/dispatch/plan.hpp>

#include <cstdint>

namespace rowwise_test {

/// Per-column parameters of an op, as run_rows describes them to the plan.
struct weights_desc {
  int count = 0;  // parameter vectors (layer_norm 2, rms_norm 1)
  int bytes = 0;  // bytes per element of each
};

/// A problem as run_rows describes it to the plan: n elements per pack, the rows' head (-1: rows
/// differ), whether the op stages long rows, its weights, and its inputs per row (2: a residual).
inline rowwise::dispatch::problem plan_problem(int64_t rows, int64_t cols, int elem_bytes, int n, int head,
                                               bool staged_op, weights_desc w, int row_inputs) {
  rowwise::dispatch::problem p;
  p.rows = rows;
  p.cols = cols;
  p.elem_bytes = elem_bytes;
  p.pack_elems = n;
  p.head = head;
  p.staged_op = staged_op;
  p.column_params = w.count > 0;
  p.column_param_count = w.count;
  p.column_param_bytes = w.bytes;
  p.row_inputs = row_inputs;
  return p;
}

}  // namespace rowwise_test
