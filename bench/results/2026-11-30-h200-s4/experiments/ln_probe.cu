// Lead's scratch (next session): where LayerNorm's time goes on the registers path, against
// rms_norm at the same shapes. Variants: library two-pass LN; one pair all-reduce (naive
// E[x^2]-E[x]^2: a speed bound only, not numerically acceptable); without beta; rms_norm.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
static void* g_in; static void* g_out; static void* g_ref; static float* g_w; static double g_floor = 4150;

template <class W>
struct ln_one_reduce_op : kernels::row_op_base<ln_one_reduce_op<W>> {
  using reducer = pair_sum_reducer;
  using value = float_pair;
  static constexpr bool column_params = true;
  static constexpr bool fuses_residual = false;
  static constexpr float pad = 0.0f;
  const W* gamma; const W* beta; float eps; int64_t cols;
  struct state { float mean, rstd; };
  template <int M> __device__ value partial(const float (&v)[M], kernels::slot_mask<M>) const {
    float s[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < M; ++i) { s[i % 4] += v[i]; q[i % 4] = fmaf(v[i], v[i], q[i % 4]); }
    return {(s[0] + s[1]) + (s[2] + s[3]), (q[0] + q[1]) + (q[2] + q[3])};
  }
  __device__ state finalize(value t) const {
    const float inv = 1.0f / static_cast<float>(cols);
    const float m = t.a * inv;
    return {m, rsqrtf(fmaxf(t.b * inv - m * m, 0.0f) + eps)};
  }
  template <int N> __device__ void apply(float (&v)[N], int64_t col0, const state& s) const {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = (v[j] - s.mean) * s.rstd;
    if (gamma) { float g[N]; kernels::load_column_params<N>(gamma, col0, cols, g);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] *= g[j]; }
    if (beta) { float b[N]; kernels::load_column_params<N>(beta, col0, cols, b);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] += b[j]; }
  }
};


// B: the library op with a cheaper write-back: t = x - shift (exact), y = fma(t, rstd, -corr*rstd),
// then fma(y, g, b): 3 arithmetic instructions per element instead of 5.
template <class W>
struct ln_cheap_apply_op : kernels::layer_norm_op<W> {
  template <int N> __device__ __forceinline__ void apply(float (&v)[N], int64_t col0, const typename kernels::layer_norm_op<W>::state& s) const {
    const float off = -s.corr * s.rstd;
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = fmaf(v[j] - s.shift, s.rstd, off);
    if (this->gamma != nullptr && this->beta != nullptr) {
      float g[N], b[N];
      kernels::load_column_params<N>(this->gamma, col0, this->cols, g);
      kernels::load_column_params<N>(this->beta, col0, this->cols, b);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] = fmaf(v[j], g[j], b[j]);
    } else if (this->gamma != nullptr) {
      float g[N]; kernels::load_column_params<N>(this->gamma, col0, this->cols, g);
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] *= g[j];
    }
  }
  template <int N, class S> __device__ __forceinline__ void apply_in_place(float (&v)[N], int64_t col0, const S& s) const { apply(v, col0, s); }
};

// C: whole-row-in-CTA LayerNorm with one barrier: each warp does the exact two-pass over its own
// values with shuffles only (sum+count, then deviations), publishes (n, m, c/n, M2) and every
// thread merges the warps in order (Chan) around warp 0's shift.
template <class Op, class T, int N, int G, int K, int Block, int MaxReg>
__global__ void __maxnreg__(MaxReg) ln_one_barrier_kernel(kernels::row_io<T> io, Op op, int64_t segment_packs) {
  static_assert(G == Block || G <= 32, "");
  constexpr int W = Block / 32;
  struct part { float n, m, cm, m2; };
  __shared__ __align__(16) part parts[2][W > 0 ? W : 1];
  const int lane = threadIdx.x % G;
  const int group = threadIdx.x / G;
  constexpr int rows_per_step = Block / G;
  const int64_t step = static_cast<int64_t>(gridDim.x) * rows_per_step;
  kernels::wait_for_prior_grids();
  kernels::allow_dependent_grids();
  int parity = 0;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * rows_per_step; base < io.rows; base += step, parity ^= 1) {
    const int64_t row = base + group;
    const bool active = row < io.rows;
    const int64_t r = active ? row : 0;
    const T* in_row = io.in + r * io.in_stride;
    T* out_row = io.out + r * io.out_stride;
    const int head = kernels::row_head<N>(in_row);
    const kernels::thread_packs<K, G, N> tp(active, lane, segment_packs, io.cols, head);
    float v[K * N];
    kernels::slot_mask<K * N> ok;
    kernels::load_op_packs<Op, dispatch::row_load_policy, false>(tp, in_row, (T*)nullptr, v, ok);
    constexpr int WG = G < 32 ? G : 32;
    // warp level: sum and count
    float s = 0.f;
    { float a[4] = {0,0,0,0};
#pragma unroll
      for (int i = 0; i < K * N; ++i) a[i % 4] += v[i];
      s = (a[0] + a[1]) + (a[2] + a[3]); }
    float n = static_cast<float>(__popc(static_cast<unsigned>(ok.bits)));
    if constexpr (K * N > 32) n += static_cast<float>(__popc(static_cast<unsigned>(static_cast<uint64_t>(ok.bits) >> 32)));
    float_pair sn = warp_all_reduce<WG>(float_pair{s, n}, pair_sum_reducer{});
    const float mw = sn.b > 0.f ? sn.a / sn.b : 0.f;
    float q = 0.f, c = 0.f;
    { float qa[4] = {0,0,0,0}, ca[4] = {0,0,0,0};
      if (ok.all()) {
#pragma unroll
        for (int i = 0; i < K * N; ++i) { const float d = v[i] - mw; ca[i % 4] += d; qa[i % 4] = fmaf(d, d, qa[i % 4]); }
      } else {
#pragma unroll
        for (int i = 0; i < K * N; ++i) { const float d = ok[i] ? v[i] - mw : 0.f; ca[i % 4] += d; qa[i % 4] = fmaf(d, d, qa[i % 4]); }
      }
      q = (qa[0] + qa[1]) + (qa[2] + qa[3]); c = (ca[0] + ca[1]) + (ca[2] + ca[3]); }
    float_pair qc = warp_all_reduce<WG>(float_pair{q, c}, pair_sum_reducer{});
    typename Op::state st;
    const float inv_total = 1.0f / static_cast<float>(io.cols);
    if constexpr (G <= 32) {
      const float corr = qc.b * inv_total;
      st = {mw, corr, rsqrtf(fmaxf(fmaf(-corr, corr, qc.a * inv_total), 0.f) + op.eps)};
    } else {
      const float cmw = sn.b > 0.f ? qc.b / sn.b : 0.f;
      const float m2w = fmaxf(fmaf(-cmw, qc.b, qc.a), 0.f);
      if ((threadIdx.x & 31) == 0) parts[parity][threadIdx.x / 32] = {sn.b, mw, cmw, m2w};
      __syncthreads();
      const float shift = parts[parity][0].m;
      float corr_sum = 0.f;
      float dl[W];
#pragma unroll
      for (int w = 0; w < W; ++w) { const part pw = parts[parity][w]; dl[w] = (pw.m - shift) + pw.cm; corr_sum = fmaf(pw.n, dl[w], corr_sum); }
      const float corr = corr_sum * inv_total;
      float m2 = 0.f;
#pragma unroll
      for (int w = 0; w < W; ++w) { const part pw = parts[parity][w]; const float e = dl[w] - corr; m2 += pw.m2 + pw.n * e * e; }
      st = {shift, corr, rsqrtf(m2 * inv_total + op.eps)};
    }
    kernels::store_op_packs<false, true>(tp, op, st, out_row, v);
  }
}

template <class Op, class T, int N, int MaxReg, int I>
constexpr row_kernel_fn<Op, T> one_barrier_instance() {
  constexpr registers_config c = registers_configs[I];
  return &ln_one_barrier_kernel<Op, T, N, c.g, registers_k(I, N), c.block, MaxReg>;
}
template <class Op, class T, int N, int MaxReg, std::size_t... I>
row_kernel_fn<Op, T> one_barrier_at(int config, std::index_sequence<I...>) {
  constexpr row_kernel_fn<Op, T> table[] = {one_barrier_instance<Op, T, N, MaxReg, static_cast<int>(I)>()...};
  return table[config];
}

template <class T, class Op, int Custom = 0>
double time_op(int64_t rows, int64_t cols, Op op) {
  device_limits dev; current_device_limits(dev);
  constexpr int N = 16 / sizeof(T);
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  const plan pl = plan_rows(p, dev);
  kernels::row_io<T> io{(const T*)g_in, (T*)g_out, nullptr, rows, cols, cols, cols, cols};
  auto launch = [&] {
    if constexpr (Custom != 0) {
      if (pl.kind == strategy::registers)
        return launch_kernel<layer_norm_messages, Op, T>(pl, one_barrier_at<Op, T, N, Custom>(pl.config, std::make_index_sequence<registers_config_count>{}), io, op, dev, 0);
    }
    return launch_plan<layer_norm_messages, Op, T, N>(pl, io, op, dev, 0); };
  auto s = launch(); if (!s) { printf("launch: %s\n", s.message()); exit(1); }
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 11; ++i) { cudaEventRecord(a); (void)launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return 2.0 * rows * cols * sizeof(T) / ts[5] / 1e6 / g_floor * 100;
}


__global__ void fill_kernel(float* f, int64_t n, float scale, float offset) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    f[i] = offset + scale * ((h & 0xffffff) / 16777216.0f - 0.5f);
  }
}
template <class T> __global__ void cvt_kernel(const float* f, T* t, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) t[i] = from_float<T>(f[i]);
}
template <class T> double max_diff(int64_t n) {
  std::vector<T> a(n), b(n);
  CK(cudaMemcpy(a.data(), g_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), g_ref, n * sizeof(T), cudaMemcpyDeviceToHost));
  double m = 0; for (int64_t i = 0; i < n; ++i) m = std::max(m, std::abs((double)to_float(a[i]) - (double)to_float(b[i])));
  return m;
}
template <class T> void shape(const char* name, int64_t cols) {
  const int64_t rows = (512ll << 20) / (2 * cols * (int64_t)sizeof(T));
  const T* w = (const T*)g_w;
  const double ln = time_op<T>(rows, cols, kernels::layer_norm_op<T>{{}, w, w, nullptr, nullptr, 1e-5f, cols});
  const int64_t nchk = std::min<int64_t>(rows * cols, 1 << 22);
  CK(cudaMemcpy(g_ref, g_out, nchk * sizeof(T), cudaMemcpyDeviceToDevice));
  const double ln_nobeta = time_op<T>(rows, cols, kernels::layer_norm_op<T>{{}, w, nullptr, nullptr, nullptr, 1e-5f, cols});
  const double one = time_op<T>(rows, cols, ln_one_reduce_op<T>{{}, w, w, 1e-5f, cols});
  const double one_noparams = time_op<T>(rows, cols, ln_one_reduce_op<T>{{}, nullptr, nullptr, 1e-5f, cols});
  const double rms = time_op<T>(rows, cols, kernels::rms_norm_op<T, false>{{}, w, 1e-6f, cols});
  using C = ln_cheap_apply_op<T>;
  C cheap; static_cast<kernels::layer_norm_op<T>&>(cheap) = kernels::layer_norm_op<T>{{}, w, w, nullptr, nullptr, 1e-5f, cols};
  const double lcheap = time_op<T>(rows, cols, cheap);
  const double d_cheap = max_diff<T>(nchk);
  const double onebar = time_op<T, kernels::layer_norm_op<T>, 80>(rows, cols, kernels::layer_norm_op<T>{{}, w, w, nullptr, nullptr, 1e-5f, cols});
  const double d_onebar = max_diff<T>(nchk);
  const double onebar_cheap = time_op<T, C, 80>(rows, cols, cheap);
  const double d_onebar_cheap = max_diff<T>(nchk);
  const double onebar_cheap64 = time_op<T, C, 64>(rows, cols, cheap);
  const double onebar_cheap96 = time_op<T, C, 96>(rows, cols, cheap);
  printf("%-5s cols=%6lld | ln %5.1f no-beta %5.1f one-reduce %5.1f one-reduce-no-params %5.1f rms %5.1f | cheap-apply %5.1f one-barrier %5.1f 1bar+cheap %5.1f (64r %5.1f, 96r %5.1f) | maxdiff vs lib: cheap %.2g 1bar %.2g 1bar+cheap %.2g\n", name,
         (long long)cols, ln, ln_nobeta, one, one_noparams, rms, lcheap, onebar, onebar_cheap, onebar_cheap64, onebar_cheap96, d_cheap, d_onebar, d_onebar_cheap);
}

int main() {
  CK(cudaMalloc(&g_in, 520ll << 20)); CK(cudaMalloc(&g_out, 520ll << 20)); CK(cudaMalloc(&g_w, 1 << 22));
  CK(cudaMalloc(&g_ref, 64ll << 20));
  CK(cudaMemset(g_in, 0, 520ll << 20)); CK(cudaMemset(g_w, 0, 1 << 22));
  {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ts;
    for (int i = 0; i < 21; ++i) { cudaEventRecord(a); cudaMemcpyAsync(g_out, g_in, 256ll << 20, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); g_floor = 2.0 * (256ll << 20) / ts[10] / 1e6;
    printf("copy floor (in process, 512 MiB traffic): %.0f GB/s\n", g_floor);
  }
  for (int64_t c : {768, 1024, 2048, 4096, 5120, 8192, 12288, 16384}) {
    fill_kernel<<<1024, 256>>>((float*)g_out, 130ll << 20, 4.0f, 100.0f);  // mean 100, spread 4
    cvt_kernel<__nv_bfloat16><<<1024, 256>>>((const float*)g_out, (__nv_bfloat16*)g_in, 130ll << 20);
    fill_kernel<<<64, 256>>>((float*)g_out, 1 << 18, 1.0f, 1.0f);
    cvt_kernel<__nv_bfloat16><<<64, 256>>>((const float*)g_out, (__nv_bfloat16*)g_w, 1 << 18);
    shape<__nv_bfloat16>("bf16", c);
    fill_kernel<<<1024, 256>>>((float*)g_in, 130ll << 20, 4.0f, 100.0f);
    fill_kernel<<<64, 256>>>((float*)g_w, 1 << 18, 1.0f, 1.0f);
    shape<float>("fp32", c);
  }
  return 0;
}
