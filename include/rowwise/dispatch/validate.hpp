// rowwise/dispatch/validate.hpp — argument checks done before anything is launched
// (CUTLASS's can_implement): each failure is a static message naming the op and the argument.
#pragma once

#include <cmath>
#include <cstdint>

#include "rowwise/status.hpp"
#include "rowwise/views.hpp"

namespace rowwise {
namespace dispatch {

/// The messages of one op; ROWWISE_OP_MESSAGES builds them from the op's name at compile time.
#define ROWWISE_OP_MESSAGES(type_name, op_name)                                                 \
  struct type_name {                                                                            \
    static constexpr const char* rows = op_name ": rows < 0";                                   \
    static constexpr const char* cols = op_name ": cols < 1";                                   \
    static constexpr const char* in_null = op_name ": input data is null while rows > 0";       \
    static constexpr const char* out_null = op_name ": output data is null while rows > 0";     \
    static constexpr const char* in_stride = op_name ": input row_stride < cols";               \
    static constexpr const char* out_stride = op_name ": output row_stride < cols";             \
    static constexpr const char* shape = op_name ": output rows/cols differ from the input's";  \
    static constexpr const char* in_align = op_name ": input pointer not aligned to its element"; \
    static constexpr const char* out_align = op_name ": output pointer not aligned to its element"; \
    static constexpr const char* weight_size = op_name ": weight size != cols";                 \
    static constexpr const char* gamma_size = op_name ": gamma size != cols";                   \
    static constexpr const char* beta_size = op_name ": beta size != cols";                     \
    static constexpr const char* weight_align = op_name ": weight pointer not aligned to its element"; \
    static constexpr const char* eps = op_name ": eps < 0 or not finite";                       \
    static constexpr const char* residual_null = op_name ": residual data is null while rows > 0"; \
    static constexpr const char* residual_stride = op_name ": residual row_stride < cols";      \
    static constexpr const char* residual_shape = op_name ": residual rows/cols differ from x's"; \
    static constexpr const char* residual_align = op_name ": residual pointer not aligned to its element"; \
    static constexpr const char* launch = op_name ": kernel launch failed";                     \
    static constexpr const char* device = op_name ": querying the current device failed";      \
    static constexpr const char* plan = op_name ": no strategy can run this shape on this device"; \
  }

ROWWISE_OP_MESSAGES(softmax_messages, "softmax");
ROWWISE_OP_MESSAGES(log_softmax_messages, "log_softmax");
ROWWISE_OP_MESSAGES(layer_norm_messages, "layer_norm");
ROWWISE_OP_MESSAGES(rms_norm_messages, "rms_norm");
ROWWISE_OP_MESSAGES(fused_add_rms_norm_messages, "fused_add_rms_norm");

template <class T>
constexpr bool element_aligned(const T* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

/// One matrix argument: rows >= 0, cols >= 1, data present when rows > 0, stride >= cols.
template <class T>
constexpr const char* check_matrix(const matrix_view<T>& m, const char* null_msg,
                                   const char* stride_msg, const char* align_msg,
                                   const char* rows_msg, const char* cols_msg) {
  if (m.rows < 0) return rows_msg;
  if (m.cols < 1) return cols_msg;
  if (m.rows > 0 && m.data == nullptr) return null_msg;
  if (m.row_stride < m.cols) return stride_msg;
  if (!element_aligned(m.data)) return align_msg;
  return nullptr;
}

/// An input and an output matrix of the same shape.
template <class Msg, class In, class Out>
status validate_in_out(const matrix_view<In>& in, const matrix_view<Out>& out) {
  if (const char* e = check_matrix(in, Msg::in_null, Msg::in_stride, Msg::in_align, Msg::rows, Msg::cols))
    return status::invalid(e);
  if (out.rows != in.rows || out.cols != in.cols) return status::invalid(Msg::shape);
  if (const char* e = check_matrix(out, Msg::out_null, Msg::out_stride, Msg::out_align, Msg::rows, Msg::cols))
    return status::invalid(e);
  return {};
}

/// An optional per-column vector: absent, or exactly cols elements.
template <class W>
constexpr bool vector_fits(const vector_view<W>& v, int64_t cols) {
  return !v.present() || v.size == cols;
}

constexpr bool eps_valid(float eps) { return eps >= 0.0f && eps <= 3.4028234663852886e38f; }  // NaN fails both

}  // namespace dispatch
}  // namespace rowwise
