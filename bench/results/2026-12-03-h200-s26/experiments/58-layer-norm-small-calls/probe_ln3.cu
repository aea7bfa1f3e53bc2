// Session 26 probe 3: where layer_norm's small calls spend: its plan with and without the column
// stage (weights from shared memory or from global memory / L1), gamma only, no weights.
// Session 26 probe: small calls (graph of 100, warm L2, us per call) on the library's plan against
// the same rows on one CTA (fp32 8192-12288: the spread rule splits them over 2) or over a cluster
// of 2 (rows one CTA holds and the rule keeps whole). Same program, alternated, 3 rounds.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_res, *g_w, *g_b;
__global__ void fillk(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 4.0f;
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double graph_us(const std::function<void(cudaStream_t)>& launch, int calls = 100) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  launch(s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  cudaGraph_t g; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(s);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 12; ++r) {
    CK(cudaEventRecord(a, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r > 0) t.push_back(ms * 1000.0 / calls);
  }
  CK(cudaGraphExecDestroy(ex)); CK(cudaGraphDestroy(g)); CK(cudaStreamDestroy(s));
  return med(t);
}
enum class which { softmax, log_softmax, layer_norm, rms_norm, fused };
static const char* name(which w) {
  switch (w) { case which::softmax: return "softmax"; case which::log_softmax: return "log_softmax";
    case which::layer_norm: return "layer_norm"; case which::rms_norm: return "rms_norm"; default: return "fused_add_rms"; }
}

template <class T, class W>
void ln(int64_t rows, int64_t cols, int weights, int alt_cluster = 0) {
  using Op = kernels::layer_norm_op<W>;
  using Msg = dispatch::layer_norm_messages;
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  Op op; op.gamma = weights >= 1 ? (const W*)g_w : nullptr; op.beta = weights >= 2 ? (const W*)g_b : nullptr;
  op.mean_out = nullptr; op.rstd_out = nullptr; op.eps = 1e-5f; op.cols = cols;
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = true;
  p.column_param_count = kernels::present_column_params(op); p.column_param_bytes = sizeof(W);
  dispatch::plan lib = dispatch::plan_rows(p, dev);
  if (alt_cluster > 0) lib = alt_cluster == 1 ? dispatch::make_registers_plan(p, dev, dispatch::first_registers_config(cols / N, N, 1), 1, cols / N)
                                              : dispatch::registers_over_cluster(p, dev, cols / N, alt_cluster);
  dispatch::plan unst = lib; unst.dynamic_smem = 0;
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  auto launch = [&](const dispatch::plan& pl) {
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    return [&, pl, kern](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s)) { printf("fail\n"); exit(1);} };
  };
  printf("layer_norm %s W%s %3lld x %6lld weights %d  plan(c%d b%d smem%lld)  staged / unstaged:", sizeof(T) == 4 ? "fp32" : "bf16",
         sizeof(W) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols, weights, lib.cluster, lib.block, (long long)lib.dynamic_smem);
  auto la = launch(lib), lb = launch(unst);
  for (int r = 0; r < 3; ++r) printf("  %.3f / %.3f", graph_us(la), graph_us(lb));
  printf("\n"); fflush(stdout);
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (void** p : {&g_in, &g_out, &g_res}) { CK(cudaMalloc(p, 16 << 20)); fillk<<<512, 256>>>((float*)*p, (16 << 20) / 4, 7); }
  for (void** p : {&g_w, &g_b}) { CK(cudaMalloc(p, 1 << 20)); fillk<<<64, 256>>>((float*)*p, (1 << 20) / 4, 3); }
  CK(cudaDeviceSynchronize());
  for (int w : {2, 1, 0}) {
    ln<float, float>(1, 4096, w); ln<float, float>(128, 4096, w); ln<float, float>(1, 8192, w); ln<float, float>(16, 8192, w);
    ln<float, float>(1, 8192, w, 1);
    ln<__nv_bfloat16, __nv_bfloat16>(1, 4096, w); ln<__nv_bfloat16, __nv_bfloat16>(128, 4096, w); ln<__nv_bfloat16, __nv_bfloat16>(1, 8192, w);
  }
  return 0;
}
