// Lead's sweep 2 (not part of the project): whole-thread fast path, full vs persistent grid, fast exp.
#include <rowwise/rowwise.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void* g_in; static void* g_out; static void* g_res; static float* g_w; static double g_floor = 4150;
template <class T, class Op>
double time_plan(int64_t rows, int64_t cols, plan pl, Op op, int byte_rows = 2) {
  device_limits dev; current_device_limits(dev);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, (T*)g_res, rows, cols, cols, cols, cols};
  constexpr int W = max_pack_elems_v<T>;
  auto launch = [&] { return launch_plan<softmax_messages, Op, T, W>(pl, io, op, dev, 0); };
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto s = launch(); if (!s) { printf("launch: %s (%s)\n", s.message(), cudaGetErrorString(s.cuda_error())); exit(1); }
  std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return byte_rows * (double)rows * cols * sizeof(T) / ts[5] / 1e6;
}
template <class T, class Op> void row(const char* name, int64_t cols, Op op, int byte_rows = 2) {
  int64_t rows = std::max<int64_t>(1, (512ll << 20) / (byte_rows * cols * (int64_t)sizeof(T)));
  device_limits dev; current_device_limits(dev);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = max_pack_elems_v<T>; p.head = 0;
  plan pl = plan_rows(p, dev);
  double full = time_plan<T>(rows, cols, pl, op, byte_rows);
  printf("%-16s cols=%6lld kind=%d G=%3d K=%d B=%3d | %5.1f%%\n", name, (long long)cols, (int)pl.kind, pl.threads_per_row, pl.packs_per_thread, pl.block, full / g_floor * 100);
  if (cols >= 32768) {
    int64_t packs = (cols + p.pack_elems - 1) / p.pack_elems;
    plan ps = make_chunked_plan(p, false, 1, packs);
    ps.dynamic_smem = 120 * 1024;  // pad: one CTA per SM
    double t = time_plan<T>(rows, cols, ps, op, byte_rows);
    printf("%-16s cols=%6lld streaming 1 CTA/SM           | %5.1f%%\n", name, (long long)cols, t / g_floor * 100);
    for (int c : {2, 4, 8}) {
      int64_t seg = (packs + c - 1) / c;
      plan pc = make_chunked_plan(p, false, c, seg);
      t = time_plan<T>(rows, cols, pc, op, byte_rows);
      printf("%-16s cols=%6lld streaming cluster C=%d        | %5.1f%%\n", name, (long long)cols, c, t / g_floor * 100);
      if (seg * p.pack_elems * (int64_t)sizeof(T) <= 200 * 1024) {
        plan pk = make_chunked_plan(p, true, c, seg);
        t = time_plan<T>(rows, cols, pk, op, byte_rows);
        printf("%-16s cols=%6lld cached cluster C=%d           | %5.1f%%\n", name, (long long)cols, c, t / g_floor * 100);
      }
    }
  }
}
int main() {
  CK(cudaMalloc(&g_in, 512ll << 20)); CK(cudaMalloc(&g_out, 512ll << 20)); CK(cudaMalloc(&g_res, 512ll << 20)); CK(cudaMalloc(&g_w, 1 << 22));
  CK(cudaMemset(g_in, 0, 512ll << 20)); CK(cudaMemset(g_res, 0, 512ll << 20)); CK(cudaMemset(g_w, 0, 1 << 22));
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 21; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 256ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (256ll << 20) / ts[10] / 1e6;
    printf("copy floor (in process, 512 MiB traffic): %.0f GB/s  pass-2 forward=%d\n", g_floor, RW_EXP_FWD);
  }
  for (int64_t c : {32768, 65536, 152064, 262144}) {
    row<float>("softmax f32", c, kernels::softmax_op<false, false>{});
    row<__nv_bfloat16>("softmax bf16", c, kernels::softmax_op<false, true>{});
  }
  for (int64_t c : {65536}) {
    row<__nv_bfloat16>("rms bf16", c, kernels::rms_norm_op<__nv_bfloat16, false>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c});
    row<__nv_bfloat16>("ln bf16", c, kernels::layer_norm_op<__nv_bfloat16>{{}, (const __nv_bfloat16*)g_w, (const __nv_bfloat16*)g_w, nullptr, nullptr, 1e-5f, c});
    row<float>("ln f32", c, kernels::layer_norm_op<float>{{}, g_w, g_w, nullptr, nullptr, 1e-5f, c});
    row<__nv_bfloat16>("fused bf16", c, kernels::rms_norm_op<__nv_bfloat16, true>{{}, (const __nv_bfloat16*)g_w, 1e-6f, c}, 4);
  }
  return 0;
}
