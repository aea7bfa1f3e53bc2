// rowwise/dispatch/validate.hpp — argument checks done before anything is launched
// (CUTLASS's can_implement): each failure is a static message naming the op and the argument.
// Every op's whole check is one host function here (validate_softmax, validate_layer_norm, ...),
// so the host tests cover it without a GPU.
#pragma once

#include <cmath>
#include <cstdint>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/memory_overlap.hpp"
#include "rowwise/status.hpp"
#include "rowwise/views.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

/// The messages of one op; ROWWISE_OP_MESSAGES builds them from the op's name and the names of
/// its input and output matrices at compile time.
#define ROWWISE_OP_MESSAGES(type_name, op_name, in_name, out_name)                                                 \
  struct type_name {                                                                            \
    static constexpr const char* rows = op_name ": rows < 0";                                   \
    static constexpr const char* cols = op_name ": cols < 1";                                   \
    static constexpr const char* in_null = op_name ": " in_name " data is null while rows > 0";       \
    static constexpr const char* out_null = op_name ": " out_name " data is null while rows > 0";     \
    static constexpr const char* in_stride = op_name ": " in_name " row_stride < cols";               \
    static constexpr const char* out_stride = op_name ": " out_name " row_stride < cols";             \
    static constexpr const char* shape = op_name ": " out_name " rows/cols differ from the " in_name "'s";  \
    static constexpr const char* in_align = op_name ": " in_name " pointer not aligned to its element"; \
    static constexpr const char* out_align = op_name ": " out_name " pointer not aligned to its element"; \
    static constexpr const char* weight_size = op_name ": weight size != cols";                 \
    static constexpr const char* gamma_size = op_name ": gamma size != cols";                   \
    static constexpr const char* beta_size = op_name ": beta size != cols";                     \
    static constexpr const char* weight_align = op_name ": weight pointer not aligned to its element"; \
    static constexpr const char* gamma_align = op_name ": gamma pointer not aligned to its element"; \
    static constexpr const char* beta_align = op_name ": beta pointer not aligned to its element"; \
    static constexpr const char* eps = op_name ": eps < 0 or not finite";                       \
    static constexpr const char* residual_null = op_name ": residual data is null while rows > 0"; \
    static constexpr const char* residual_stride = op_name ": residual row_stride < cols";      \
    static constexpr const char* residual_shape = op_name ": residual rows/cols differ from x's"; \
    static constexpr const char* residual_align = op_name ": residual pointer not aligned to its element"; \
    static constexpr const char* in_extent = op_name ": " in_name " rows x row_stride exceed the address space"; \
    static constexpr const char* out_extent = op_name ": " out_name " rows x row_stride exceed the address space"; \
    static constexpr const char* residual_extent = op_name ": residual rows x row_stride exceed the address space"; \
    static constexpr const char* overlap =                                                        \
        op_name ": output shares memory with the input but is not the same matrix (in place needs the same data and row_stride)"; \
    static constexpr const char* residual_overlap = op_name ": residual shares memory with x";   \
    static constexpr const char* weight_overlap = op_name ": weight shares memory with a matrix the call writes"; \
    static constexpr const char* gamma_overlap = op_name ": gamma shares memory with the output"; \
    static constexpr const char* beta_overlap = op_name ": beta shares memory with the output";  \
    static constexpr const char* stats_align = op_name ": mean / rstd pointer not aligned to a float"; \
    static constexpr const char* stats_overlap =                                                  \
        op_name ": mean / rstd share memory with each other or with a matrix or weight of the call"; \
    static constexpr const char* launch = op_name ": kernel launch failed";                     \
    static constexpr const char* device = op_name ": querying the current device failed";      \
    static constexpr const char* code_target = op_name ": querying the CUDA target of rowwise's kernels failed"; \
    static constexpr const char* plan = op_name ": no strategy can run this shape on this device"; \
    static constexpr const char* target =                                                         \
        op_name ": a kernel compiled for an older CUDA target than its plan needs (translation units sharing rowwise's ABI namespace were compiled for different targets)"; \
  }

ROWWISE_OP_MESSAGES(softmax_messages, "softmax", "input", "output");
ROWWISE_OP_MESSAGES(log_softmax_messages, "log_softmax", "input", "output");
ROWWISE_OP_MESSAGES(layer_norm_messages, "layer_norm", "input", "output");
ROWWISE_OP_MESSAGES(rms_norm_messages, "rms_norm", "input", "output");
// fused_add_rms_norm reads and writes x (both of validate_in_out's roles).
ROWWISE_OP_MESSAGES(fused_add_rms_norm_messages, "fused_add_rms_norm", "x", "x");

template <class T>
constexpr bool element_aligned(const T* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

/// Whether the rows of a matrix (rows >= 0, 1 <= cols <= row_stride) lie within the address
/// space: their span of ((rows - 1) * row_stride + cols) elements fits int64_t bytes and does not
/// wrap past the end. The kernels' row offsets and the overlap test below rely on it.
template <class T>
inline bool extent_fits(const matrix_view<T>& m) {
  if (m.rows <= 0) return true;
  constexpr int64_t max_elems = INT64_MAX / static_cast<int64_t>(sizeof(T));
  if (m.cols > max_elems || m.rows - 1 > (max_elems - m.cols) / m.row_stride) return false;
  const uint64_t bytes = static_cast<uint64_t>((m.rows - 1) * m.row_stride + m.cols) * sizeof(T);
  return reinterpret_cast<uintptr_t>(m.data) <= UINTPTR_MAX - bytes;
}

/// One matrix argument: rows >= 0, cols >= 1, data present when rows > 0, stride >= cols, rows
/// within the address space, data aligned to its element.
template <class T>
inline const char* check_matrix(const matrix_view<T>& m, const char* null_msg, const char* stride_msg,
                                const char* align_msg, const char* rows_msg, const char* cols_msg,
                                const char* extent_msg) {
  if (m.rows < 0) return rows_msg;
  if (m.cols < 1) return cols_msg;
  if (m.rows > 0 && m.data == nullptr) return null_msg;
  if (m.row_stride < m.cols) return stride_msg;
  if (!extent_fits(m)) return extent_msg;
  if (!element_aligned(m.data)) return align_msg;
  return nullptr;
}

/// An input and an output matrix of the same shape.
template <class Msg, class In, class Out>
status validate_in_out(const matrix_view<In>& in, const matrix_view<Out>& out) {
  if (const char* e =
          check_matrix(in, Msg::in_null, Msg::in_stride, Msg::in_align, Msg::rows, Msg::cols, Msg::in_extent))
    return status::invalid(e);
  if (out.rows != in.rows || out.cols != in.cols) return status::invalid(Msg::shape);
  if (const char* e =
          check_matrix(out, Msg::out_null, Msg::out_stride, Msg::out_align, Msg::rows, Msg::cols, Msg::out_extent))
    return status::invalid(e);
  return {};
}

/// An optional per-column vector: absent, or exactly cols elements.
template <class W>
constexpr bool vector_fits(const vector_view<W>& v, int64_t cols) {
  return !v.present() || v.size == cols;
}

/// An optional per-column vector's pointer: aligned to its element, or absent (null or size 0:
/// an absent vector's pointer is never read).
template <class W>
constexpr bool weight_aligned(const vector_view<W>& v) {
  return !v.present() || element_aligned(v.data);
}

constexpr bool eps_valid(float eps) { return eps >= 0.0f && eps <= 3.4028234663852886e38f; }  // NaN fails both

/// An output of the same shape as its input: the same matrix (in place) or no shared byte. Any
/// other overlap would let one row's stores race another row's loads.
template <class Msg, class In, class Out>
status validate_in_place_or_disjoint(const matrix_view<In>& in, const matrix_view<Out>& out) {
  if (!same_matrix(in, out) && share_bytes(bytes_of(in), bytes_of(out))) return status::invalid(Msg::overlap);
  return {};
}

/// softmax, log_softmax.
template <class Msg, class In, class Out>
status validate_softmax(const matrix_view<In>& in, const matrix_view<Out>& out) {
  if (status s = validate_in_out<Msg>(in, out); !s) return s;
  return validate_in_place_or_disjoint<Msg>(in, out);
}

/// layer_norm: gamma and beta optional (absent or cols elements), eps finite and >= 0; neither
/// weight inside the output; mean / rstd (rows floats each, optional, float-aligned) apart from
/// each other and from every matrix and weight of the call.
template <class Msg, class In, class Out, class W>
status validate_layer_norm(const matrix_view<In>& in, const matrix_view<Out>& out, const vector_view<W>& gamma,
                           const vector_view<W>& beta, float eps, const float* mean, const float* rstd) {
  if (status s = validate_in_out<Msg>(in, out); !s) return s;
  if (!vector_fits(gamma, in.cols)) return status::invalid(Msg::gamma_size);
  if (!vector_fits(beta, in.cols)) return status::invalid(Msg::beta_size);
  if (!weight_aligned(gamma)) return status::invalid(Msg::gamma_align);
  if (!weight_aligned(beta)) return status::invalid(Msg::beta_align);
  if (!eps_valid(eps)) return status::invalid(Msg::eps);
  // With 0 rows nothing is written to mean / rstd (as nothing is read from a null input).
  if (in.rows > 0 && (!element_aligned(mean) || !element_aligned(rstd))) return status::invalid(Msg::stats_align);
  if (status s = validate_in_place_or_disjoint<Msg>(in, out); !s) return s;
  const byte_runs written = bytes_of(out);
  if (share_bytes(bytes_of(gamma), written)) return status::invalid(Msg::gamma_overlap);
  if (share_bytes(bytes_of(beta), written)) return status::invalid(Msg::beta_overlap);
  const byte_runs stats[] = {bytes_of(mean, in.rows), bytes_of(rstd, in.rows)};
  const byte_runs others[] = {bytes_of(in), written, bytes_of(gamma), bytes_of(beta)};
  for (const byte_runs& st : stats)
    for (const byte_runs& o : others)
      if (share_bytes(st, o)) return status::invalid(Msg::stats_overlap);
  if (share_bytes(stats[0], stats[1])) return status::invalid(Msg::stats_overlap);
  return {};
}

/// rms_norm: weight optional (absent or cols elements), eps finite and >= 0, the weight not
/// inside the output.
template <class Msg, class In, class Out, class W>
status validate_rms_norm(const matrix_view<In>& in, const matrix_view<Out>& out, const vector_view<W>& weight,
                         float eps) {
  if (status s = validate_in_out<Msg>(in, out); !s) return s;
  if (!vector_fits(weight, in.cols)) return status::invalid(Msg::weight_size);
  if (!weight_aligned(weight)) return status::invalid(Msg::weight_align);
  if (!eps_valid(eps)) return status::invalid(Msg::eps);
  if (status s = validate_in_place_or_disjoint<Msg>(in, out); !s) return s;
  if (share_bytes(bytes_of(weight), bytes_of(out))) return status::invalid(Msg::weight_overlap);
  return {};
}

/// fused_add_rms_norm: x and residual of one shape, both written, so they share no byte (not even
/// as the same matrix); the weight inside neither.
template <class Msg, class T, class W>
status validate_fused_add_rms_norm(const matrix_view<T>& x, const matrix_view<T>& residual,
                                   const vector_view<W>& weight, float eps) {
  if (status s = validate_in_out<Msg>(matrix_view<const T>(x), x); !s) return s;
  if (residual.rows != x.rows || residual.cols != x.cols) return status::invalid(Msg::residual_shape);
  if (const char* e = check_matrix(residual, Msg::residual_null, Msg::residual_stride, Msg::residual_align,
                                   Msg::rows, Msg::cols, Msg::residual_extent))
    return status::invalid(e);
  if (!vector_fits(weight, x.cols)) return status::invalid(Msg::weight_size);
  if (!weight_aligned(weight)) return status::invalid(Msg::weight_align);
  if (!eps_valid(eps)) return status::invalid(Msg::eps);
  if (share_bytes(bytes_of(x), bytes_of(residual))) return status::invalid(Msg::residual_overlap);
  const byte_runs w = bytes_of(weight);
  if (share_bytes(w, bytes_of(x)) || share_bytes(w, bytes_of(residual))) return status::invalid(Msg::weight_overlap);
  return {};
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
