// Session 27 probe: the warp max of softmax's (m, d) all-reduce by one integer redux.sync on an
// order-preserving key instead of a 5-level shuffle butterfly. Library plan and kernels; the only
// difference is the reducer type (B: redux for full-warp groups). Graph of calls, warm L2 for small
// shapes; large shapes (>= 256 MiB traffic) as graphs of 4 calls. Same program, alternated, 3 rounds.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;

struct redux_softmax_reducer : online_softmax_reducer {};
namespace rowwise {
namespace probe {
__device__ __forceinline__ float warp_max_redux(float x) {
  const int i = __float_as_int(x);
  int key = i >= 0 ? i : (i ^ 0x7fffffff);
  key = __reduce_max_sync(0xffffffffu, key);
  return __int_as_float(key >= 0 ? key : (key ^ 0x7fffffff));
}
template <int G>
__device__ __forceinline__ online_softmax_value all_reduce(online_softmax_value v) {
  if constexpr (G == 32) {
    const float m = warp_max_redux(v.m);
    float d = m == -cuda::std::numeric_limits<float>::infinity() ? v.d : v.d * online_softmax_reducer::rescale(v.m - m);
    d = detail::butterfly_all_reduce<32>(d, sum_reducer{});
    return {m, d};
  } else {
    return detail::online_softmax_all_reduce<G>(v);
  }
}
}  // namespace probe
#define SPEC(G) template <> __device__ __forceinline__ online_softmax_value warp_all_reduce<G, redux_softmax_reducer>(online_softmax_value v, redux_softmax_reducer) { return probe::all_reduce<G>(v); }
SPEC(1) SPEC(2) SPEC(4) SPEC(8) SPEC(16) SPEC(32)
#undef SPEC
}  // namespace rowwise
template <bool Log>
struct redux_softmax_op : kernels::softmax_op<Log> {
  using reducer = redux_softmax_reducer;
};

static void *g_in, *g_out;
static const size_t kBytes = size_t(128) << 20;
__global__ void fillk(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 4.0f;
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double graph_us(const std::function<void(cudaStream_t)>& launch, int calls) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  launch(s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  cudaGraph_t g; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(s);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 12; ++r) {
    CK(cudaEventRecord(a, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r > 0) t.push_back(ms * 1000.0 / calls);
  }
  CK(cudaGraphExecDestroy(ex)); CK(cudaGraphDestroy(g)); CK(cudaStreamDestroy(s));
  return med(t);
}
template <class T, class OpA, class OpB, class Msg>
void run_shape(const char* nm, int64_t rows, int64_t cols, int calls) {
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = kernels::op_staged_long_rows<OpA>::value; p.column_params = false;
  p.column_param_count = 0; p.column_param_bytes = 0;
  const dispatch::plan pl = dispatch::plan_rows(p, dev);
  T* x = (T*)g_in; T* y = (T*)g_out;
  kernels::row_io<T> io{x, y, nullptr, rows, cols, cols, cols, cols};
  printf("%-12s %s %6lld x %6lld  (c%d b%d)", nm, sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols, pl.cluster, pl.block);
  auto ka = dispatch::kernel_for<OpA, T, N>(pl);
  auto kb = dispatch::kernel_for<OpB, T, N>(pl);
  OpA oa{}; OpB ob{};
  auto la = [&](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, ka, io, oa, dev, s)) { printf("fail\n"); exit(1);} };
  auto lb = [&](cudaStream_t s) { if (!dispatch::launch_kernel<Msg>(pl, kb, io, ob, dev, s)) { printf("fail\n"); exit(1);} };
  // Same output?
  std::vector<T> ha(rows * cols), hb(rows * cols);
  la(0); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(ha.data(), y, ha.size() * sizeof(T), cudaMemcpyDeviceToHost));
  lb(0); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(hb.data(), y, hb.size() * sizeof(T), cudaMemcpyDeviceToHost));
  size_t diff = 0; for (size_t i = 0; i < ha.size(); ++i) diff += memcmp(&ha[i], &hb[i], sizeof(T)) != 0;
  printf(" diff %zu:", diff);
  for (int r = 0; r < 3; ++r) printf("  %.3f / %.3f", graph_us(la, calls), graph_us(lb, calls));
  printf("\n");
}
template <class T>
void both(int64_t rows, int64_t cols, int calls) {
  run_shape<T, kernels::softmax_op<false>, redux_softmax_op<false>, dispatch::softmax_messages>("softmax", rows, cols, calls);
  run_shape<T, kernels::softmax_op<true>, redux_softmax_op<true>, dispatch::log_softmax_messages>("log_softmax", rows, cols, calls);
}
int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (void** p : {&g_in, &g_out}) { CK(cudaMalloc(p, kBytes)); fillk<<<1024, 256>>>((float*)*p, kBytes / 4, 7); }
  CK(cudaDeviceSynchronize());
  const int64_t small[][2] = {{1, 4096}, {128, 4096}, {64, 32000}, {1, 152064}, {8, 152064}, {32, 65536}};
  for (auto& s : small) { both<float>(s[0], s[1], 100); both<__nv_bfloat16>(s[0], s[1], 100); }
  for (int64_t c : {32, 128, 512, 1024, 4096, 16384, 65536}) both<float>(int64_t(kBytes / 4) / c, c, 4);
  for (int64_t c : {32, 128, 512, 1024, 4096, 16384, 65536}) both<__nv_bfloat16>(int64_t(kBytes / 2) / c, c, 4);
  return 0;
}
