// Session 25 probe: few long rows (fp32 softmax R x 152064, graph of 100 calls, time per call).
// 8 rows over clusters of 16 (2 CTAs per SM allowed) land 1.6 us above one row; are clusters
// doubled up on SMs (only 7 clusters of 16 fit at one CTA per SM)? Rows 1-8 over clusters of 16
// (bf16 also 8) through registers_over_cluster's plan (powers of two only: per_cluster is a shift); the library's call for reference.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out;
__global__ void fillk(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 8.0f;
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
// Per-call time of a graph of `calls` launches, median of 15 replays.
static double graph_us(const std::function<void(cudaStream_t)>& launch, int calls = 100) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  launch(s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  cudaGraph_t g; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(s);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaEventRecord(a, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r > 0) t.push_back(ms * 1000.0 / calls);
  }
  CK(cudaGraphExecDestroy(ex)); CK(cudaGraphDestroy(g)); CK(cudaStreamDestroy(s));
  return med(t);
}
template <class T, bool Log>
void shape(int64_t rows, int64_t cols, std::vector<int> clusters) {
  using Op = kernels::softmax_op<Log>;
  using Msg = std::conditional_t<Log, dispatch::log_softmax_messages, dispatch::softmax_messages>;
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = true; p.column_params = Op::column_params; p.column_param_count = 0; p.column_param_bytes = 0;
  const dispatch::plan lib = dispatch::plan_rows(p, dev);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  printf("%-11s %s %2lld x %6lld: library (cluster %2d, block %d) %.3f us |", Log ? "log_softmax" : "softmax", sizeof(T) == 4 ? "fp32" : "bf16",
         (long long)rows, (long long)cols, lib.cluster, lib.block,
         graph_us([&](cudaStream_t s) { status st = Log ? log_softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), s)
                                                          : softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), s); (void)st; }));
  for (int c : clusters) {
    const dispatch::plan pl = dispatch::registers_over_cluster(p, dev, cols / N, c);
    if (!pl.valid) { printf(" c%d invalid |", c); continue; }
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1]; cfg.gridDim = dim3(pl.cluster); cfg.blockDim = dim3(pl.block); cfg.dynamicSmemBytes = pl.dynamic_smem;
    if (pl.cluster > 8) CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cfg.numAttrs = dispatch::cluster_attributes(pl.cluster, at); cfg.attrs = at; int n = 0;
    CK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg));
    printf(" c%d (block %d, %d resident) %.3f us |", c, pl.block, n,
           graph_us([&](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, kern, io, Op{}, dev, s)) { printf("fail\n"); exit(1);} }));
  }
  printf("\n"); fflush(stdout);
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaMalloc(&g_in, 64 << 20)); CK(cudaMalloc(&g_out, 64 << 20));
  fillk<<<1024, 256>>>((float*)g_in, (64 << 20) / 4); CK(cudaDeviceSynchronize());
  for (int r : {1, 4, 6, 7, 8}) shape<float, false>(r, 152064, {16});
  shape<float, true>(8, 152064, {16});
  shape<__nv_bfloat16, false>(8, 152064, {16, 8});
  return 0;
}
