// Session 24 probe: a per-CTA timeline (globaltimer, thread 0) of the staged softmax kernel at the
// sweep's long-row shapes, against a plain copy kernel stamped the same way. Question: of the
// ~7-12 us a long-row launch pays once (NOTES s20 a), how much is launch / entry, the first row's
// landing, the steady steps, the last step and the exit?
#include <rowwise/rowwise.cuh>
#include "staged_tl.cuh"
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
namespace tl = rowwise::kernels::tl;
static void *g_in, *g_out, *g_flush;
static unsigned long long* d_tl;
static unsigned long long* d_mark;
static const size_t kBuf = 600ull << 20;
static const int kMaxCtas = 2048;

__global__ void fillk(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 8.0f;
  }
}
__global__ void mark(unsigned long long* m) { m[0] = tl::gtime(); }
// Plain 16-byte copy, one CTA per SM x k, grid-stride; entry and exit stamped like the staged kernel.
__global__ void copy_tl(const uint4* in, uint4* out, size_t n) {
  using namespace rowwise::kernels::tl;
  TL_STAMP(0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
  __syncthreads();
  TL_STAMP(4);
}

struct run_result { float us; std::vector<unsigned long long> tl; unsigned long long mark; int ctas; };

template <class F>
run_result timed(F launch, int ctas) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<run_result> rs;
  for (int i = 0; i < 7; ++i) {
    CK(cudaMemset(d_tl, 0, sizeof(unsigned long long) * kMaxCtas * tl::kSlots));
    CK(cudaMemsetAsync(g_flush, i, 128 << 20));
    mark<<<1, 1>>>(d_mark);
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    run_result r; float ms; CK(cudaEventElapsedTime(&ms, a, b)); r.us = ms * 1000; r.ctas = ctas;
    r.tl.resize((size_t)kMaxCtas * tl::kSlots);
    CK(cudaMemcpy(r.tl.data(), d_tl, r.tl.size() * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&r.mark, d_mark, 8, cudaMemcpyDeviceToHost));
    if (i > 0) rs.push_back(r);  // the first is a warm-up
  }
  std::sort(rs.begin(), rs.end(), [](const run_result& x, const run_result& y) { return x.us < y.us; });
  return rs[rs.size() / 2];
}

static double med(std::vector<double> v) { if (v.empty()) return -1; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double vmax(const std::vector<double>& v) { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); }
static double vmin(const std::vector<double>& v) { return v.empty() ? -1 : *std::min_element(v.begin(), v.end()); }

static void report(const char* name, const run_result& r, double bytes, bool steps) {
  auto at = [&](int c, int s) { return r.tl[(size_t)c * tl::kSlots + s]; };
  unsigned long long t0 = ~0ull;
  for (int c = 0; c < r.ctas; ++c) t0 = std::min(t0, at(c, 0));
  auto rel = [&](unsigned long long t) { return (double)(t - t0) / 1000.0; };
  std::vector<double> entry, exitv, land, p1;
  for (int c = 0; c < r.ctas; ++c) {
    entry.push_back(rel(at(c, 0)));
    exitv.push_back(rel(at(c, 4)));
    if (steps && at(c, 2)) { land.push_back(rel(at(c, 2))); p1.push_back((at(c, 3) - at(c, 2)) / 1000.0); }
  }
  printf("\n== %s: event %.2f us, %.0f GB/s; %d CTAs; mark -> first entry %.2f us; entries %.2f..%.2f (median %.2f); exits %.2f..%.2f (median %.2f) us\n",
         name, r.us, bytes / r.us / 1e3, r.ctas, ((double)t0 - (double)r.mark) / 1000.0, vmin(entry), vmax(entry), med(entry),
         vmin(exitv), vmax(exitv), med(exitv));
  if (!steps) return;
  printf("   row 0 landed (median / max) %.2f / %.2f; pass 1 of row 0 %.2f us\n", med(land), vmax(land), med(p1));
  printf("   step  CTAs  end(med)  end(max)  step(med)  wait  pass1  collect  pass2   [us]\n");
  for (int k = 0; k < 64; ++k) {
    std::vector<double> endv, dur, w, p, col, p2;
    for (int c = 0; c < r.ctas; ++c) {
      const int b = 8 + 4 * k;
      if (!at(c, b + 3)) continue;
      const unsigned long long prev = k == 0 ? at(c, 3) : at(c, b - 1);
      endv.push_back(rel(at(c, b + 3)));
      dur.push_back((at(c, b + 3) - prev) / 1000.0);
      const unsigned long long a0 = at(c, b) ? at(c, b) : prev;
      w.push_back((a0 - prev) / 1000.0);
      p.push_back((at(c, b + 1) - a0) / 1000.0);
      col.push_back((at(c, b + 2) - at(c, b + 1)) / 1000.0);
      p2.push_back((at(c, b + 3) - at(c, b + 2)) / 1000.0);
    }
    if (endv.empty()) break;
    printf("   %4d  %4zu  %8.2f  %8.2f  %9.2f  %5.2f  %5.2f  %7.2f  %5.2f\n", k, endv.size(), med(endv), vmax(endv), med(dur), med(w), med(p), med(col), med(p2));
  }
}

template <class T, bool Log>
void staged_shape(int64_t rows, int64_t cols) {
  using Op = kernels::softmax_op<Log>;
  using Msg = std::conditional_t<Log, dispatch::log_softmax_messages, dispatch::softmax_messages>;
  constexpr int N = 16 / sizeof(T);
  dispatch::device_limits dev; CK(dispatch::current_device_limits(dev));
  dispatch::problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = true; p.column_params = Op::column_params; p.column_param_count = 0; p.column_param_bytes = 0;
  const dispatch::plan pl = dispatch::plan_rows(p, dev);
  if (pl.kind != dispatch::strategy::staged) { printf("%lld x %lld: not staged\n", (long long)rows, (long long)cols); return; }
  auto kern = &kernels::tl::staged_kernel_tl<Op, T, N, dispatch::staged_block, dispatch::staged_stages, dispatch::staged_unroll_for(N), dispatch::staged_min_blocks>;
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, 0};
  // CTAs of the persistent grid: resident clusters x cluster.
  int64_t grid = pl.max_useful_blocks;
  {
    cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1]; cfg.gridDim = dim3(pl.cluster); cfg.blockDim = dim3(pl.block); cfg.dynamicSmemBytes = pl.dynamic_smem;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)pl.dynamic_smem));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cfg.numAttrs = dispatch::cluster_attributes(pl.cluster, at); cfg.attrs = at; int n = 0;
    CK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg));
    if (pl.persistent && grid > (int64_t)n * pl.cluster) grid = (int64_t)n * pl.cluster;
    grid -= grid % pl.cluster;
  }
  char name[160];
  snprintf(name, sizeof name, "%s %s %lld x %lld (cluster %d, block %d, smem %lld KiB, %lld clusters, %.2f rows each)", Log ? "log_softmax" : "softmax",
           sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols, pl.cluster, pl.block, (long long)pl.dynamic_smem / 1024,
           (long long)(grid / pl.cluster), (double)rows / (grid / pl.cluster));
  auto r = timed([&] { status s = dispatch::launch_kernel<Msg>(pl, kern, io, Op{}, dev, cudaStream_t{}); if (!s) { printf("launch failed\n"); exit(1); } }, (int)grid);
  report(name, r, 2.0 * sizeof(T) * rows * cols, true);
  // the library's own kernel, same sequence (is the stamping free?)
  auto r2 = timed([&] { status s = softmax(matrix<const T>((const T*)g_in, rows, cols), matrix<T>((T*)g_out, rows, cols), cudaStream_t{}); (void)s; }, 0);
  printf("   library kernel (unstamped), same sequence: %.2f us\n", r2.us);
}

int main() {
  CK(cudaMalloc(&g_in, kBuf)); CK(cudaMalloc(&g_out, kBuf)); CK(cudaMalloc(&g_flush, 128 << 20));
  CK(cudaMalloc(&d_tl, sizeof(unsigned long long) * kMaxCtas * tl::kSlots)); CK(cudaMalloc(&d_mark, 8));
  CK(cudaMemcpyToSymbol(tl::g_tl, &d_tl, sizeof d_tl));
  fillk<<<2048, 256>>>((float*)g_in, kBuf / 4); CK(cudaDeviceSynchronize());
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (size_t bytes : {256ull << 20, 28ull << 20, 14ull << 20}) {
    const size_t n = bytes / 2 / 16;
    auto r = timed([&] { CK(cudaMemcpyAsync(g_out, g_in, bytes / 2, cudaMemcpyDeviceToDevice)); }, 0);
    printf("cudaMemcpy %zu MiB (read + write): %.2f us, %.0f GB/s\n", bytes >> 20, r.us, bytes / r.us / 1e3);
    for (int per_sm : {4, 8}) {
      const int ctas = sms * per_sm;
      auto rc = timed([&] { copy_tl<<<ctas, 512>>>((const uint4*)g_in, (uint4*)g_out, n); }, ctas);
      char name[96]; snprintf(name, sizeof name, "copy_tl %zu MiB, %d CTAs of 512", bytes >> 20, ctas);
      report(name, rc, (double)bytes, false);
    }
  }
  staged_shape<float, false>(128, 262144);
  staged_shape<float, false>(7, 262144);
  staged_shape<__nv_bfloat16, false>(256, 262144);
  staged_shape<__nv_bfloat16, false>(15, 262144);
  staged_shape<__nv_bfloat16, false>(1024, 65536);
  staged_shape<__nv_bfloat16, false>(442, 152064);
  staged_shape<float, false>(221, 152064);
  return 0;
}
