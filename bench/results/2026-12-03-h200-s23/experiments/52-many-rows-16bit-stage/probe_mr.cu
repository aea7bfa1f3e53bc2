// Session 23 probe d: many 16-bit layer_norm rows of 13312-18432 columns (clusters of 2 x 224-288 threads) against other splits: was session 22 probe (session 21's with the staged softmax shapes added): one program built against two include trees (the commit before, and the
// change), timing layer_norm and softmax at graph shapes (100 calls, median of 11 replays) and
// large shapes (L2 flushed, median of 9). Prints an output checksum per shape.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
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
template <class F> double time_graph(F launch) {
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) if (!launch(g_s)) { printf("capture launch failed\n"); exit(1); }
  CK(cudaStreamEndCapture(g_s, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, g_s)); CK(cudaStreamSynchronize(g_s));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a, g_s); CK(cudaGraphLaunch(ge, g_s)); cudaEventRecord(b, g_s); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  std::sort(ts.begin(), ts.end()); return ts[5] * 1000.0 / 100;
}



// alt 0: the library's plan; alt 1: the same plan without the column stage; alt c > 1: a narrow
// (32-value) config over c CTAs, the smallest that holds the segment
template <class T> bool call(int64_t rows, int64_t cols, int alt, cudaStream_t s) {
  using Op = kernels::layer_norm_op<T>;
  Op op{}; op.gamma = (const T*)g_w; op.beta = (const T*)g_w + 300000; op.eps = 1e-5f; op.cols = cols;
  dispatch::device_limits dev; if (dispatch::current_device_limits(dev) != cudaSuccess) return false;
  dispatch::problem p;
  p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = 8; p.head = 0; p.row_inputs = 1;
  p.staged_op = false; p.column_params = true; p.column_param_count = 2; p.column_param_bytes = sizeof(T);
  dispatch::plan pl = dispatch::plan_rows(p, dev);
  if (alt == 1) pl.dynamic_smem = 0;
  if (alt > 1) {
    const int64_t seg = (cols / 8 + alt - 1) / alt;
    const int cfg = dispatch::first_registers_config(seg, 8, 64);
    if (cfg < 0) return false;
    pl = dispatch::make_registers_plan(p, dev, cfg, alt, seg);
  }
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  static int printed = 0;
  if (printed < 200) { ++printed; printf("  plan %lld x %lld alt %d: block %d cluster %d k %d smem %lld persistent %d\n", (long long)rows, (long long)cols, alt, pl.block, pl.cluster, pl.packs_per_thread, (long long)pl.dynamic_smem, (int)pl.persistent); }
  return (bool)dispatch::launch_plan<dispatch::layer_norm_messages, Op, T, 8>(pl, io, op, dev, s);
}
template <class T> double sum_out(size_t n) {
  CK(cudaMemset(g_sum, 0, 8)); checksum<<<1024, 256>>>((const T*)g_out, n, g_sum); double h; CK(cudaMemcpy(&h, g_sum, 8, cudaMemcpyDeviceToHost)); return h;
}
int main() {
  CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_w, 8 << 20)); CK(cudaMalloc(&g_flush, 128 << 20)); CK(cudaMalloc(&g_sum, 8));
  fill<<<2048, 256>>>((__nv_bfloat16*)g_in, kBuf / 2, 8.0f, 0.0f); fill<<<256, 256>>>((__nv_bfloat16*)g_w, (8 << 20) / 2, 1.0f, 1.0f); CK(cudaDeviceSynchronize());
  for (int round = 0; round < 3; ++round) {
    double copy = time_flushed([&](cudaStream_t s) { return cudaMemcpyAsync(g_out, g_in, 128 << 20, cudaMemcpyDeviceToDevice, s) == cudaSuccess; });
    printf("round %d copy 256 MiB: %.2f us\n", round, copy);
    for (int dt = 0; dt < 2; ++dt) {
      const char* dn = dt == 0 ? "bf16" : "fp16";
      for (int64_t c : {10240, 11264, 13312, 14336, 15360, 18432, 20480}) {
        const int64_t r = (128ll << 20) / 2 / c;
        for (int alt : {0, 1, 2, 4, 8}) {
          const auto f = [&](cudaStream_t s) { return dt == 0 ? call<__nv_bfloat16>(r, c, alt, s) : call<__half>(r, c, alt, s); };
          if (!f(g_s)) { printf("large %s %6lld x %6lld alt %d  none\n", dn, (long long)r, (long long)c, alt); continue; }
          const double us = time_flushed(f);
          const double cs = dt == 0 ? sum_out<__nv_bfloat16>(r * c) : sum_out<__half>(r * c);
          printf("large %s %6lld x %6lld alt %d  %7.2f us  %5.1f %%  sum %.9e\n", dn, (long long)r, (long long)c, alt, us, 100.0 * copy / us, cs);
        }
      }
    }
  }
  return 0;
}
