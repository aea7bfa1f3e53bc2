// bench/bench_norms.cu — layer_norm, rms_norm and fused_add_rms_norm, fp32 / fp16 / bf16 (W = T).
//
// Large shapes: hidden from 768 to 65536, rows = ceil(128 MiB / (hidden * sizeof(T))), so that
// the matrix read + written once is >= 256 MiB (fused_add_rms_norm moves twice that), L2 flushed
// before each timed launch, aligned and with the row matrices one element past a 16-byte boundary
// (harness.cuh: kLargeOffsets, names ending in /offset1; weights aligned). Small shapes (fp32, bf16): per-call time in a CUDA graph of 100 calls.
// Bytes (minimum traffic):
//   layer_norm          in + out + gamma + beta          = 2*rows*cols*sizeof(T) + 2*cols*sizeof(T)
//   rms_norm            in + out + weight                = 2*rows*cols*sizeof(T) + cols*sizeof(T)
//   fused_add_rms_norm  x, residual read; both written; weight = 4*rows*cols*sizeof(T) + cols*sizeof(T)
#include "harness.cuh"

#include <rowwise/rowwise.cuh>

namespace {

using namespace rowwise_bench;

enum class op { layer_norm, rms_norm, fused_add_rms_norm };

const char* op_name(op o) {
  switch (o) {
    case op::layer_norm: return "layer_norm";
    case op::rms_norm: return "rms_norm";
    default: return "fused_add_rms_norm";
  }
}

template <class T>
int64_t traffic(op o, int64_t rows, int64_t cols) {
  const int64_t e = static_cast<int64_t>(sizeof(T));
  const int64_t m = rows * cols * e;
  switch (o) {
    case op::layer_norm: return 2 * m + 2 * cols * e;
    case op::rms_norm: return 2 * m + cols * e;
    default: return 4 * m + cols * e;
  }
}

/// Buffers of one benchmark, filled with random values (inputs ~ N(0,1), weight ~ U[0.5, 1.5),
/// bias ~ U[-0.5, 0.5)). For fused_add_rms_norm `in` is x and `out` is the residual (in place).
template <class T>
struct buffers {
  T* in = nullptr;
  T* out = nullptr;
  T* weight = nullptr;
  T* bias = nullptr;
};

template <class T>
bool prepare(benchmark::State& state, op o, int64_t rows, int64_t cols, buffers<T>* b, int64_t offset = 0) {
  const int64_t n = rows * cols;
  if (!(b->in = pool_get<T>(state, slot::in, n + offset))) return false;
  if (!(b->out = pool_get<T>(state, slot::out, n + offset))) return false;
  b->in += offset;  // the row matrices `offset` elements past the pool's 256-byte aligned buffers
  b->out += offset;
  if (!(b->weight = pool_get<T>(state, slot::weight, cols))) return false;
  if (o == op::layer_norm && !(b->bias = pool_get<T>(state, slot::bias, cols))) return false;

  const uint64_t seed = 0x4E02ull * 131 + static_cast<uint64_t>(cols);
  cudaError_t e = fill_normal(b->in, n, seed, 0.f, 1.f);
  if (e == cudaSuccess && o == op::fused_add_rms_norm) e = fill_normal(b->out, n, seed + 1, 0.f, 1.f);
  if (e == cudaSuccess) e = fill_uniform(b->weight, cols, seed + 2, 0.5f, 1.5f);
  if (e == cudaSuccess && b->bias) e = fill_uniform(b->bias, cols, seed + 3, -0.5f, 0.5f);
  if (e != cudaSuccess) {
    fail_cuda(state, e, "fill", __FILE__, __LINE__);
    return false;
  }
  return true;
}

template <class T>
auto make_launch(op o, const buffers<T>& b, int64_t rows, int64_t cols) {
  return [=](cudaStream_t s) -> rowwise::status {
    const auto w = rowwise::vector<const T>(b.weight, cols);
    switch (o) {
      case op::layer_norm:
        return rowwise::layer_norm(rowwise::matrix<const T>(b.in, rows, cols),
                                   rowwise::matrix<T>(b.out, rows, cols), w,
                                   rowwise::vector<const T>(b.bias, cols), 1e-5f, s);
      case op::rms_norm:
        return rowwise::rms_norm(rowwise::matrix<const T>(b.in, rows, cols),
                                 rowwise::matrix<T>(b.out, rows, cols), w, 1e-6f, s);
      default:
        return rowwise::fused_add_rms_norm(rowwise::matrix<T>(b.in, rows, cols),
                                           rowwise::matrix<T>(b.out, rows, cols), w, 1e-6f, s);
    }
  };
}

template <class T>
void bm_large(benchmark::State& state, op o, int64_t rows, int64_t cols, int64_t offset) {
  buffers<T> b;
  if (!prepare(state, o, rows, cols, &b, offset)) return;
  time_kernel(state, make_launch(o, b, rows, cols), traffic<T>(o, rows, cols), /*flush_l2=*/true);
}

template <class T>
void bm_graph(benchmark::State& state, op o, int64_t rows, int64_t cols) {
  buffers<T> b;
  if (!prepare(state, o, rows, cols, &b)) return;
  time_graph(state, make_launch(o, b, rows, cols), traffic<T>(o, rows, cols), kGraphCalls);
}

constexpr int64_t kHidden[] = {768, 1024, 2048, 4096, 5120, 8192, 12288, 16384, 65536};

struct small_shape {
  int64_t rows, cols;
};
constexpr small_shape kSmallShapes[] = {{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}};

constexpr op kOps[] = {op::layer_norm, op::rms_norm, op::fused_add_rms_norm};

template <class T>
void register_large() {
  for (int64_t offset : kLargeOffsets) {
    for (op o : kOps) {
      for (int64_t cols : kHidden) {
        // Same shape for all three ops: the matrix itself is >= 128 MiB, so each launch moves
        // >= 256 MiB (fused_add_rms_norm >= 512 MiB).
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
  for (op o : kOps) {
    for (const small_shape& sh : kSmallShapes) {
      const int64_t rows = sh.rows, cols = sh.cols;
      add(bench_name(op_name(o), dtype_name<T>(), rows, cols, "graph"),
          [o, rows, cols](benchmark::State& st) { bm_graph<T>(st, o, rows, cols); })
          ->Iterations(kGraphIterations);
    }
  }
}

void register_norms() {
  register_large<float>();
  register_large<__half>();
  register_large<__nv_bfloat16>();
  register_graph<float>();
  register_graph<__nv_bfloat16>();
}

RWB_REGISTER(2, &register_norms);

}  // namespace
