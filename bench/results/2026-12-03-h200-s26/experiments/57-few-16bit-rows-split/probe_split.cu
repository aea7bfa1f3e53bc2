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
template <class T, class Op, class Msg>
void run_shape(which w, const Op& op, int64_t rows, int64_t cols, int alt_cluster) {
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = Op::fuses_residual ? 2 : 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  const int64_t packs = cols / N;
  const dispatch::plan lib = dispatch::plan_rows(p, dev);
  dispatch::plan alt;
  if (alt_cluster == 1) {
    const int cfg = dispatch::first_registers_config(packs, N, 1);
    if (cfg >= 0) alt = dispatch::make_registers_plan(p, dev, cfg, 1, packs);
  } else {
    alt = dispatch::registers_over_cluster(p, dev, packs, alt_cluster);
  }
  T* x = (T*)g_in; T* y = Op::fuses_residual ? (T*)g_in : (T*)g_out;
  kernels::row_io<T> io{x, y, Op::fuses_residual ? (T*)g_res : nullptr, rows, cols, cols, cols, cols};
  printf("%-13s %s %3lld x %6lld  lib(c%d b%d smem%lld)", name(w), sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols,
         lib.cluster, lib.block, (long long)lib.dynamic_smem);
  if (!alt.valid) { printf("  alt c%d invalid\n", alt_cluster); return; }
  printf(" alt(c%d b%d smem%lld):", alt.cluster, alt.block, (long long)alt.dynamic_smem);
  auto launch = [&](const dispatch::plan& pl) {
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    return [&, pl, kern](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s)) { printf("fail\n"); exit(1);} };
  };
  auto la = launch(lib), lb = launch(alt);
  for (int r = 0; r < 3; ++r) printf("  %.3f / %.3f", graph_us(la), graph_us(lb));
  printf("\n"); fflush(stdout);
}
template <class T>
void shape(which w, int64_t rows, int64_t cols, int alt) {
  switch (w) {
    case which::softmax: run_shape<T, kernels::softmax_op<false>, dispatch::softmax_messages>(w, {}, rows, cols, alt); break;
    case which::log_softmax: run_shape<T, kernels::softmax_op<true>, dispatch::log_softmax_messages>(w, {}, rows, cols, alt); break;
    case which::layer_norm: {
      kernels::layer_norm_op<T> op; op.gamma = (const T*)g_w; op.beta = (const T*)g_b; op.mean_out = nullptr; op.rstd_out = nullptr; op.eps = 1e-5f; op.cols = cols;
      run_shape<T, kernels::layer_norm_op<T>, dispatch::layer_norm_messages>(w, op, rows, cols, alt); break; }
    case which::rms_norm: {
      const kernels::rms_norm_op<T, false> op{{}, (const T*)g_w, 1e-5f, cols};
      run_shape<T, kernels::rms_norm_op<T, false>, dispatch::rms_norm_messages>(w, op, rows, cols, alt); break; }
    case which::fused: {
      const kernels::rms_norm_op<T, true> op{{}, (const T*)g_w, 1e-5f, cols};
      run_shape<T, kernels::rms_norm_op<T, true>, dispatch::fused_add_rms_norm_messages>(w, op, rows, cols, alt); break; }
  }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (void** p : {&g_in, &g_out, &g_res}) { CK(cudaMalloc(p, 16 << 20)); fillk<<<512, 256>>>((float*)*p, (16 << 20) / 4, 7); }
  for (void** p : {&g_w, &g_b}) { CK(cudaMalloc(p, 1 << 20)); fillk<<<64, 256>>>((float*)*p, (1 << 20) / 4, 3); }
  CK(cudaDeviceSynchronize());
  const which all[] = {which::softmax, which::log_softmax, which::layer_norm, which::rms_norm, which::fused};
  // fp32 rows the spread rule splits over 2 CTAs although one CTA holds them: on one CTA.
  for (which w : all) for (int64_t r : {1, 16, 64}) for (int64_t c : {8192, 12288}) shape<float>(w, r, c, 1);
  // Rows kept whole: over a cluster of 2.
  for (which w : all) { shape<float>(w, 1, 4096, 2); shape<float>(w, 128, 4096, 2); shape<__nv_bfloat16>(w, 1, 8192, 2);
                        shape<__nv_bfloat16>(w, 1, 4096, 2); shape<__nv_bfloat16>(w, 128, 4096, 2); }
  return 0;
}
