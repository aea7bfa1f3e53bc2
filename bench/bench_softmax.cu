// bench/bench_softmax.cu — softmax and log_softmax, fp32 / fp16 / bf16.
//
// Large shapes: cols from 32 to 262144, rows chosen so one launch moves >= 256 MiB
// (read + write = 2 * rows * cols * sizeof(T)), L2 flushed before each timed launch.
// Small shapes (fp32, bf16): per-call time inside a CUDA graph of 100 calls.
// Large shapes run twice: aligned, and with both matrices one element past a 16-byte boundary
// (harness.cuh: kLargeOffsets, names ending in /offset1).
// Bytes = rows * cols * sizeof(T) read + the same written.
#include "harness.cuh"

#include <rowwise/rowwise.cuh>

namespace {

using namespace rowwise_bench;

enum class op { softmax, log_softmax };

const char* op_name(op o) { return o == op::softmax ? "softmax" : "log_softmax"; }

/// The benchmark's matrices, `offset` elements past the pool's (256-byte aligned) buffers.
template <class T>
bool prepare(benchmark::State& state, int64_t rows, int64_t cols, T** in, T** out, int64_t offset = 0) {
  const int64_t n = rows * cols;
  *in = pool_get<T>(state, slot::in, n + offset);
  if (!*in) return false;
  *out = pool_get<T>(state, slot::out, n + offset);
  if (!*out) return false;
  *in += offset;
  *out += offset;
  // Logits ~ N(0, 3): a realistic spread (a max well above the rest, most terms small).
  const cudaError_t e = fill_normal(*in, n, 0x50F7ull + static_cast<uint64_t>(cols), 0.f, 3.f);
  if (e != cudaSuccess) {
    fail_cuda(state, e, "fill_normal", __FILE__, __LINE__);
    return false;
  }
  return true;
}

template <class T>
auto make_launch(op o, T* in, T* out, int64_t rows, int64_t cols) {
  return [=](cudaStream_t s) {
    const auto iv = rowwise::matrix<const T>(in, rows, cols);
    const auto ov = rowwise::matrix<T>(out, rows, cols);
    return o == op::softmax ? rowwise::softmax(iv, ov, s) : rowwise::log_softmax(iv, ov, s);
  };
}

template <class T>
void bm_large(benchmark::State& state, op o, int64_t rows, int64_t cols, int64_t offset) {
  T *in = nullptr, *out = nullptr;
  if (!prepare(state, rows, cols, &in, &out, offset)) return;
  const int64_t bytes = 2 * rows * cols * static_cast<int64_t>(sizeof(T));
  time_kernel(state, make_launch(o, in, out, rows, cols), bytes, /*flush_l2=*/true);
}

template <class T>
void bm_graph(benchmark::State& state, op o, int64_t rows, int64_t cols) {
  T *in = nullptr, *out = nullptr;
  if (!prepare(state, rows, cols, &in, &out)) return;
  const int64_t bytes = 2 * rows * cols * static_cast<int64_t>(sizeof(T));
  time_graph(state, make_launch(o, in, out, rows, cols), bytes, kGraphCalls);
}

constexpr int64_t kLargeCols[] = {32, 128, 512, 1000, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 152064, 262144};

struct small_shape {
  int64_t rows, cols;
};
// The issue's shapes, and few rows of a large vocabulary (a decode batch's logits: 32 x 65536, 16 x
// 131072), which go over a doubled cluster in registers (dispatch/policy.hpp few_rows_doubling).
constexpr small_shape kSmallShapes[] = {{1, 4096},    {128, 4096},  {64, 32000}, {1, 152064},
                                        {8, 152064}, {32, 65536}, {16, 131072}};

template <class T>
void register_large() {
  for (int64_t offset : kLargeOffsets) {
    for (op o : {op::softmax, op::log_softmax}) {
      for (int64_t cols : kLargeCols) {
        const int64_t rows = large_rows(cols, sizeof(T));
        add(bench_name(op_name(o), dtype_name<T>(), rows, cols, offset_variant(offset)),
            [o, rows, cols, offset](benchmark::State& st) { bm_large<T>(st, o, rows, cols, offset); })
            ->Iterations(kLargeIterations);
      }
    }
  }
}

template <class T>
void register_graph() {
  for (op o : {op::softmax, op::log_softmax}) {
    for (const small_shape& sh : kSmallShapes) {
      const int64_t rows = sh.rows, cols = sh.cols;
      add(bench_name(op_name(o), dtype_name<T>(), rows, cols, "graph"),
          [o, rows, cols](benchmark::State& st) { bm_graph<T>(st, o, rows, cols); })
          ->Iterations(kGraphIterations);
    }
  }
}

void register_softmax() {
  register_large<float>();
  register_large<__half>();
  register_large<__nv_bfloat16>();
  register_graph<float>();
  register_graph<__nv_bfloat16>();
}

RWB_REGISTER(1, &register_softmax);

}  // namespace
