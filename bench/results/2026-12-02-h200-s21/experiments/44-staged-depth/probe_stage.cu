// Session 21 probe: the staged kernel's cluster size and stage count at the long softmax rows the
// sweep misses, against the plan (rowwise::softmax), at the sweep's row counts (256 MiB), L2
// flushed, median of 9, two rounds alternated. Outputs checked: each variant's row sums ~ 1.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_flush;
static const size_t kBuf = 300ull << 20;
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = T(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
template <class F> double time_us(F launch) {
  if (!launch(cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 9; ++i) { CK(cudaMemsetAsync(g_flush, i, 128 << 20)); cudaEventRecord(a); (void)launch(cudaStream_t{}); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return ts[4] * 1000.0;
}
template <class T> double row_sum(int64_t row, int64_t cols) {
  std::vector<T> h(cols);
  CK(cudaMemcpy(h.data(), (T*)g_out + row * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
  double s = 0; for (auto& v : h) s += (double)(float)v; return s;
}
using Op = kernels::softmax_op<false>;
template <class T, int Stages, int Issue = 0>
bool staged_call(int cluster, int64_t rows, int64_t cols, cudaStream_t s) {
  constexpr int N = 16 / sizeof(T);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  dispatch::device_limits dev; dispatch::current_device_limits(dev);
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.staged_op = true;
  const int64_t packs = cols / N;
  const int64_t seg = (packs + cluster - 1) / cluster;
  dispatch::plan pl = dispatch::make_segment_plan(p, dispatch::strategy::staged, 512, dispatch::staged_unroll_for(N), cluster,
                                                  seg, (int64_t)Stages * seg * 16, true);
  auto k = &kernels::staged_kernel<Op, T, N, 512, Stages, dispatch::staged_unroll_for(N), 2, Issue>;
  status st = dispatch::launch_kernel<dispatch::softmax_messages, Op, T>(pl, k, io, Op{}, dev, s);
  if (!st) printf("  [%s]\n", st.message());
  return (bool)st;
}
template <class T> bool api_call(int64_t rows, int64_t cols, cudaStream_t s) {
  return (bool)softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), s);
}
struct variant { std::string name; std::function<bool(cudaStream_t)> f; };
int main() {
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_flush, 128 << 20));
  fill<<<2048, 256>>>((float*)g_in, kBuf / 4); CK(cudaDeviceSynchronize());
  struct shape { bool bf16; int64_t rows, cols; std::vector<std::pair<int, int>> cs; };  // (cluster, issue mode)
  std::vector<shape> shapes = {
    {true, 256, 262144, {{8, 0}, {8, 1}, {8, 2}, {8, 3}}},
    {true, 442, 152064, {{4, 0}, {4, 1}, {4, 2}, {4, 3}}},
    {true, 1024, 65536, {{2, 0}, {2, 1}, {2, 2}, {2, 3}}},
    {false, 128, 262144, {{16, 0}, {16, 1}, {16, 2}, {16, 3}}},
    {false, 221, 152064, {{8, 0}, {8, 1}, {8, 2}, {8, 3}}},
    {false, 512, 65536, {{4, 0}, {4, 3}}},
    {false, 1024, 32768, {{2, 0}, {2, 3}, {4, 0}}},
    {false, 2048, 16384, {{1, 0}, {1, 3}, {2, 0}}},
  };
  for (int round = 0; round < 2; ++round) {
    double copy = time_us([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us, %.0f GB/s\n", round, copy, (256 << 20) / copy / 1e3);
    for (auto& sh : shapes) {
      std::vector<variant> vs;
      const int64_t r = sh.rows, c = sh.cols;
      if (sh.bf16) vs.push_back({"plan", [=](cudaStream_t s) { return api_call<__nv_bfloat16>(r, c, s); }});
      else vs.push_back({"plan", [=](cudaStream_t s) { return api_call<float>(r, c, s); }});
      for (auto cs_ : sh.cs) { const int cl = cs_.first, stg = cs_.second;
        std::string n = "c" + std::to_string(cl) + " I" + std::to_string(stg);
        std::function<bool(cudaStream_t)> f;
#define V(S) if (stg == S) { if (sh.bf16) f = [=](cudaStream_t s) { return staged_call<__nv_bfloat16, 3, S>(cl, r, c, s); }; \
                             else f = [=](cudaStream_t s) { return staged_call<float, 3, S>(cl, r, c, s); }; }
        V(0) V(1) V(2) V(3)
        vs.push_back({n, f});
      }
      for (auto& v : vs) {
        double t = time_us(v.f);
        double s0 = sh.bf16 ? row_sum<__nv_bfloat16>(0, c) : row_sum<float>(0, c);
        double s1 = sh.bf16 ? row_sum<__nv_bfloat16>(r - 1, c) : row_sum<float>(r - 1, c);
        const double bytes = 2.0 * (sh.bf16 ? 2 : 4) * c * r;
        printf("  %s %6lld x %6lld %-8s %8.2f us %6.0f GB/s %5.1f %% of copy   sums %.4f %.4f\n", sh.bf16 ? "bf16" : "fp32",
               (long long)r, (long long)c, v.name.c_str(), t, bytes / t / 1e3, 100.0 * copy / t * (bytes / (256 << 20)), s0, s1);
      }
    }
  }
  return 0;
}
