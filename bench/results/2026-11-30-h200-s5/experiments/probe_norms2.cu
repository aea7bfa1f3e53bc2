// Lead's scratch (session 5): small shapes (CUDA graph of 100 calls, us per call) with a single
// row (or 16 / 128 rows) split over clusters of 1, 2, 4, 8 CTAs in registers, against the plan.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void *g_in, *g_out, *g_w, *g_flush;

template <class F> double graph_us(F launch) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (!launch(s)) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamSynchronize(s));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) (void)launch(s);
  CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaStreamDestroy(s);
  return ts[5] * 1000.0 / 100.0;
}

template <class Msg, class T, class Op> void run(const char* opname, const char* name, int64_t rows, int64_t cols, Op op) {
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  const int64_t packs = row_packs_for(cols, N, 0);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, cols};
  const plan lib = plan_rows(p, dev);
  printf("%-10s %-5s %4lldx%-6lld | lib(C%d g%d) %.2f |", opname, name, (long long)rows, (long long)cols, lib.cluster, lib.threads_per_row,
         graph_us([&](cudaStream_t s) { return (bool)launch_plan<Msg, Op, T, N>(lib, io, op, dev, s); }));
  printf("\n"); fflush(stdout);
}

template <class F> double large_pct(F launch, double bytes) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 7; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  return bytes / ts[3] / 1e6 / 4100.0 * 100;
}
template <class T> void large(const char* name) {
  for (int op = 0; op < 3; ++op) {
    const char* opn = op == 0 ? "layer_norm" : op == 1 ? "rms_norm" : "fused";
    printf("%-10s %-5s large %%:", opn, name);
    for (int64_t cols : {768, 1024, 2048, 4096, 5120, 8192, 12288, 16384, 65536}) {
      const int64_t rows = (256ll << 20) / (2 * cols * (int64_t)sizeof(T));
      auto w = vector<const T>((const T*)g_w, cols);
      printf(" %lld:%.1f", (long long)cols, large_pct([&](cudaStream_t s) -> bool {
        if (op == 0) return (bool)layer_norm(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, w, 1e-5f, s);
        if (op == 1) return (bool)rms_norm(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, 1e-6f, s);
        return (bool)fused_add_rms_norm(matrix<T>((T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, 1e-6f, s);
      }, (op == 2 ? 4.0 : 2.0) * rows * cols * sizeof(T)));
    }
    printf("\n"); fflush(stdout);
  }
}

template <class T> void shapes(const char* name) {
  const T* w = (const T*)g_w;
  for (auto rc : {std::pair<int64_t, int64_t>{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}}) {
    run<softmax_messages, T>("softmax", name, rc.first, rc.second, kernels::softmax_op<false>{});
    run<layer_norm_messages, T>("layer_norm", name, rc.first, rc.second, kernels::layer_norm_op<T>{{}, w, w + 300000, nullptr, nullptr, 1e-5f, rc.second});
    run<rms_norm_messages, T>("rms_norm", name, rc.first, rc.second, kernels::rms_norm_op<T, false>{{}, w, 1e-6f, rc.second});
  }
}

int main() {
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  CK(cudaMemset(g_in, 0, 300 << 20)); CK(cudaMemset(g_w, 0, 4 << 20));
  shapes<float>("fp32");
  shapes<__nv_bfloat16>("bf16");
  large<float>("fp32");
  large<__nv_bfloat16>("bf16");
  return 0;
}
