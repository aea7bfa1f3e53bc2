// Session 31 probe (adapted from session 29's probe_cl16.cu): bf16 1024 x 65536 (256 MiB) layer_norm
// (both weights; gamma only) on the library's plan (4 CTAs of 256 x 64 values) against clusters of
// 8 CTAs of 256 x 32 values and 16 of 128 x 32, weights staged or read from L2, through the
// library's launcher. Built twice: against the library's include/ and against a copy whose 16-bit
// two-weight staged budget is 80 registers (three 256-thread CTAs per SM) instead of 128. L2 flushed
// by memset before each launch (as the sweep), median of 15, us per launch; rounds alternate plans.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using T = __nv_bfloat16;
__global__ void fillk(T* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (T)(lo + (hi - lo) * ((h & 0xffff) / 65536.0f));
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static void* flushbuf; static size_t flushbytes = size_t(120) << 20;
static cudaStream_t s;
static double time_us(const std::function<void()>& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 16; ++r) {
    CK(cudaMemsetAsync(flushbuf, r & 0xff, flushbytes, s));
    CK(cudaEventRecord(e0, s)); f(); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3);
  }
  CK(cudaGetLastError());
  return med(t);
}
static double time_graph(const std::function<void()>& f) {
  cudaGraph_t gr; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 100; ++i) f();
  CK(cudaStreamEndCapture(s, &gr)); CK(cudaGraphInstantiate(&ge, gr, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    CK(cudaEventRecord(e0, s)); CK(cudaGraphLaunch(ge, s)); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r) t.push_back(ms * 1e3 / 100);
  }
  CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(gr));
  return med(t);
}
static int find_config(int g, int k, int block, int values) {
  for (int i = 0; i < dispatch::registers_config_count; ++i) {
    const auto& c = dispatch::registers_configs[i];
    if (c.g == g && c.k == k && c.block == block && c.values == values) return i;
  }
  return -1;
}
__global__ void checksum(const unsigned char* p, size_t n, unsigned long long* out);
template <class Op, class Msg, class T>
void run(const char* nm, const Op& op, T* in, T* out, int64_t rows, int64_t cols) {
  constexpr int N = 8;
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  const int64_t packs = cols / N;
  std::vector<dispatch::plan> plans{dispatch::plan_rows(p, dev)};
  const int n256 = find_config(256, 8, 256, 32), n128 = find_config(128, 8, 128, 32);
  for (auto [cfg, c] : {std::pair{n256, 8}, std::pair{n128, 16}}) {
    dispatch::plan a = dispatch::make_registers_plan(p, dev, cfg, c, packs / c);
    if (a.valid) plans.push_back(a);
    dispatch::plan b = a; b.dynamic_smem = 0;  // weights from L2 at the write-back
    if (a.valid && a.dynamic_smem > 0) plans.push_back(b);
  }
  kernels::row_io<T> io{in, out, nullptr, rows, cols, cols, cols, cols};
  std::vector<std::function<void()>> ls;
  printf("%s %s %lld x %lld\n", nm, sizeof(T) == 2 ? "16-bit" : "fp32", (long long)rows, (long long)cols);
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& pl = plans[i];
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    printf("  plan %zu: %s cluster %d block %d K %d smem %lld%s%s\n", i, dispatch::strategy_name(pl.kind), pl.cluster, pl.block, pl.packs_per_thread,
           (long long)pl.dynamic_smem, i == 0 ? " (library)" : "", kern ? "" : " NOT COMPILED");
    if (!kern) { ls.push_back(nullptr); continue; }
    ls.push_back([&, pl, kern] { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s).ok()) { printf("launch fail\n"); exit(1); } });
  }
  for (int r = 0; r < 3; ++r) { printf("  round %d:", r); for (auto& l : ls) printf("  %.2f", l ? time_us(l) : -1.0); printf("\n"); }
  // checksums of each plan's output (bit-identity is not expected across forms; a sanity check)
  for (size_t i = 0; i < ls.size(); ++i) if (ls[i]) {
    CK(cudaMemsetAsync(out, 0xff, rows * cols * sizeof(T), s)); ls[i]();
    unsigned long long* d; CK(cudaMalloc(&d, 8)); CK(cudaMemsetAsync(d, 0, 8, s));
    checksum<<<264, 256, 0, s>>>((const unsigned char*)out, rows * cols * sizeof(T), d);
    unsigned long long h; CK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s)); CK(cudaFree(d));
    printf("  plan %zu sum %llx\n", i, h);
  }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  const int64_t rows = 1024, cols = 65536;
  T *in, *out, *g, *b;
  CK(cudaMalloc(&in, rows * cols * 2)); CK(cudaMalloc(&out, rows * cols * 2)); CK(cudaMalloc(&g, cols * 2)); CK(cudaMalloc(&b, cols * 2));
  fillk<<<1024, 256>>>(in, rows * cols, 7, -2.f, 2.f); fillk<<<64, 256>>>(g, cols, 3, 0.5f, 1.5f); fillk<<<64, 256>>>(b, cols, 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  kernels::layer_norm_op<T> ln; ln.gamma = g; ln.beta = b; ln.mean_out = nullptr; ln.rstd_out = nullptr; ln.eps = 1e-5f; ln.cols = cols;
  for (int rep = 0; rep < 2; ++rep) {
    run<kernels::layer_norm_op<T>, dispatch::layer_norm_messages>("layer_norm w2", ln, in, out, rows, cols);
    kernels::layer_norm_op<T> l1 = ln; l1.beta = nullptr;
    run<kernels::layer_norm_op<T>, dispatch::layer_norm_messages>("layer_norm w1", l1, in, out, rows, cols);
  }
  for (int rep = 0; rep < 3; ++rep) {
    printf("graph, public layer_norm gamma + beta, us per call, round %d:", rep);
    for (auto [r, c] : {std::pair<int64_t, int64_t>{1, 4096}, {16, 4096}, {128, 4096}, {1, 8192}}) {
      const auto x = matrix<const T>(in, r, c);
      const auto y = matrix<T>(out, r, c);
      const auto gv = vector<const T>(g, c), bv = vector<const T>(b, c);
      printf("  %lldx%lld %.3f", (long long)r, (long long)c,
             time_graph([&] { if (!layer_norm(x, y, gv, bv, 1e-5f, s).ok()) { printf("fail\n"); exit(1); } }));
    }
    printf("\n");
  }
  printf("done\n");
}
__global__ void checksum(const unsigned char* p, size_t n, unsigned long long* out) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += (unsigned long long)p[i] * (1 + (i % 1021));
  atomicAdd(out, acc);
}
