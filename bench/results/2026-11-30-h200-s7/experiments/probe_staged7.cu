// Lead's scratch (session 7): long rows, library plan against streaming, staged and cached over clusters.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void *g_in, *g_out, *g_flush, *g_w; static double g_floor = 4150;
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

template <class F> double graph_us(F launch) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (!launch(s)) { printf("launch failed\n"); exit(1); }
  CK(cudaStreamSynchronize(s));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) (void)launch(s);
  CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaStreamDestroy(s);
  return ts[5] * 1000.0 / 100.0;
}

template <class Msg, class T, class Op> void run(const char* opname, const char* name, int64_t cols, Op op) {
  const int64_t rows = std::max<int64_t>(1, ((256ll << 20) + 2 * cols * (int64_t)sizeof(T) - 1) / (2 * cols * (int64_t)sizeof(T)));
  const double bytes = 2.0 * rows * cols * sizeof(T);
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.staged_op = kernels::op_staged_long_rows<Op>::value;
  const int64_t packs = row_packs_for(cols, N, 0);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, cols};
  printf("%-11s %-5s cols=%6lld rows=%5lld |", opname, name, (long long)cols, (long long)rows);
  const plan lib = plan_rows(p, dev);
  printf(" lib(k%d C%d) %5.1f | stream", (int)lib.kind, lib.cluster,
         time_pct([&] { return launch_plan<Msg, Op, T, N>(lib, io, op, dev, 0); }, bytes));
  for (int c : {4, 8, 16}) {
    plan pl = make_chunked_plan(p, false, c, ceil_div(packs, c));
    printf(" C%d %5.1f", c, time_pct([&] { return launch_plan<Msg, Op, T, N>(pl, io, op, dev, 0); }, bytes));
  }
  printf(" | staged");
  for (int c : {2, 4, 8, 16}) {
    const int64_t seg = ceil_div(packs, c);
    plan pl = make_staged_plan(p, c, seg);
    if (pl.dynamic_smem + static_smem_reserve > dev.max_smem_optin) { printf(" C%d  n/a", c); continue; }
    printf(" C%d %5.1f", c, time_pct([&] { return launch_plan<Msg, Op, T, N>(pl, io, op, dev, 0); }, bytes));
  }
  printf(" | cached");
  for (int c : {4, 8, 16}) {
    const int64_t seg = ceil_div(packs, c);
    plan pl = make_chunked_plan(p, true, c, seg);
    if (pl.dynamic_smem + static_smem_reserve > dev.max_smem_optin) { printf(" C%d  n/a", c); continue; }
    printf(" C%d %5.1f", c, time_pct([&] { return launch_plan<Msg, Op, T, N>(pl, io, op, dev, 0); }, bytes));
  }
  printf("\n"); fflush(stdout);
}

template <class T> void shape(const char* name, int64_t cols) {
  fill<<<2048, 256>>>((T*)g_in, (520ll << 20) / sizeof(T)); fill<<<256, 256>>>((T*)g_w, (4 << 20) / sizeof(T));
  CK(cudaDeviceSynchronize());
  const T* w = (const T*)g_w;
  run<softmax_messages, T>("softmax", name, cols, kernels::softmax_op<false>{});
  if (cols == 16384 || cols == 65536 || cols == 262144)
    run<layer_norm_messages, T>("layer_norm", name, cols, kernels::layer_norm_op<T>{{}, w, w + 300000, nullptr, nullptr, 1e-5f, cols});
}

template <class T> void small(const char* name) {
  fill<<<2048, 256>>>((T*)g_in, (520ll << 20) / sizeof(T)); fill<<<256, 256>>>((T*)g_w, (4 << 20) / sizeof(T));
  CK(cudaDeviceSynchronize());
  printf("softmax %-5s small us:", name);
  for (auto rc : {std::pair<int64_t, int64_t>{1, 4096}, {128, 4096}, {64, 32000}, {1, 152064}, {8, 152064}, {1, 65536}}) {
    const int64_t rows = rc.first, cols = rc.second;
    printf(" %lldx%lld %.2f", (long long)rows, (long long)cols, graph_us([&](cudaStream_t s) {
      return (bool)softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), s); }));
  }
  printf("\n");
  printf("layer_norm %-5s small us:", name);
  for (auto rc : {std::pair<int64_t, int64_t>{1, 65536}, {4, 65536}}) {
    const int64_t rows = rc.first, cols = rc.second;
    printf(" %lldx%lld %.2f", (long long)rows, (long long)cols, graph_us([&](cudaStream_t s) {
      auto w = vector<const T>((const T*)g_w, cols);
      return (bool)layer_norm(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), w, w, 1e-5f, s); }));
  }
  printf("\n"); fflush(stdout);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20)); CK(cudaMalloc(&g_flush, 130ll << 20));
  CK(cudaMalloc(&g_w, 4 << 20));
  fill<<<2048, 256>>>((float*)g_in, (520ll << 20) / 4); fill<<<256, 256>>>((float*)g_w, (4 << 20) / 4);
  CK(cudaDeviceSynchronize());
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 15; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 128ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (128ll << 20) / ts[7] / 1e6;
    printf("%s copy floor (256 MiB traffic): %.0f GB/s\n", argv[0], g_floor);
  }
  for (int64_t c : {32768, 65536, 152064, 262144}) {
    shape<float>("fp32", c);
    shape<__nv_bfloat16>("bf16", c);
  }
  return 0;
}
