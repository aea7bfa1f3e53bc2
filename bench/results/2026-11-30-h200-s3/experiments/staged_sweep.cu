// Lead's scratch (not part of the project): staged kernel variants against streaming, with a
// bitwise/ulp comparison of the outputs.
#include <rowwise/rowwise.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void* g_in; static void* g_out; static void* g_out2; static void* g_res; static void* g_res2; static float* g_w; static double g_floor = 4150;
constexpr int64_t BUF = 520ll << 20;
// An op that only copies: measures the kernel's memory structure without the reduction.
struct copy_op : kernels::row_op_base<copy_op> {
  using reducer = sum_reducer;
  using value = float;
  static constexpr bool column_params = false;
  static constexpr bool fuses_residual = false;
  static constexpr float pad = 0.0f;
  struct state { float s; };
  template <int M> __device__ value partial(const float (&v)[M], kernels::slot_mask<M>) const { return 0.0f; }
  __device__ state finalize(value t) const { return {t}; }
  template <int N> __device__ void apply(float (&v)[N], int64_t, const state& s) const { v[0] += s.s; }
};
template <class T> __global__ void fill(T* p, int64_t n, uint32_t seed, float scale) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = (T)(((h & 0xffffff) / 16777216.0f - 0.5f) * scale);
  }
}
template <class T> __global__ void diff(const T* a, const T* b, int64_t n, float* out) {
  float m = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float x = (float)a[i], y = (float)b[i]; float d = fabsf(x - y) / fmaxf(fabsf(y), 1e-6f);
    if (!(d <= 1e30f)) d = 1e30f; m = fmaxf(m, d);
  }
  atomicMax((int*)out, __float_as_int(m));
}
template <class T, class Op>
double time_kernel(int64_t rows, int64_t cols, plan pl, row_kernel_fn<Op, T> k, Op op, int byte_rows, void* out, void* res) {
  device_limits dev; current_device_limits(dev);
  kernels::row_io<T> io{(const T*)g_in, (T*)out, (T*)res, rows, cols, cols, cols, cols};
  auto launch = [&] { return launch_kernel<softmax_messages, Op, T>(pl, k, io, op, dev, 0); };
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto s = launch(); if (!s) { printf("launch: %s (%s)\n", s.message(), cudaGetErrorString(s.cuda_error())); exit(1); }
  CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return byte_rows * (double)rows * cols * sizeof(T) / ts[4] / 1e6;
}
template <class T, class Op, int Block, int Stages, int Uv = 32, int MinB = 1>
void variant(const char* name, int64_t rows, int64_t cols, Op op, int byte_rows, int64_t seg_bytes, double ref) {
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0; p.row_inputs = Op::fuses_residual ? 2 : 1;
  int64_t packs = cols / N;
  int c = 1; while (c < 16 && (packs + c - 1) / c * 16 * p.row_inputs > seg_bytes) c *= 2;
  int64_t seg = (packs + c - 1) / c;
  if ((int64_t)Stages * p.row_inputs * seg * 16 > 220 * 1024) { printf("%-12s cols=%6lld B=%d S=%d C=%d: smem too large, skipped\n", name, (long long)cols, Block, Stages, c); return; }
  plan pl = make_staged_plan(p, c, seg);
  pl.block = Block; pl.dynamic_smem = (int64_t)Stages * p.row_inputs * seg * 16;
  auto k = &kernels::staged_kernel<Op, T, N, Block, Stages, Uv / N, MinB>;
  if (Op::fuses_residual) CK(cudaMemcpy(g_res2, g_res, rows * cols * sizeof(T), cudaMemcpyDeviceToDevice));
  CK(cudaMemset(g_out2, 0xff, rows * cols * sizeof(T)));
  // one checked run first (the residual is rewritten by the fused op: compare the first launch)
  {
    kernels::row_io<T> io{(const T*)g_in, (T*)g_out2, (T*)g_res2, rows, cols, cols, cols, cols};
    auto s = launch_kernel<softmax_messages, Op, T>(pl, k, io, op, dev, 0);
    if (!s) { printf("launch: %s (%s)\n", s.message(), cudaGetErrorString(s.cuda_error())); exit(1); }
    CK(cudaDeviceSynchronize());
  }
  float* dm; CK(cudaMalloc(&dm, 4)); CK(cudaMemset(dm, 0, 4));
  diff<T><<<528, 512>>>((const T*)g_out2, (const T*)g_out, rows * cols, dm);
  float md; CK(cudaMemcpy(&md, dm, 4, cudaMemcpyDeviceToHost)); cudaFree(dm);
  if (getenv("QUICK")) { printf("%s B=%d S=%d C=%d maxrel %.2e\n", name, Block, Stages, c, md); return; }
  double t = time_kernel<T>(rows, cols, pl, k, op, byte_rows, g_out2, g_res2);
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k);
  int per_sm = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, Block, pl.dynamic_smem);
  int ncl = 0;
  if (c > 1) { cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(c); cfg.blockDim = dim3(Block); cfg.dynamicSmemBytes = pl.dynamic_smem; cudaLaunchAttribute at; at.id = cudaLaunchAttributeClusterDimension; at.val.clusterDim.x = c; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1; cfg.attrs = &at; cfg.numAttrs = 1; cudaOccupancyMaxActiveClusters(&ncl, k, &cfg); }
  printf("%-12s cols=%6lld staged B=%3d S=%d U=%2d MB=%d C=%2d seg=%3lldK | %5.1f%%  (streaming/plan %5.1f%%) maxrel %.2e regs %d ctas/SM %d clusters %d rows %lld\n", name, (long long)cols, Block, Stages, Uv, MinB, c, (long long)(seg * 16 / 1024), t / g_floor * 100, ref / g_floor * 100, md, fa.numRegs, per_sm, ncl, (long long)rows);
}
template <class T, class Op> void row(const char* name, int64_t cols, Op op, int byte_rows = 2) {
  int64_t rows = std::max<int64_t>(1, (512ll << 20) / (byte_rows * cols * (int64_t)sizeof(T)));
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0; p.row_inputs = Op::fuses_residual ? 2 : 1;
  int64_t packs = cols / N;
  fill<T><<<528, 512>>>((T*)g_in, rows * cols, 1234u + cols, 8.0f);
  if (Op::fuses_residual) fill<T><<<528, 512>>>((T*)g_res, rows * cols, 99u + cols, 2.0f);
  CK(cudaDeviceSynchronize());
  // reference: the streaming plan (verified kernel); residual copy so the fused op sees the same input
  plan ps = make_chunked_plan(p, false, 1, packs);
  if (Op::fuses_residual) CK(cudaMemcpy(g_res2, g_res, rows * cols * sizeof(T), cudaMemcpyDeviceToDevice));
  {
    kernels::row_io<T> io{(const T*)g_in, (T*)g_out, (T*)g_res2, rows, cols, cols, cols, cols};
    auto s = launch_plan<softmax_messages, Op, T, N>(ps, io, op, dev, 0); if (!s) { printf("ref launch failed\n"); exit(1); }
    CK(cudaDeviceSynchronize());
  }
  double ref = getenv("QUICK") ? 0 : time_kernel<T>(rows, cols, ps, kernel_for<Op, T, N>(ps), op, byte_rows, g_out2, g_res2);
  if (getenv("COPYTEST")) {
    variant<T, Op, 512, 3>(name, rows, cols, op, byte_rows, 64 << 10, ref);
    variant<T, Op, 512, 3>(name, rows, cols, op, byte_rows, 32 << 10, ref);
    variant<T, Op, 256, 3>(name, rows, cols, op, byte_rows, 32 << 10, ref);
    variant<T, Op, 128, 3>(name, rows, cols, op, byte_rows, 32 << 10, ref);
    variant<T, Op, 128, 3>(name, rows, cols, op, byte_rows, 16 << 10, ref);
    variant<T, Op, 128, 4>(name, rows, cols, op, byte_rows, 16 << 10, ref);
    variant<T, Op, 256, 4>(name, rows, cols, op, byte_rows, 16 << 10, ref);
    variant<T, Op, 128, 3>(name, rows, cols, op, byte_rows, 16 << 10, ref);
    return;
  }
  variant<T, Op, 256, 3, 16, 4>(name, rows, cols, op, byte_rows, 16 << 10, ref);
  variant<T, Op, 128, 3, 16, 8>(name, rows, cols, op, byte_rows, 16 << 10, ref);
  variant<T, Op, 256, 4, 16, 3>(name, rows, cols, op, byte_rows, 16 << 10, ref);
  variant<T, Op, 512, 3, 16, 2>(name, rows, cols, op, byte_rows, 32 << 10, ref);
  variant<T, Op, 256, 3, 16, 3>(name, rows, cols, op, byte_rows, 24 << 10, ref);
  variant<T, Op, 512, 3, 32, 2>(name, rows, cols, op, byte_rows, 64 << 10, ref);
}
template <class T, class Op> void plancheck(const char* name, int64_t cols, Op op, int byte_rows = 2) {
  int64_t rows = std::max<int64_t>(1, (512ll << 20) / (byte_rows * cols * (int64_t)sizeof(T)));
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0; p.row_inputs = Op::fuses_residual ? 2 : 1;
  p.staged_op = kernels::op_staged_long_rows<Op>::value;
  fill<T><<<528, 512>>>((T*)g_in, rows * cols, 1234u + cols, 8.0f);
  if (Op::fuses_residual) fill<T><<<528, 512>>>((T*)g_res, rows * cols, 99u + cols, 2.0f);
  plan pl = plan_rows(p, dev);
  plan ps = make_chunked_plan(p, false, 1, cols / N);
  double a = time_kernel<T>(rows, cols, pl, kernel_for<Op, T, N>(pl), op, byte_rows, g_out, g_res2);
  double b = time_kernel<T>(rows, cols, ps, kernel_for<Op, T, N>(ps), op, byte_rows, g_out2, g_res2);
  printf("%-12s cols=%6lld plan kind=%d C=%2d seg=%lldK smem=%lldK | %5.1f%%   streaming %5.1f%%\n", name, (long long)cols, (int)pl.kind, pl.cluster, (long long)(pl.segment_packs * 16 / 1024), (long long)(pl.dynamic_smem / 1024), a / g_floor * 100, b / g_floor * 100);
}
int main() {
  CK(cudaMalloc(&g_in, BUF)); CK(cudaMalloc(&g_out, BUF)); CK(cudaMalloc(&g_out2, BUF)); CK(cudaMalloc(&g_res, BUF)); CK(cudaMalloc(&g_res2, BUF)); CK(cudaMalloc(&g_w, 1 << 22));
  fill<float><<<64, 256>>>(g_w, 1 << 20, 7u, 2.0f);
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 21; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 256ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (256ll << 20) / ts[10] / 1e6;
    printf("copy floor (in process, 512 MiB traffic): %.0f GB/s\n", g_floor);
  }
  if (getenv("PLANCHECK")) {
    for (int64_t c : {16384, 20480, 32768, 65536, 152064}) {
      plancheck<float>("rms f32", c, kernels::rms_norm_op<float, false>{{}, g_w, 1e-6f, c});
      plancheck<__nv_bfloat16>("rms bf16", c, kernels::rms_norm_op<__nv_bfloat16, false>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c});
      plancheck<float>("fused f32", c, kernels::rms_norm_op<float, true>{{}, g_w, 1e-6f, c}, 4);
      plancheck<__nv_bfloat16>("fused bf16", c, kernels::rms_norm_op<__nv_bfloat16, true>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c}, 4);
    }
    return 0;
  }
  if (getenv("COPYTEST")) {
    row<__nv_bfloat16>("copy bf16", 16384, copy_op{});
    row<float>("copy f32", 16384, copy_op{});
    row<__nv_bfloat16>("copy bf16", 8192, copy_op{});
    row<__nv_bfloat16>("softmax bf16", 16384, kernels::softmax_op<false, true>{});
    return 0;
  }
  if (getenv("PLANCHECK")) {
    for (int64_t c : {16384, 20480, 32768, 65536, 152064}) {
      plancheck<float>("rms f32", c, kernels::rms_norm_op<float, false>{{}, g_w, 1e-6f, c});
      plancheck<__nv_bfloat16>("rms bf16", c, kernels::rms_norm_op<__nv_bfloat16, false>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c});
      plancheck<float>("fused f32", c, kernels::rms_norm_op<float, true>{{}, g_w, 1e-6f, c}, 4);
      plancheck<__nv_bfloat16>("fused bf16", c, kernels::rms_norm_op<__nv_bfloat16, true>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c}, 4);
    }
    return 0;
  }
  if (getenv("COPYTEST")) {
    row<__nv_bfloat16>("copy bf16", 16384, copy_op{});
    row<float>("copy f32", 16384, copy_op{});
    row<__nv_bfloat16>("copy bf16", 8192, copy_op{});
    row<__nv_bfloat16>("softmax bf16", 16384, kernels::softmax_op<false, true>{});
    return 0;
  }

  if (getenv("QUICK")) { row<__nv_bfloat16>("softmax bf16", 16384, kernels::softmax_op<false, true>{}); return 0; }
  for (int64_t c : {16384, 32768, 65536, 152064, 262144}) {
    row<float>("softmax f32", c, kernels::softmax_op<false, false>{});
    row<__nv_bfloat16>("softmax bf16", c, kernels::softmax_op<false, true>{});
  }
  for (int64_t c : {16384, 65536}) {
    row<__nv_bfloat16>("rms bf16", c, kernels::rms_norm_op<__nv_bfloat16, false>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c});
    row<__nv_bfloat16>("ln bf16", c, kernels::layer_norm_op<__nv_bfloat16>{{}, (const __nv_bfloat16*)g_w, (const __nv_bfloat16*)g_w, nullptr, nullptr, 1e-5f, c});
    row<float>("ln f32", c, kernels::layer_norm_op<float>{{}, g_w, g_w, nullptr, nullptr, 1e-5f, c});
    row<__nv_bfloat16>("fused bf16", c, kernels::rms_norm_op<__nv_bfloat16, true>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c}, 4);
  }
  return 0;
}
