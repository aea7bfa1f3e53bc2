// Session 25 probe: the staged kernel's start. Row 0 and row 1 are issued at once today and land
// interleaved (53: row 0 lands 6.3-7.6 us after entry). Variants: 0 = as shipped; 1 = row 0 alone,
// this thread waits for its copies, then row 1; 2 = row 0 in two halves, row 1 after the first.
// Same program, alternated launches, L2 flushed before each, median of the rounds.
#include <rowwise/rowwise.cuh>
#include "staged_ab.cuh"
#include <algorithm>
#include <functional>
#include <cstdio>
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
  CK(cudaEventRecord(a));
  f();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  float ms; CK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1000.f;
}
static double med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double vmin(std::vector<float> v) { return *std::min_element(v.begin(), v.end()); }

static double g_floor_tbps = 0;

template <class T, bool Log>
void shape(int64_t rows, int64_t cols) {
  using Op = kernels::softmax_op<Log>;
  using Msg = std::conditional_t<Log, dispatch::log_softmax_messages, dispatch::softmax_messages>;
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = true; p.column_params = Op::column_params; p.column_param_count = 0; p.column_param_bytes = 0;
  const dispatch::plan pl = dispatch::plan_rows(p, dev);
  if (pl.kind != dispatch::strategy::staged) { printf("%lld x %lld: not staged\n", (long long)rows, (long long)cols); return; }
  constexpr int B = dispatch::staged_block, S = dispatch::staged_stages, U = dispatch::staged_unroll_for(N), M = dispatch::staged_min_blocks;
  auto k0 = &kernels::ab::staged_kernel<Op, T, N, B, S, U, M, 0>;
  auto k1 = &kernels::ab::staged_kernel<Op, T, N, B, S, U, M, 1>;
  auto k2 = &kernels::ab::staged_kernel<Op, T, N, B, S, U, M, 2>;
  auto k3 = &kernels::ab::staged_kernel<Op, T, N, B, S, U, M, 3>;
  auto k4 = &kernels::ab::staged_kernel<Op, T, N, B, S, U, M, 4>;
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  std::vector<float> t[6];
  const double bytes = 2.0 * sizeof(T) * rows * cols;
  for (int r = 0; r < kRounds + 1; ++r) {
    float a = time_one([&] { if (!dispatch::launch_kernel<Msg>(pl, k0, io, Op{}, dev, cudaStream_t{})) { printf("fail\n"); exit(1);} });
    float b = time_one([&] { if (!dispatch::launch_kernel<Msg>(pl, k1, io, Op{}, dev, cudaStream_t{})) { printf("fail\n"); exit(1);} });
    float c = time_one([&] { if (!dispatch::launch_kernel<Msg>(pl, k2, io, Op{}, dev, cudaStream_t{})) { printf("fail\n"); exit(1);} });
    float d = time_one([&] { status s = Log ? log_softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), cudaStream_t{})
                                             : softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), cudaStream_t{}); (void)s; });
    float e = time_one([&] { if (!dispatch::launch_kernel<Msg>(pl, k3, io, Op{}, dev, cudaStream_t{})) { printf("fail\n"); exit(1);} });
    float f = time_one([&] { if (!dispatch::launch_kernel<Msg>(pl, k4, io, Op{}, dev, cudaStream_t{})) { printf("fail\n"); exit(1);} });
    if (r == 0) continue;
    t[5].push_back(f);
    t[4].push_back(e);
    t[0].push_back(a); t[1].push_back(b); t[2].push_back(c); t[3].push_back(d);
  }
  {
    std::vector<unsigned char> h0((size_t)bytes / 2), h3((size_t)bytes / 2);
    CK(cudaMemset(g_out, 0xff, (size_t)bytes / 2));
    if (!dispatch::launch_kernel<Msg>(pl, k0, io, Op{}, dev, cudaStream_t{})) exit(1);
    CK(cudaMemcpy(h0.data(), g_out, h0.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemset(g_out, 0xff, (size_t)bytes / 2));
    if (!dispatch::launch_kernel<Msg>(pl, k3, io, Op{}, dev, cudaStream_t{})) exit(1);
    CK(cudaMemcpy(h3.data(), g_out, h3.size(), cudaMemcpyDeviceToHost));
    printf("[v3 output %s v0] ", h0 == h3 ? "==" : "DIFFERS FROM");
    CK(cudaMemset(g_out, 0xff, (size_t)bytes / 2));
    if (!dispatch::launch_kernel<Msg>(pl, k4, io, Op{}, dev, cudaStream_t{})) exit(1);
    CK(cudaMemcpy(h3.data(), g_out, h3.size(), cudaMemcpyDeviceToHost));
    printf("[v4 output %s v0] ", h0 == h3 ? "==" : "DIFFERS FROM");
  }
  printf("%-11s %s %5lld x %6lld cl %2d |", Log ? "log_softmax" : "softmax", sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols, pl.cluster);
  const char* nm[6] = {"v0", "v1", "v2", "lib", "v3", "v4"};
  for (int i = 0; i < 6; ++i)
    printf(" %s %6.2f us (min %6.2f) %5.1f%% |", nm[i], med(t[i]), vmin(t[i]), bytes / med(t[i]) / 1e6 / g_floor_tbps * 100);
  printf("\n");
  fflush(stdout);
}

int main() {
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_flush, 128 << 20));
  {
    std::vector<float> c;
    for (int r = 0; r < 11; ++r) c.push_back(time_one([&] { CK(cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice)); }));
    g_floor_tbps = (256.0 * (1 << 20)) / med(c) / 1e6;
    printf("copy floor (cudaMemcpy 128 MiB, flushed): %.2f us, %.3f TB/s\n", med(c), g_floor_tbps);
  }
  fillk<<<2048, 256>>>((float*)g_in, kBuf / 4); CK(cudaDeviceSynchronize());
  shape<float, false>(128, 262144);
  shape<float, false>(221, 152064);
  shape<float, false>(512, 65536);
  shape<float, true>(128, 262144);
  fill16<<<2048, 256>>>((__nv_bfloat16*)g_in, kBuf / 2); CK(cudaDeviceSynchronize());
  shape<__nv_bfloat16, false>(256, 262144);
  shape<__nv_bfloat16, false>(442, 152064);
  shape<__nv_bfloat16, false>(1024, 65536);
  shape<__nv_bfloat16, false>(2048, 32768);
  shape<__nv_bfloat16, true>(256, 262144);
  shape<__nv_bfloat16, true>(1024, 65536);
  return 0;
}
