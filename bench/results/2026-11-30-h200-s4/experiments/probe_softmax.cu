// Lead's scratch: softmax long rows on the streaming strategy: grid shape (one CTA per row vs a
// persistent grid capped at 1 or 2 CTAs per SM) and clusters of 1-4 CTAs per row. L2 flushed.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void *g_in, *g_out, *g_flush; static double g_floor = 4150;

template <class F> double time_pct(F launch, double bytes) {
  auto s = launch(); if (!s) { printf("launch: %s\n", s.message()); return -1; }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 7; ++i) {
    CK(cudaMemsetAsync(g_flush, i, 128 << 20));
    cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return bytes / ts[3] / 1e6 / g_floor * 100;
}

template <class T> void shape(const char* name, int64_t cols) {
  const int64_t rows = std::max<int64_t>(1, (512ll << 20) / (2 * cols * (int64_t)sizeof(T)));
  const double bytes = 2.0 * rows * cols * sizeof(T);
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  const int64_t packs = row_packs_for(cols, N, 0);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, cols};
  using Op = kernels::softmax_op<false, (sizeof(T) < 4)>;
  Op op{};
  printf("%-5s cols=%7lld rows=%6lld |", name, (long long)cols, (long long)rows);
  const plan lib = plan_rows(p, dev);
  printf(" lib(kind %d C%d) %5.1f |", (int)lib.kind, lib.cluster,
         time_pct([&] { return launch_plan<softmax_messages, Op, T, N>(lib, io, op, dev, 0); }, bytes));
  for (int c : {2, 4}) {
    for (int cap : {2}) {
      plan pl = make_chunked_plan(p, false, c, ceil_div(packs, c));
      if (cap > 0) { pl.persistent = true; pl.max_ctas_per_sm = cap; }
      if (c == 1 && cap == 0) continue;  // = lib for many rows
      printf(" C%d cap%d %5.1f", c, cap, time_pct([&] { return launch_plan<softmax_messages, Op, T, N>(pl, io, op, dev, 0); }, bytes));
    }
  }
  printf("\n"); fflush(stdout);
}

int main() {
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20)); CK(cudaMalloc(&g_flush, 130ll << 20));
  CK(cudaMemset(g_in, 0, 520ll << 20));
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 15; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 256ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (256ll << 20) / ts[7] / 1e6;
    printf("RW_EXP_SM %d copy floor (512 MiB traffic): %.0f GB/s\n", RW_EXP_SM, g_floor);
  }
  for (int64_t c : {16384, 32768, 65536, 152064, 262144}) {
    shape<float>("fp32", c);
    shape<__nv_bfloat16>("bf16", c);
  }
  return 0;
}
