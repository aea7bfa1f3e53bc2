// Lead's scratch (session 8): long rows held in registers over clusters of 2-16 CTAs against the
// library's plan (streaming / staged), for softmax, layer_norm, rms_norm, fp32 and bf16.
// L2 flushed, % of the probe's own copy floor, median of 5.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void *g_in, *g_out, *g_flush, *g_w, *g_res; static double g_floor = 4000;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class F> double time_pct(F launch, double bytes) {
  auto s = launch(); if (!s) { printf("launch: %s\n", s.message()); return -1; }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 5; ++i) {
    CK(cudaMemsetAsync(g_flush, i, 128 << 20));
    cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return bytes / ts[2] / 1e6 / g_floor * 100;
}
template <class Msg, class T, class Op> void run(const char* opname, const char* name, int64_t cols, Op op, int inputs) {
  const int64_t rows = std::max<int64_t>(1, ((256ll << 20) + 2 * cols * (int64_t)sizeof(T) - 1) / (2 * cols * (int64_t)sizeof(T)));
  const double bytes = 2.0 * inputs * rows * cols * sizeof(T);
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.staged_op = true; p.row_inputs = inputs;
  p.column_params = true; p.column_param_count = 1; p.column_param_bytes = sizeof(T);
  const int64_t packs = row_packs_for(cols, N, 0);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, (T*)g_res, rows, cols, cols, cols, cols};
  printf("%-6s %-4s %6lld rows=%5lld |", opname, name, (long long)cols, (long long)rows);
  const plan lib = plan_rows(p, dev);
  printf(" lib(k%d C%d b%d) %5.1f | staged", (int)lib.kind, lib.cluster, lib.block,
         time_pct([&] { return launch_plan<Msg, Op, T, N>(lib, io, op, dev, 0); }, bytes));
  for (int c : {1, 2, 4}) {
    plan st = make_staged_plan(p, c, ceil_div(packs, c));
    if (st.dynamic_smem + 4096 > dev.max_smem_optin) continue;
    printf(" C%d(%lldK) %5.1f", c, (long long)(st.dynamic_smem / 1024), time_pct([&] { return launch_plan<Msg, Op, T, N>(st, io, op, dev, 0); }, bytes));
  }
  printf("\n"); fflush(stdout);
}
template <class T> void shape(const char* name, int64_t cols) {
  const T* w = (const T*)g_w;
  run<rms_norm_messages, T>("rms", name, cols, kernels::rms_norm_op<T, false>{{}, w, 1e-6f, cols}, 1);
  run<fused_add_rms_norm_messages, T>("fused", name, cols, kernels::rms_norm_op<T, true>{{}, w, 1e-6f, cols}, 2);
}
int main(int argc, char** argv) {
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20)); CK(cudaMalloc(&g_flush, 130ll << 20));
  CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_res, 520ll << 20));
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 15; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 128ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (128ll << 20) / ts[7] / 1e6;
    printf("copy floor (256 MiB traffic): %.0f GB/s\n", g_floor);
  }
  fill<<<2048, 256>>>((__nv_bfloat16*)g_in, (520ll << 20) / 2); fill<<<256, 256>>>((__nv_bfloat16*)g_w, (4 << 20) / 2);
  CK(cudaDeviceSynchronize());
  for (int64_t c : {8192, 12288, 16384, 32768}) shape<__nv_bfloat16>("bf16", c);
  
  fill<<<2048, 256>>>((float*)g_in, (520ll << 20) / 4); fill<<<256, 256>>>((float*)g_w, (4 << 20) / 4);
  CK(cudaDeviceSynchronize());
  for (int64_t c : {12288, 16384}) shape<float>("fp32", c);
  return 0;
}
