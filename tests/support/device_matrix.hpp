// tests/support/device_matrix.hpp — what the API tests (tests/gpu/test_*.cpp) share:
//
//   dtype                 the element type of a call, type-erased (f32, f16, bf16), with encode /
//                         decode / quantize between doubles and T's bytes (through tests/support/
//                         reference.hpp and inputs.hpp, so the fp64 reference sees the GPU's inputs);
//   device_buffer         cudaMalloc'd bytes, RAII; CUDA failures throw rowwise_test::cuda_failure
//                         (Catch reports an exception as a failed test);
//   device_matrix         rows x cols elements at `offset` elements from the start of a buffer, rows
//                         `stride` elements apart, plus a tail pad, with a HOST MIRROR of every byte
//                         the buffer should hold. poison() fills both with 0xFF (a NaN in fp32, fp16
//                         and bf16); upload() writes the inputs into the mirror and copies the whole
//                         mirror over; after a call, download() fetches every byte back, and
//                         untouched_report() names the first byte OUTSIDE the rows' [0, cols) ranges
//                         (prefix, the gap after each row, the tail pad) that differs from the mirror:
//                         for an output that is the poison, for an in-place matrix the input's gap bytes;
//   plan helpers          the dispatch plan of a call as the library will compute it (plan_rows is a
//                         pure host function; the device limits are the real ones), the regime
//                         boundaries of a (dtype, pack, rows) in cols, the first cols that runs a
//                         given strategy, and the compute-sanitizer subset (one case per strategy);
//   call_layout           where a call's input and output lie (offsets, strides, in place).
//
// Host C++17 only (no kernels): usable from g++ (.cpp) and nvcc (.cu) alike.
#pragma once

#include <cuda_runtime_api.h>

#include <rowwise/dispatch/alignment.hpp>
#include <rowwise/dispatch/device_limits.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/dispatch/policy.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/inputs.hpp"
#include "support/reference.hpp"

namespace rowwise_test {

// --- element types -------------------------------------------------------------------------------

enum class dtype { f32, f16, bf16 };
inline constexpr dtype all_dtypes[] = {dtype::f32, dtype::f16, dtype::bf16};

inline const char* to_string(dtype d) {
  switch (d) {
    case dtype::f32: return "fp32";
    case dtype::f16: return "fp16";
    case dtype::bf16: return "bf16";
  }
  return "?";
}

inline int elem_bytes(dtype d) { return d == dtype::f32 ? 4 : 2; }
/// Explicit mantissa bits of the storage type (what tolerance.hpp's functions take).
inline int mantissa_bits(dtype d) { return d == dtype::f32 ? 23 : (d == dtype::f16 ? 10 : 7); }
/// Elements of one 16-byte access: the pack width of the fast path.
inline int widest_pack(dtype d) { return 16 / elem_bytes(d); }

template <class T>
struct type_tag {
  using type = T;
};

/// Call f(type_tag<T>{}) for the storage type T of d.
template <class F>
decltype(auto) visit_dtype(dtype d, F&& f) {
  switch (d) {
    case dtype::f16: return f(type_tag<__half>{});
    case dtype::bf16: return f(type_tag<__nv_bfloat16>{});
    case dtype::f32: break;
  }
  return f(type_tag<float>{});
}

/// Round n values through T in place (see inputs.hpp quantize<T>).
inline void quantize(dtype d, double* v, size_t n) {
  visit_dtype(d, [&](auto tag) { quantize<typename decltype(tag)::type>(v, n); });
}

/// n doubles -> n elements of T at `bytes` (exact for quantize()d values).
inline void encode(dtype d, const double* v, size_t n, void* bytes) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < n; ++i) {
      const T x = from_double<T>(v[i]);
      std::memcpy(static_cast<unsigned char*>(bytes) + i * sizeof(T), &x, sizeof(T));
    }
  });
}

/// n elements of T at `bytes` -> n doubles (exact).
inline void decode(dtype d, const void* bytes, size_t n, double* v) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, static_cast<const unsigned char*>(bytes) + i * sizeof(T), sizeof(T));
      v[i] = to_double<T>(x);
    }
  });
}

/// The distance in units in the last place of T between two finite values of T (both already
/// representable): 0 when equal, 1 for neighbours. Signs are handled through the usual
/// sign-magnitude -> ordered-integer mapping.
inline int64_t ulp_distance(dtype d, double a, double b) {
  auto ordered = [&](double v) -> int64_t {
    if (d == dtype::f32) {
      const float f = static_cast<float>(v);
      int32_t i;
      std::memcpy(&i, &f, 4);
      return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
    }
    unsigned char raw[2];
    encode(d, &v, 1, raw);
    uint16_t u;
    std::memcpy(&u, raw, 2);
    return (u & 0x8000u) ? -static_cast<int64_t>(u & 0x7fffu) : static_cast<int64_t>(u);
  };
  const int64_t x = ordered(a), y = ordered(b);
  return x > y ? x - y : y - x;
}

// --- CUDA calls ----------------------------------------------------------------------------------

struct cuda_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw cuda_failure(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                     ") at " + file + ":" + std::to_string(line));
}

/// Throws cuda_failure (a test failure in Catch) when the CUDA call fails.
#define RW_CUDA(expr) ::rowwise_test::cuda_check((expr), #expr, __FILE__, __LINE__)

/// cudaMalloc'd bytes, freed on destruction. Move-only.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) RW_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), bytes_));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  unsigned char* get() const { return p_; }
  size_t size() const { return bytes_; }

  /// Every byte := b, then wait for it (the tests launch on other streams next).
  void fill(unsigned char b) {
    if (bytes_ == 0) return;
    RW_CUDA(cudaMemset(p_, b, bytes_));
    RW_CUDA(cudaDeviceSynchronize());
  }
  void upload(const void* host, size_t bytes, size_t offset = 0) {
    if (bytes == 0) return;
    RW_CUDA(cudaMemcpy(p_ + offset, host, bytes, cudaMemcpyHostToDevice));
    RW_CUDA(cudaDeviceSynchronize());
  }
  void download(void* host, size_t bytes, size_t offset = 0) const {
    if (bytes == 0) return;
    RW_CUDA(cudaMemcpy(host, p_ + offset, bytes, cudaMemcpyDeviceToHost));
  }

 private:
  void release() {
    if (p_ != nullptr) (void)cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  unsigned char* p_ = nullptr;
  size_t bytes_ = 0;
};

/// A non-blocking stream, destroyed at scope exit.
/// Owns a captured graph and, once instantiated, its executable graph.
struct graph_guard {
  cudaGraph_t g;
  cudaGraphExec_t e = nullptr;
  ~graph_guard() {
    if (e) (void)cudaGraphExecDestroy(e);
    (void)cudaGraphDestroy(g);
  }
};

class test_stream {
 public:
  test_stream() { RW_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  test_stream(const test_stream&) = delete;
  test_stream& operator=(const test_stream&) = delete;
  ~test_stream() { (void)cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }
  /// Wait for the stream; a kernel fault shows up here.
  void sync() const { RW_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

inline constexpr unsigned char poison_byte = 0xFF;  // 0xFFFF.. is a NaN in fp32, fp16 and bf16

/// rows x cols elements of `type`, row r at element offset + r * stride of a buffer that also holds
/// `tail` more elements after the last row's stride. Keeps a host mirror of the bytes the buffer
/// should hold wherever a call must not write.
class device_matrix {
 public:
  device_matrix(dtype type, int64_t rows, int64_t cols, int64_t stride, int64_t offset = 0, int64_t tail = 16)
      : type_(type), rows_(rows), cols_(cols), stride_(stride), offset_(offset),
        eb_(elem_bytes(type)),
        elems_(offset + std::max<int64_t>(rows, 0) * std::max(stride, cols) + tail),
        buf_(static_cast<size_t>(elems_ * eb_)),
        mirror_(static_cast<size_t>(elems_ * eb_), poison_byte) {
    buf_.fill(poison_byte);
  }

  dtype type() const { return type_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t stride() const { return stride_; }
  int64_t offset() const { return offset_; }
  /// The first element of row 0.
  void* data() const { return buf_.get() + offset_ * eb_; }
  size_t bytes() const { return buf_.size(); }

  /// Mirror and device := 0xFF everywhere.
  void poison() {
    std::fill(mirror_.begin(), mirror_.end(), poison_byte);
    buf_.fill(poison_byte);
  }

  /// Write row-major rows x cols values (already quantized to T) into the mirror's rows and copy
  /// the whole mirror to the device (gap bytes keep what the mirror held).
  void upload(const std::vector<double>& values) {
    if (static_cast<int64_t>(values.size()) < rows_ * cols_) throw std::logic_error("device_matrix::upload: too few values");
    for (int64_t r = 0; r < rows_; ++r)
      encode(type_, values.data() + r * cols_, static_cast<size_t>(cols_), mirror_.data() + element_byte(r, 0));
    buf_.upload(mirror_.data(), mirror_.size());
  }

  /// Fetch every byte; return the rows' elements row-major as doubles.
  std::vector<double> download() {
    last_.resize(mirror_.size());
    buf_.download(last_.data(), last_.size());
    std::vector<double> out(static_cast<size_t>(rows_ * cols_));
    for (int64_t r = 0; r < rows_; ++r)
      decode(type_, last_.data() + element_byte(r, 0), static_cast<size_t>(cols_), out.data() + r * cols_);
    return out;
  }

  /// The rows' elements of the last download, as raw bytes (row-major, cols * elem_bytes per row).
  std::vector<unsigned char> row_bytes() const {
    std::vector<unsigned char> out(static_cast<size_t>(rows_ * cols_ * eb_));
    for (int64_t r = 0; r < rows_; ++r)
      std::memcpy(out.data() + r * cols_ * eb_, last_.data() + element_byte(r, 0), static_cast<size_t>(cols_ * eb_));
    return out;
  }

  /// After download(): "" when every byte outside the rows' [0, cols) ranges equals the mirror and
  /// every element of the rows that was poisoned (an output's) has been written; else where the
  /// first difference or unwritten element is and how many there are. An element still all 0xFF
  /// was never written: the poison is a NaN with the sign bit set, and a kernel's NaN is the GPU's
  /// canonical one (0x7FFFFFFF, 0x7FFF), so a NaN the call wrote is told apart from the poison
  /// (a NaN where the reference is NaN would otherwise pass unwritten).
  std::string untouched_report() const {
    std::string gaps = compare(false);
    std::string unwritten = unwritten_report();
    if (gaps.empty()) return unwritten;
    return unwritten.empty() ? gaps : gaps + "; " + unwritten;
  }

  /// After download(): "" when EVERY byte (rows included) equals the mirror (nothing was written).
  std::string unchanged_report() const { return compare(true); }

 private:
  int64_t element_byte(int64_t r, int64_t c) const { return (offset_ + r * stride_ + c) * eb_; }

  // Which element of the buffer is inside a row: index e (elements from the start).
  bool in_row(int64_t e) const {
    if (e < offset_) return false;
    const int64_t rel = e - offset_;
    const int64_t r = rel / stride_;
    return r < rows_ && rel - r * stride_ < cols_;
  }

  std::string where(int64_t e) const {
    char buf[160];
    if (e < offset_) {
      std::snprintf(buf, sizeof buf, "element %lld of the %lld-element prefix before row 0", static_cast<long long>(e),
                    static_cast<long long>(offset_));
    } else {
      const int64_t rel = e - offset_;
      const int64_t r = rel / stride_;
      const int64_t c = rel - r * stride_;
      if (r >= rows_)
        std::snprintf(buf, sizeof buf, "element %lld past the end of the last row", static_cast<long long>(rel - rows_ * stride_));
      else if (c >= cols_)
        std::snprintf(buf, sizeof buf, "gap after row %lld, column %lld (cols %lld, stride %lld)", static_cast<long long>(r),
                      static_cast<long long>(c), static_cast<long long>(cols_), static_cast<long long>(stride_));
      else
        std::snprintf(buf, sizeof buf, "row %lld, column %lld", static_cast<long long>(r), static_cast<long long>(c));
    }
    return buf;
  }

  /// Elements of the rows whose mirror is the poison (never uploaded: an output) and whose
  /// downloaded bytes are still the poison.
  std::string unwritten_report() const {
    if (last_.size() != mirror_.size()) return "device_matrix: download() was not called";
    const auto poisoned = [&](const std::vector<unsigned char>& b, int64_t at) {
      for (int64_t i = 0; i < eb_; ++i)
        if (b[static_cast<size_t>(at + i)] != poison_byte) return false;
      return true;
    };
    int64_t first_r = -1, first_c = -1, count = 0;
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < cols_; ++c) {
        const int64_t at = element_byte(r, c);
        if (!poisoned(mirror_, at) || !poisoned(last_, at)) continue;
        if (first_r < 0) first_r = r, first_c = c;
        ++count;
      }
    if (count == 0) return "";
    char buf[200];
    std::snprintf(buf, sizeof buf, "%lld element(s) of the rows were never written (still the poison); the first is row %lld, column %lld",
                  static_cast<long long>(count), static_cast<long long>(first_r), static_cast<long long>(first_c));
    return buf;
  }

  std::string compare(bool everything) const {
    if (last_.size() != mirror_.size()) return "device_matrix: download() was not called";
    int64_t first = -1, count = 0;
    for (size_t i = 0; i < mirror_.size(); ++i) {
      if (last_[i] == mirror_[i]) continue;
      const int64_t e = static_cast<int64_t>(i) / eb_;
      if (!everything && in_row(e)) continue;
      if (first < 0) first = static_cast<int64_t>(i);
      ++count;
    }
    if (first < 0) return "";
    char buf[400];
    std::snprintf(buf, sizeof buf, "%lld byte(s) that must be untouched were written; the first is byte %lld (%s): "
                  "expected 0x%02x, found 0x%02x",
                  static_cast<long long>(count), static_cast<long long>(first), where(first / eb_).c_str(),
                  mirror_[static_cast<size_t>(first)], last_[static_cast<size_t>(first)]);
    return buf;
  }

  dtype type_;
  int64_t rows_, cols_, stride_, offset_;
  int64_t eb_;
  int64_t elems_;
  device_buffer buf_;
  std::vector<unsigned char> mirror_;
  std::vector<unsigned char> last_;
};

/// A device vector of n values of `type` (weights), uploaded from quantized doubles.
/// The vector starts `offset` elements into the buffer (a misaligned vector when offset > 0).
inline device_buffer upload_vector(dtype type, const std::vector<double>& v, int64_t offset = 0) {
  const size_t eb = static_cast<size_t>(elem_bytes(type));
  device_buffer b((v.size() + static_cast<size_t>(offset)) * eb + 16);
  std::vector<unsigned char> raw(b.size(), poison_byte);
  encode(type, v.data(), v.size(), raw.data() + static_cast<size_t>(offset) * eb);
  b.upload(raw.data(), raw.size());
  return b;
}

// --- the plan, as the library computes it --------------------------------------------------------

namespace dsp = rowwise::dispatch;

/// The current device's limits (as rowwise caches them). Throws on failure.
inline dsp::device_limits device_limits_now() {
  dsp::device_limits dev;
  RW_CUDA(dsp::current_device_limits(dev));
  return dev;
}

/// A matrix of a call as the dispatch sees it: base pointer and row stride (elements).
struct matrix_place {
  const void* data;
  int64_t stride;
};

/// The problem rowwise's dispatch (run_rows in dispatch/launch.cuh) builds for a call whose
/// matrices are `places`, the input (x for fused_add_rms_norm) first: the pack width every matrix
/// allows (choose_pack_elems) and the head the input's rows share (uniform_head; -1 when it
/// varies from row to row).
/// What the plan sees of the op (dispatch::problem's staged_op, row_inputs, column_params):
/// softmax and log_softmax stage many long rows and have no weights (the default of the helpers
/// below); layer_norm has weights and does not stage; rms_norm stages long rows; fused_add_rms_norm
/// stages them and reads two matrices per row. plain_op (neither) is the base plan the
/// transitions walk starts from.
struct op_traits {
  bool staged = false;   // the op runs long rows on the staged strategy (dispatch::problem::staged_op)
  int inputs = 1;        // matrices read per row
  bool weights = false;  // the op reads per-column weights (dispatch::problem::column_params)
};
inline constexpr op_traits plain_op{};                   // no staging, no weights
inline constexpr op_traits softmax_traits{true, 1, false};  // softmax, log_softmax
inline constexpr op_traits weighted_op{false, 1, true};  // layer_norm
inline constexpr op_traits rms_op{true, 1, true};
inline constexpr op_traits fused_op{true, 2, true};

inline dsp::problem problem_of(dtype t, int64_t rows, int64_t cols, const std::vector<matrix_place>& places,
                               op_traits op = softmax_traits) {
  std::vector<dsp::row_layout> layouts;
  for (const matrix_place& m : places) layouts.push_back({reinterpret_cast<uintptr_t>(m.data), m.stride});
  dsp::problem p;
  p.rows = rows;
  p.cols = cols;
  p.elem_bytes = elem_bytes(t);
  p.pack_elems = dsp::choose_pack_elems(layouts.data(), static_cast<int>(layouts.size()), p.elem_bytes, widest_pack(t));
  p.head = dsp::uniform_head(layouts[0], p.elem_bytes, p.pack_elems);
  p.staged_op = op.staged;
  p.row_inputs = op.inputs;
  p.column_params = op.weights;
  return p;
}

/// The plan rowwise will launch for a call on these matrices.
inline dsp::plan plan_of(dtype t, int64_t rows, int64_t cols, const std::vector<matrix_place>& places,
                         const dsp::device_limits& dev, op_traits op = softmax_traits) {
  return dsp::plan_rows(problem_of(t, rows, cols, places, op), dev);
}

inline const char* to_string(dsp::strategy s) { return dsp::strategy_name(s); }

/// The strategy families of DESIGN.md's regime table, as the tests name them.
enum class regime {
  sub_warp, warp, block, cluster_registers, cached, cached_cluster, streaming, streaming_cluster, staged
};

inline const char* to_string(regime r) {
  switch (r) {
    case regime::sub_warp: return "sub-warp rows";
    case regime::warp: return "warp per row";
    case regime::block: return "block per row (registers)";
    case regime::cluster_registers: return "cluster split (registers)";
    case regime::cached: return "block per row (shared-memory cache)";
    case regime::cached_cluster: return "cluster split (shared-memory cache)";
    case regime::streaming: return "block per row (streaming, second pass from L2)";
    case regime::streaming_cluster: return "cluster split (streaming)";
    case regime::staged: return "cluster split (staged in shared memory, read once)";
  }
  return "?";
}

inline regime classify(const dsp::plan& p) {
  switch (p.kind) {
    case dsp::strategy::registers:
      if (p.cluster > 1) return regime::cluster_registers;
      return p.threads_per_row < 32 ? regime::sub_warp : (p.threads_per_row == 32 ? regime::warp : regime::block);
    case dsp::strategy::cached: return p.cluster > 1 ? regime::cached_cluster : regime::cached;
    case dsp::strategy::streaming: break;
    case dsp::strategy::staged: return regime::staged;
  }
  return p.cluster > 1 ? regime::streaming_cluster : regime::streaming;
}

inline std::string describe(const dsp::plan& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "plan: %s (%s), config %d, pack %d, threads/row %d, k %d, block %d, cluster %d, segment %lld packs, "
                "smem %lld",
                to_string(p.kind), to_string(classify(p)), p.config, p.pack_elems, p.threads_per_row,
                p.packs_per_thread, p.block, p.cluster, static_cast<long long>(p.segment_packs),
                static_cast<long long>(p.dynamic_smem));
  return buf;
}

/// Plans that launch the same kernel the same way (the fields the kernel sees).
inline bool same_kernel(const dsp::plan& a, const dsp::plan& b) {
  return a.kind == b.kind && a.config == b.config && a.pack_elems == b.pack_elems && a.cluster == b.cluster &&
         a.segment_packs == b.segment_packs && a.block == b.block;
}

// --- where the matrices of a call lie ------------------------------------------------------------

/// The placement of a call's input and output: offsets in elements from a cudaMalloc'd (256-byte
/// aligned) start, strides cols + pad, or the output being the input itself (in place).
struct call_layout {
  const char* name = "contiguous";
  int64_t in_offset = 0;
  int64_t out_offset = 0;
  int64_t in_pad = 0;
  int64_t out_pad = 0;
  bool in_place = false;
  bool narrow = false;  // expected: the input and output are out of phase -> pack width 1
};

inline call_layout contiguous() { return {}; }
/// Both base pointers offset by `off` elements: same phase, the 16-byte path with a row head.
inline call_layout offset_both(int64_t off) { return {"in and out offset by the same elements", off, off, 0, 0, false, false}; }
/// Both offset by `off` elements and strided by cols + pad: with cols + pad a multiple of the pack,
/// every row has the same head (rows that start inside a pack and still share one kernel plan).
inline call_layout offset_strided(int64_t off, int64_t pad) {
  return {"in and out offset by the same elements, strided by cols + pad", off, off, pad, pad, false, false};
}
/// Only the input offset by one element: out of phase, the narrow path.
inline call_layout offset_in_only() { return {"input offset by 1 element, output aligned", 1, 0, 0, 0, false, true}; }
inline call_layout offset_out_only() { return {"input aligned, output offset by 1 element", 0, 1, 0, 0, false, true}; }
/// Both strided by cols + pad (same phase in every row; odd pads move the row heads around).
inline call_layout strided(int64_t pad) { return {"in and out strided by cols + pad", 0, 0, pad, pad, false, false}; }
/// Input stride cols + 8, output stride cols + 13: rows drift out of phase, the narrow path.
inline call_layout strided_mismatch() { return {"input stride cols + 8, output stride cols + 13", 0, 0, 8, 13, false, true}; }
inline call_layout in_place(int64_t off = 0, int64_t pad = 0) {
  return {"in place (out == in)", off, off, pad, pad, true, false};
}

inline std::string describe(const call_layout& l) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "layout: %s (in offset %lld, stride cols+%lld; out offset %lld, stride cols+%lld%s)",
                l.name, static_cast<long long>(l.in_offset), static_cast<long long>(l.in_pad),
                static_cast<long long>(l.out_offset), static_cast<long long>(l.out_pad), l.in_place ? "; same memory" : "");
  return buf;
}

/// The plan for a call whose matrices lie as `L` says in fresh (256-byte aligned) allocations.
inline dsp::plan plan_of(dtype t, int64_t rows, int64_t cols, const call_layout& L, const dsp::device_limits& dev,
                         op_traits op = softmax_traits) {
  const int64_t eb = elem_bytes(t);
  const auto in = reinterpret_cast<const void*>(uintptr_t{0x100000} + static_cast<uintptr_t>(L.in_offset * eb));
  const auto out = L.in_place ? in : reinterpret_cast<const void*>(uintptr_t{0x200000} + static_cast<uintptr_t>(L.out_offset * eb));
  return plan_of(t, rows, cols, {{in, cols + L.in_pad}, {out, cols + L.out_pad}}, dev, op);
}

/// Whether a plan holds 64 values per thread (a wide config: policy.hpp wide_rows_rules).
inline bool is_wide(const dsp::plan& p) {
  return p.kind == dsp::strategy::registers && dsp::is_wide_config(p.config);
}

/// The fewest rows (searched upward from sm_count, by steps of an eighth) whose plan holds rows of
/// `cols` laid out as `L` 64 values per thread: wide plans need more rows than one wave of their
/// CTAs. -1 when none up to 2^16 rows is wide (the rule does not apply).
inline int64_t rows_for_wide(dtype t, int64_t cols, const call_layout& L, const dsp::device_limits& dev,
                             op_traits op) {
  for (int64_t rows = dev.sm_count; rows <= (int64_t{1} << 16); rows += rows / 8 + 1)
    if (is_wide(plan_of(t, rows, cols, L, dev, op))) return rows;
  return -1;
}

/// Where the plan for `rows` rows laid out as `L` changes kernel (strategy, config or cluster) as
/// cols grows: every t in [2, max_cols] with plan(t) != plan(t - 1) (for ops that stage long rows,
/// see below). (With a row stride that is not
/// a multiple of the pack, rows have different heads and the plan assumes the worst one, so the
/// plan can step back and forth within a pack's width of a boundary: every step is listed.)
inline std::vector<int64_t> regime_transitions(dtype t, int64_t rows, const call_layout& L,
                                               const dsp::device_limits& dev, int64_t max_cols,
                                               op_traits op = softmax_traits) {
  auto walk = [&](op_traits o, int64_t first, int64_t step, bool staged_only, std::set<int64_t>& out) {
    dsp::plan prev = plan_of(t, rows, first, L, dev, o);
    for (int64_t c = first + step; c <= max_cols; c += step) {
      const dsp::plan p = plan_of(t, rows, c, L, dev, o);
      const bool staged = p.kind == dsp::strategy::staged || prev.kind == dsp::strategy::staged;
      if ((p.kind != prev.kind || p.config != prev.config || p.cluster != prev.cluster) && (staged || !staged_only))
        out.insert(c);
      prev = p;
    }
  };
  std::set<int64_t> found;
  // The op's own plan without staging: its weights and inputs move the boundaries (the norms'
  // block sizes differ from softmax's; until session 36 this walked plain_op for every op).
  walk(op_traits{false, op.inputs, op.weights}, 1, 1, false, found);
  if (op.staged) {
    // The staged strategy takes only rows of whole 16-byte packs, so past its threshold the plan
    // alternates with every column; its own transitions (into, out of and within it) are found
    // along the multiples of a pack, the others are the op's unstaged plan's, found above.
    const int64_t n = widest_pack(t);
    walk(op, n, n, true, found);
  }
  return {found.begin(), found.end()};
}

/// cols values t - 1, t, t + 1 around every transition, limited to rows * cols <= max_elements.
inline std::vector<int64_t> regime_boundary_cols(dtype t, int64_t rows, const call_layout& L,
                                                 const dsp::device_limits& dev, int64_t max_elements,
                                                 op_traits op = softmax_traits) {
  const int64_t max_cols = max_elements / std::max<int64_t>(rows, 1);
  std::set<int64_t> cols;
  for (int64_t c : regime_transitions(t, rows, L, dev, max_cols + 1, op))
    for (int64_t d : {c - 1, c, c + 1})
      if (d >= 1 && d <= max_cols) cols.insert(d);
  return {cols.begin(), cols.end()};
}

/// The first cols in [min_cols, max_cols] whose plan for `rows` rows laid out as `L` falls in
/// regime `want`; -1 if there is none (e.g. cluster regimes on a device without clusters).
inline int64_t first_cols_in_regime(regime want, dtype t, int64_t rows, const call_layout& L,
                                    const dsp::device_limits& dev, int64_t min_cols = 1,
                                    int64_t max_cols = int64_t{1} << 22, op_traits op = softmax_traits) {
  for (int64_t c = min_cols; c <= max_cols; ++c)
    if (classify(plan_of(t, rows, c, L, dev, op)) == want) return c;
  return -1;
}

// --- the compute-sanitizer subset ---------------------------------------------------------------

/// One small case per strategy family, each dtype at least once, a few layouts on the way. cols
/// is left to first_cols_in_regime (the boundary into the regime, i.e. the tightest fit).
struct sanitizer_pick {
  regime r;
  dtype t;
  int64_t rows;
  call_layout layout;
};

inline std::vector<sanitizer_pick> sanitizer_picks(const dsp::device_limits& dev) {
  const int64_t many = dev.sm_count + 7;  // >= sm_count rows: never split over a cluster
  return {
      {regime::sub_warp, dtype::f32, many, contiguous()},
      {regime::warp, dtype::bf16, many, offset_both(1)},
      {regime::block, dtype::f16, many, strided(13)},
      {regime::cluster_registers, dtype::bf16, 2, contiguous()},
      // The narrow path (pack 1) leaves registers at 4097-element rows: short cases.
      {regime::cached, dtype::f16, dev.sm_count / 2 + 1, offset_in_only()},
      {regime::cached_cluster, dtype::f32, 1, in_place(1)},
      {regime::streaming, dtype::f32, many, offset_out_only()},
      {regime::streaming_cluster, dtype::bf16, 1, contiguous()},
      // Only ops that stage long rows reach it (the rms_norm family; sanitizer_cols with rms_op).
      {regime::staged, dtype::bf16, many, contiguous()},
      // Rows one element past a 16-byte boundary, staged with partial edge packs
      // (kernels/stage_edge_pack.cuh): 2-byte lone elements stored a row step later, 4-byte words.
      {regime::staged, dtype::f16, many, offset_both(1)},
      {regime::staged, dtype::f32, many, offset_both(1)},
  };
}

/// Whether the plan must be able to reach regime r on this device: the register regimes and
/// streaming always; the cluster splits exactly when the device has clusters. A block-per-row
/// shared-memory cache without a cluster is a policy choice (the plan may prefer streaming).
inline bool regime_required(regime r, const dsp::device_limits& dev) {
  switch (r) {
    case regime::cluster_registers:
    case regime::cached_cluster:
    case regime::streaming_cluster: return dev.clusters;
    case regime::cached: return false;
    case regime::staged: return false;  // a policy choice of some ops on sm_90
    default: return true;
  }
}

/// The cols of a pick (sub-warp rows get at least 7 elements); -1 if the plan never reaches the
/// regime for these rows here.
inline int64_t sanitizer_cols(const sanitizer_pick& p, const dsp::device_limits& dev, op_traits op = softmax_traits) {
  if (!dev.clusters && (p.r == regime::cluster_registers || p.r == regime::cached_cluster ||
                        p.r == regime::streaming_cluster))
    return -1;
  if (p.r == regime::staged && !op.staged) return -1;
  // The staged regime starts past 32768 16-bit columns: search from there.
  const int64_t from = p.r == regime::sub_warp ? 7 : (p.r == regime::staged ? 32768 : 1);
  return first_cols_in_regime(p.r, p.t, p.rows, p.layout, dev, from, int64_t{1} << 22, op);
}

// --- small helpers -------------------------------------------------------------------------------

/// "fp16 1000x4099 stride 4100/4107 offset 1/0" and the like, for INFO().
inline std::string shape_text(dtype t, int64_t rows, int64_t cols) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s %lldx%lld", to_string(t), static_cast<long long>(rows), static_cast<long long>(cols));
  return buf;
}

}  // namespace rowwise_test
