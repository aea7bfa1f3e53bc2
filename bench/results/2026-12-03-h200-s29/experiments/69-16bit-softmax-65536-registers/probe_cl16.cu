// Session 29 probe: bf16 1024 x 65536 (256 MiB) layer_norm (both weights) and softmax on the
// library's plan against the same rows over clusters of 8 CTAs of 128 threads x 64 values (wide
// segments) and 4 x 256 x 64, through the library's launcher. L2 flushed by memset before each
// launch (as the sweep), median of 15, us per launch; rounds alternate the plans.
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
static int find_config(int g, int k, int block, int values) {
  for (int i = 0; i < dispatch::registers_config_count; ++i) {
    const auto& c = dispatch::registers_configs[i];
    if (c.g == g && c.k == k && c.block == block && c.values == values) return i;
  }
  return -1;
}
template <class Op, class Msg>
void run(const char* nm, const Op& op, T* in, T* out, int64_t rows, int64_t cols) {
  constexpr int N = 8;
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  const int64_t packs = cols / N;
  std::vector<dispatch::plan> plans{dispatch::plan_rows(p, dev)};
  const int w128 = find_config(128, 8, 128, 64), w256 = find_config(256, 8, 256, 64), n256 = find_config(256, 8, 256, 32);
  for (auto [cfg, c] : {std::pair{w128, 8}, std::pair{w256, 4}, std::pair{n256, 8}}) {
    dispatch::plan a = dispatch::make_registers_plan(p, dev, cfg, c, packs / c);
    if (a.valid) plans.push_back(a);
    dispatch::plan b = a; b.dynamic_smem = 0;  // weights from L2 at the write-back
    if (a.valid && a.dynamic_smem > 0) plans.push_back(b);
  }
  kernels::row_io<T> io{in, out, nullptr, rows, cols, cols, cols, cols};
  std::vector<std::function<void()>> ls;
  printf("%s bf16 %lld x %lld\n", nm, (long long)rows, (long long)cols);
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& pl = plans[i];
    auto kern = dispatch::kernel_for<Op, T, N>(pl);
    printf("  plan %zu: %s cluster %d block %d K %d smem %lld%s%s\n", i, dispatch::strategy_name(pl.kind), pl.cluster, pl.block, pl.packs_per_thread,
           (long long)pl.dynamic_smem, i == 0 ? " (library)" : "", kern ? "" : " NOT COMPILED");
    if (!kern) { ls.push_back(nullptr); continue; }
    ls.push_back([&, pl, kern] { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s).ok()) { printf("launch fail\n"); exit(1); } });
  }
  for (int r = 0; r < 3; ++r) { printf("  round %d:", r); for (auto& l : ls) printf("  %.2f", l ? time_us(l) : -1.0); printf("\n"); }
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
  run<kernels::layer_norm_op<T>, dispatch::layer_norm_messages>("layer_norm", ln, in, out, rows, cols);
  run<kernels::softmax_op<false>, dispatch::softmax_messages>("softmax", kernels::softmax_op<false>{}, in, out, rows, cols);
  printf("done\n");
}
