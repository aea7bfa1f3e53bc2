// Session 28 probe (experiments 63): layer_norm fp32 16384 / 65536 over clusters of other sizes.
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
static double graph_us(const std::function<void(cudaStream_t)>& launch, int calls = 4) {
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

// Session 28 probe: layer_norm fp32 2048 x 16384 (256 MiB, graph of 4 calls, L2 warm between
// replays as in experiments 60) on the library's plan (clusters of 4 CTAs of 128 threads) against
// the same rows over clusters of 2 and 8 (registers_over_cluster), alternated, 3 rounds; and
// rms_norm for scale. us per call.
template <class Op, class Msg>
void run_ln(const Op& op, const char* nm, int64_t rows, int64_t cols) {
  using T = float; constexpr int N = 4;
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  const int64_t packs = cols / N;
  const dispatch::plan lib = dispatch::plan_rows(p, dev);
  kernels::row_io<T> io{(T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, cols};
  auto launch = [&](const dispatch::plan& pl) {
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    return [&, pl, kern](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s)) { printf("fail\n"); exit(1);} };
  };
  std::vector<dispatch::plan> plans{lib};
  for (int c : {2, 4, 8}) { dispatch::plan a = dispatch::registers_over_cluster(p, dev, packs, c); if (a.valid) plans.push_back(a); }
  printf("%s fp32 %lld x %lld\n", nm, (long long)rows, (long long)cols);
  for (size_t i = 0; i < plans.size(); ++i)
    printf("  plan %zu: cluster %d block %d K %d smem %lld%s\n", i, plans[i].cluster, plans[i].block, plans[i].packs_per_thread, (long long)plans[i].dynamic_smem,
           i == 0 ? " (library)" : "");
  std::vector<std::function<void(cudaStream_t)>> ls;
  for (auto& pl : plans) ls.push_back(launch(pl));
  for (int r = 0; r < 3; ++r) { printf("  round %d:", r); for (auto& l : ls) printf("  %.2f", graph_us(l)); printf("\n"); }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const size_t bytes = size_t(128) << 20;
  for (void** p : {&g_in, &g_out}) { CK(cudaMalloc(p, bytes)); fillk<<<1024, 256>>>((float*)*p, bytes / 4, 7); }
  for (void** p : {&g_w, &g_b}) { CK(cudaMalloc(p, 1 << 20)); fillk<<<64, 256>>>((float*)*p, (1 << 20) / 4, 3); }
  CK(cudaDeviceSynchronize());
  for (int64_t cols : {16384, 65536}) {
    const int64_t rows = bytes / 4 / cols;
    kernels::layer_norm_op<float> op; op.gamma = (const float*)g_w; op.beta = (const float*)g_b; op.mean_out = nullptr; op.rstd_out = nullptr; op.eps = 1e-5f; op.cols = cols;
    run_ln<kernels::layer_norm_op<float>, dispatch::layer_norm_messages>(op, "layer_norm", rows, cols);
    const kernels::rms_norm_op<float, false> rop{{}, (const float*)g_w, 1e-5f, cols};
    run_ln<kernels::rms_norm_op<float, false>, dispatch::rms_norm_messages>(rop, "rms_norm", rows, cols);
  }
  return 0;
}
