// Session 29 probe: 16-bit softmax / log_softmax rows of 65536-98304 columns (256 MiB) on the
// library's plan (staged first: policy.hpp staged_before_clustered_rows) against the plan the
// clustered-rows rules give (registers over a cluster), through the library's launcher. L2 flushed by memset before each
// launch (as the sweep), median of 15, us per launch; rounds alternate the plans.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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
template <class Op, class Msg, class TT>
void run(const char* nm, const char* dt, const Op& op, TT* in, TT* out, int64_t rows, int64_t cols) {
  constexpr int N = 8;
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(TT); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  const int64_t packs = cols / N;
  std::vector<dispatch::plan> plans{dispatch::plan_rows(p, dev), dispatch::clustered_rows_plan(p, dev, packs)};
  kernels::row_io<TT> io{in, out, nullptr, rows, cols, cols, cols, cols};
  std::vector<std::function<void()>> ls;
  printf("%s %s %lld x %lld\n", nm, dt, (long long)rows, (long long)cols);
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& pl = plans[i];
    auto kern = pl.valid ? dispatch::kernel_for<Op, TT, N>(pl) : nullptr;
    printf("  plan %zu: %s cluster %d block %d K %d regs-config %d%s%s\n", i, dispatch::strategy_name(pl.kind), pl.cluster, pl.block, pl.packs_per_thread,
           pl.config, i == 0 ? " (library)" : " (clustered rule)", kern ? "" : " NOT COMPILED / INVALID");
    if (!kern) { ls.push_back(nullptr); continue; }
    ls.push_back([&, pl, kern] { if (!dispatch::launch_kernel<Msg>(pl, kern, io, op, dev, s).ok()) { printf("launch fail\n"); exit(1); } });
  }
  for (int r = 0; r < 3; ++r) { printf("  round %d:", r); for (auto& l : ls) printf("  %.2f", l ? time_us(l) : -1.0); printf("\n"); }
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&flushbuf, flushbytes));
  T *in, *out;
  const size_t bytes = size_t(160) << 20;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes));
  fillk<<<1024, 256>>>(in, bytes / 2, 7, -2.f, 2.f);
  CK(cudaDeviceSynchronize());
  using H = __half;
  for (int64_t cols : {65536, 81920, 98304}) {
    const int64_t rows = (int64_t(256) << 20) / (4 * cols);
    run<kernels::softmax_op<false>, dispatch::softmax_messages>("softmax", "bf16", kernels::softmax_op<false>{}, in, out, rows, cols);
    if (cols == 65536) {
      run<kernels::softmax_op<true>, dispatch::log_softmax_messages>("log_softmax", "bf16", kernels::softmax_op<true>{}, in, out, rows, cols);
      run<kernels::softmax_op<false>, dispatch::softmax_messages>("softmax", "fp16", kernels::softmax_op<false>{}, (H*)in, (H*)out, rows, cols);
      run<kernels::softmax_op<true>, dispatch::log_softmax_messages>("log_softmax", "fp16", kernels::softmax_op<true>{}, (H*)in, (H*)out, rows, cols);
    }
  }
  printf("done\n");
}
