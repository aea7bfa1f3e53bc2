// Session 23 probe: rows over clusters with the next row's loads overlapping the exchange
// (cluster_rows_kernel) against registers_kernel, at the large clustered shapes. L2 flushed,
// median of 9, % of the probe's own copy (128 MiB read + 128 MiB written). Variants:
//  base  the library's plan on registers_kernel
//  v1    cluster_rows_kernel as in the tree (next loads after the push)
//  e8    next loads after the collect (raw cleared first)
//  e7    next loads at the end of the step (raw cleared first): the control, no overlap
//  alt*  another config (bf16: 128 threads x 32 values over 16 CTAs)
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#include "crk_e7.cuh"
#include "crk_e8.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::kernels;
using B = __nv_bfloat16;
static void *g_in, *g_out, *g_w, *g_flush; static double* g_sum;
static const size_t kBuf = 300ull << 20;
static cudaStream_t g_s;
template <class T> __global__ void fill(T* p, size_t n, float scale, float offset) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * scale + offset);
  }
}
template <class T> __global__ void checksum(const T* p, size_t n, double* out) {
  double s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += (double)(float)p[i] * (double)((i % 7) + 1);
  atomicAdd(out, s);
}
template <class F> double time_flushed(F launch) {
  if (!launch(g_s)) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamSynchronize(g_s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20, g_s)); cudaEventRecord(a, g_s); (void)launch(g_s); cudaEventRecord(b, g_s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end()); return ts[4] * 1000.0;
}
template <class T> double sum_out(size_t n) {
  CK(cudaMemset(g_sum, 0, 8)); checksum<<<1024, 256>>>((const T*)g_out, n, g_sum); double h; CK(cudaMemcpy(&h, g_sum, 8, cudaMemcpyDeviceToHost)); return h;
}
static double g_copy;
template <class Msg, class Op, class T>
void run(const char* name, const char* var, const Op& op, int64_t rows, int64_t cols, dispatch::plan pl,
         dispatch::row_kernel_fn<Op, T> k) {
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  CK(cudaMemset(g_out, 0xff, (size_t)rows * cols * sizeof(T)));
  const double us = time_flushed([&](cudaStream_t s) { return (bool)dispatch::launch_kernel<Msg>(pl, k, io, op, dev, s); });
  const double bytes = 2.0 * rows * cols * sizeof(T);
  printf("%-12s %-5s %6lld x %6lld  %-6s block %3d cluster %2d  %8.2f us  %5.1f %%  sum %.9e\n", name, sizeof(T) == 2 ? "bf16" : "fp32",
         (long long)rows, (long long)cols, var, pl.block, pl.cluster, us, 100.0 * (bytes / us) / (256.0 * (1 << 20) / g_copy), sum_out<T>((size_t)rows * cols));
}
template <class Op, class T>
dispatch::plan plan_of(const Op& op, int64_t rows, int64_t cols) {
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p;
  p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = 16 / sizeof(T); p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  return dispatch::plan_rows(p, dev);
}
template <class Op, class T>
dispatch::plan alt_plan(const Op& op, int64_t rows, int64_t cols, int config, int cluster) {
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p;
  p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = 16 / sizeof(T); p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<Op>::value; p.column_params = Op::column_params;
  p.column_param_count = kernels::present_column_params(op);
  p.column_param_bytes = kernels::op_column_params<Op>::count > 0 ? (int)sizeof(typename kernels::op_column_params<Op>::type) : 0;
  const int64_t packs = cols / p.pack_elems;
  return dispatch::make_registers_plan(p, dev, config, cluster, packs / cluster);
}
// the four kernels of one plan (N, K, Block, Staged known here)
template <class Msg, class Op, class T, int K, int Block, bool Staged>
void all4(const char* name, const Op& op, int64_t rows, int64_t cols, dispatch::plan pl, const char* tag = "") {
  constexpr int N = 16 / sizeof(T);
  char b[32];
  if (pl.block != Block || pl.packs_per_thread != K || (pl.dynamic_smem > 0) != Staged) { printf("%s: plan mismatch block %d k %d smem %lld\n", name, pl.block, pl.packs_per_thread, (long long)pl.dynamic_smem); return; }
  pl.overlaps_exchange = false;
  snprintf(b, 32, "%sbase", tag); run<Msg, Op, T>(name, b, op, rows, cols, pl, &registers_kernel<Op, T, N, Block, K, Block, Staged>);
  snprintf(b, 32, "%sv1", tag); run<Msg, Op, T>(name, b, op, rows, cols, pl, &cluster_rows_kernel<Op, T, N, K, Block, Staged>);
  snprintf(b, 32, "%se8", tag); run<Msg, Op, T>(name, b, op, rows, cols, pl, &crk_e8<Op, T, N, K, Block, Staged>);
  snprintf(b, 32, "%se7", tag); run<Msg, Op, T>(name, b, op, rows, cols, pl, &crk_e7<Op, T, N, K, Block, Staged>);
}
int main() {
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20)); CK(cudaMalloc(&g_sum, 8));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4, 8.0f, 0.0f); fill<<<256, 256>>>((float*)g_w, (8 << 20) / 4, 1.0f, 1.0f); CK(cudaDeviceSynchronize());
  for (int round = 0; round < 2; ++round) {
    g_copy = time_flushed([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us\n", round, g_copy);
    // fp32 layer_norm 16384 / 65536
    {
      layer_norm_op<float> op{}; op.gamma = (const float*)g_w; op.beta = (const float*)g_w + 300000; op.eps = 1e-5f;
      for (int64_t c : {16384, 65536}) {
        const int64_t r = (128ll << 20) / 4 / c; op.cols = c;
        all4<dispatch::layer_norm_messages, layer_norm_op<float>, float, 8, 128, true>("layer_norm", op, r, c, plan_of<layer_norm_op<float>, float>(op, r, c));
      }
    }
    // bf16 layer_norm 65536: the plan's (64 values x 256 x 4) and 32 values x 128 x 16
    {
      layer_norm_op<B> op{}; op.gamma = (const B*)g_w; op.beta = (const B*)g_w + 300000; op.eps = 1e-5f;
      const int64_t c = 65536, r = (128ll << 20) / 2 / c; op.cols = c;
      all4<dispatch::layer_norm_messages, layer_norm_op<B>, B, 8, 256, true>("layer_norm", op, r, c, plan_of<layer_norm_op<B>, B>(op, r, c));
      all4<dispatch::layer_norm_messages, layer_norm_op<B>, B, 4, 128, true>("layer_norm", op, r, c, alt_plan<layer_norm_op<B>, B>(op, r, c, 11, 16), "a16");
    }
    // rms_norm fp32 16384 / 65536, bf16 65536 (+ alt)
    {
      rms_norm_op<float, false> op{}; op.weight = (const float*)g_w; op.eps = 1e-6f;
      for (int64_t c : {16384, 65536}) {
        const int64_t r = (128ll << 20) / 4 / c; op.cols = c;
        all4<dispatch::rms_norm_messages, rms_norm_op<float, false>, float, 8, 256, true>("rms_norm", op, r, c, plan_of<rms_norm_op<float, false>, float>(op, r, c));
      }
      rms_norm_op<B, false> ob{}; ob.weight = (const B*)g_w; ob.eps = 1e-6f;
      const int64_t c = 65536, r = (128ll << 20) / 2 / c; ob.cols = c;
      all4<dispatch::rms_norm_messages, rms_norm_op<B, false>, B, 8, 256, true>("rms_norm", ob, r, c, plan_of<rms_norm_op<B, false>, B>(ob, r, c));
      all4<dispatch::rms_norm_messages, rms_norm_op<B, false>, B, 4, 128, true>("rms_norm", ob, r, c, alt_plan<rms_norm_op<B, false>, B>(ob, r, c, 11, 16), "a16");
    }
    // softmax fp32 32768 / 65536
    {
      softmax_op<false> op{};
      for (int64_t c : {32768, 65536}) {
        const int64_t r = (128ll << 20) / 4 / c;
        all4<dispatch::softmax_messages, softmax_op<false>, float, 8, 256, false>("softmax", op, r, c, plan_of<softmax_op<false>, float>(op, r, c));
      }
      softmax_op<true> ol{};
      const int64_t c = 65536, r = (128ll << 20) / 4 / c;
      all4<dispatch::log_softmax_messages, softmax_op<true>, float, 8, 256, false>("log_softmax", ol, r, c, plan_of<softmax_op<true>, float>(ol, r, c));
    }
  }
  return 0;
}
