// Session 25 probe: the staged kernel over clusters that are not powers of two. fp32 262144 over 16
// CTAs gets 7 resident clusters (112 SMs): 128 rows take 19 row steps, the last with 2 of 7 busy.
// Over 14 CTAs (73 KiB segments, 3 stages = 219 KiB) more clusters may be resident.
// The library's kernel with the cluster index from %clusterid / %nclusterid (staged_ab.cuh), a hand-made plan (make_staged_plan with cluster c); L2 flushed,
// alternated, median of the rounds; outputs compared bitwise with the shipped plan's.
#include <rowwise/rowwise.cuh>
#include "staged_ab.cuh"
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static void *g_in, *g_out, *g_flush;
static const size_t kBuf = 600ull << 20;
static const int kRounds = 15;
__global__ void fillk(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 8.0f;
  }
}
__global__ void fill16(__nv_bfloat16* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2bfloat16(((h & 0xffff) / 65536.0f - 0.5f) * 8.0f);
  }
}
static float time_one(const std::function<void()>& f) {
  static cudaEvent_t a = nullptr, b = nullptr;
  if (!a) { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); }
  CK(cudaMemsetAsync(g_flush, 1, 128 << 20));
  CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); CK(cudaGetLastError());
  float ms; CK(cudaEventElapsedTime(&ms, a, b)); return ms * 1000.f;
}
static double med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double g_floor_tbps = 0;

template <class T, bool Log>
void shape(int64_t rows, int64_t cols, std::vector<int> clusters) {
  using Op = kernels::softmax_op<Log>;
  using Msg = std::conditional_t<Log, dispatch::log_softmax_messages, dispatch::softmax_messages>;
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = true; p.column_params = Op::column_params; p.column_param_count = 0; p.column_param_bytes = 0;
  const dispatch::plan lib = dispatch::plan_rows(p, dev);
  const int64_t packs = cols / N;
  auto kern = &kernels::ab::staged_kernel<Op, T, N, dispatch::staged_block, dispatch::staged_stages, dispatch::staged_unroll_for(N), dispatch::staged_min_blocks, 0>;
  if (lib.kind != dispatch::strategy::staged) { printf("not staged\n"); return; }
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  const double bytes = 2.0 * sizeof(T) * rows * cols;
  std::vector<dispatch::plan> plans;
  for (int c : clusters) plans.push_back(dispatch::make_staged_plan(p, c, dispatch::ceil_div(packs, c)));
  std::vector<unsigned char> ref((size_t)bytes / 2), got((size_t)bytes / 2);
  CK(cudaMemset(g_out, 0xff, ref.size()));
  if (!dispatch::launch_kernel<Msg>(lib, dispatch::kernel_for<Op, T, N>(lib), io, Op{}, dev, cudaStream_t{})) exit(1);
  CK(cudaMemcpy(ref.data(), g_out, ref.size(), cudaMemcpyDeviceToHost));
  std::vector<std::vector<float>> t(plans.size());
  for (int r = 0; r < kRounds + 1; ++r)
    for (size_t i = 0; i < plans.size(); ++i) {
      float x = time_one([&] { status s = dispatch::launch_kernel<Msg>(plans[i], kern, io, Op{}, dev, cudaStream_t{}); if (!s) { printf("launch failed: %s\n", s.message()); exit(1);} });
      if (r > 0) t[i].push_back(x);
    }
  for (size_t i = 0; i < plans.size(); ++i) {
    const dispatch::plan& pl = plans[i];
    cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1]; cfg.gridDim = dim3(pl.cluster); cfg.blockDim = dim3(pl.block); cfg.dynamicSmemBytes = pl.dynamic_smem;
    cfg.numAttrs = dispatch::cluster_attributes(pl.cluster, at); cfg.attrs = at; int n = 0;
    CK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg));
    CK(cudaMemset(g_out, 0xff, got.size()));
    if (!dispatch::launch_kernel<Msg>(pl, kern, io, Op{}, dev, cudaStream_t{})) exit(1);
    CK(cudaMemcpy(got.data(), g_out, got.size(), cudaMemcpyDeviceToHost));
    printf("%-11s %s %5lld x %6lld  cluster %2d%s  smem %6.1f KiB  resident clusters %2d (%3d SMs)  row steps %5.2f  %6.2f us  %5.1f %%  output %s\n",
           Log ? "log_softmax" : "softmax", sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols, pl.cluster,
           pl.cluster == lib.cluster ? "*" : " ", pl.dynamic_smem / 1024.0, n, n * pl.cluster, (double)rows / n, med(t[i]),
           bytes / med(t[i]) / 1e6 / g_floor_tbps * 100, got == ref ? "== shipped" : "DIFFERS");
    fflush(stdout);
  }
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_flush, 128 << 20));
  {
    std::vector<float> c;
    for (int r = 0; r < 11; ++r) c.push_back(time_one([&] { CK(cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice)); }));
    g_floor_tbps = (256.0 * (1 << 20)) / med(c) / 1e6;
    printf("copy floor (cudaMemcpy 128 MiB, flushed): %.2f us, %.3f TB/s\n", med(c), g_floor_tbps);
  }
  fillk<<<2048, 256>>>((float*)g_in, kBuf / 4); CK(cudaDeviceSynchronize());
  shape<float, false>(128, 262144, {16, 15, 14});
  shape<float, true>(128, 262144, {16, 15, 14});
  shape<float, false>(221, 152064, {8, 9, 10, 12});
  fill16<<<2048, 256>>>((__nv_bfloat16*)g_in, kBuf / 2); CK(cudaDeviceSynchronize());
  shape<__nv_bfloat16, false>(256, 262144, {8, 7, 9, 10});
  shape<__nv_bfloat16, true>(256, 262144, {8, 7, 9, 10});
  shape<__nv_bfloat16, false>(442, 152064, {4, 5, 6});
  shape<__nv_bfloat16, false>(1024, 65536, {2, 3});
  return 0;
}
