// bench/harness.cuh — the measurement harness shared by every rowwise benchmark.
//
// Method (DESIGN.md, "Benchmark method"):
//  * Google Benchmark with UseManualTime(); each timed iteration is bracketed by CUDA events on a
//    non-default stream and reported through State::SetIterationTime.
//  * Large shapes: before each timed launch the L2 is flushed by a cudaMemsetAsync of a buffer twice
//    the L2 size (cudaDeviceProp::l2CacheSize), issued on the same stream before the start event.
//  * Small shapes: `calls` back-to-back launches are captured into one CUDA graph; one replay is
//    timed and divided by `calls` (no L2 flush inside the graph): the per-call cost a framework
//    that replays graphs would see.
//  * Bytes = minimum traffic (each input read once, each output written once, weights once).
//  * The copy floor is a device-to-device cudaMemcpyAsync moving the same traffic (a copy of N/2
//    bytes reads N/2 and writes N/2), measured in this process, the median of 20 runs, cached per
//    byte count. Large shapes compare with the L2-flushed floor; graph shapes with a graph of
//    `calls` copies of the same size (the floor measured the same way as the kernel).
//  * Every benchmark reports the counters GBps, floor_GBps and pct_of_floor, and bytes_per_second
//    (from SetBytesProcessed; with manual time, Google Benchmark divides by the manual time).
//
// Registration: each bench/*.cu file adds a registration function with RWB_REGISTER(order, fn);
// main (defined in bench_copy.cu, calling bench_main) runs them in `order`, then
// benchmark::Initialize / RunSpecifiedBenchmarks. Benchmarks are named
// <op>/<dtype>/<rows>/<cols>, graph variants ending in /graph and large shapes whose matrices
// start one element past a 16-byte boundary in /offset1.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <rowwise/numeric/dtype.cuh>
#include <rowwise/version.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rowwise_bench {

// ---------------------------------------------------------------------------------------------
// Error handling
// ---------------------------------------------------------------------------------------------

/// Set once a CUDA error leaves the context unusable (a sticky error such as an illegal address):
/// every later benchmark is skipped with this message instead of running on a dead context, so
/// the run still finishes and its JSON stays well formed.
inline std::string& context_lost() {
  static std::string message;
  return message;
}

inline std::string cuda_message(cudaError_t e, const char* what, const char* file, int line) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "CUDA error %s (%s) in `%s` at %s:%d", cudaGetErrorName(e),
                cudaGetErrorString(e), what, file, line);
  return buf;
}

/// Report a CUDA error on `state` (SkipWithError) and find out whether the context survived it.
inline void fail_cuda(benchmark::State& state, cudaError_t e, const char* what, const char* file,
                      int line) {
  std::string msg = cuda_message(e, what, file, line);
  (void)cudaGetLastError();  // clear a non-sticky error
  if (cudaDeviceSynchronize() != cudaSuccess && context_lost().empty()) context_lost() = msg;
  std::fprintf(stderr, "bench: %s\n", msg.c_str());
  state.SkipWithError(msg.c_str());
}

/// Check a CUDA call inside a benchmark (a function returning void that has `state` in scope):
/// on failure the benchmark is skipped with the message and the enclosing function returns.
#define RWB_CUDA_CHECK(state, expr)                                                  \
  do {                                                                               \
    cudaError_t rwb_err_ = (expr);                                                   \
    if (rwb_err_ != cudaSuccess) {                                                   \
      ::rowwise_bench::fail_cuda((state), rwb_err_, #expr, __FILE__, __LINE__);      \
      return;                                                                        \
    }                                                                                \
  } while (0)

/// Check a CUDA call where no benchmark state exists (set-up in main): print and abort the run.
#define RWB_CUDA_CHECK_ABORT(expr)                                                   \
  do {                                                                               \
    cudaError_t rwb_err_ = (expr);                                                   \
    if (rwb_err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "bench: %s\n",                                            \
                   ::rowwise_bench::cuda_message(rwb_err_, #expr, __FILE__, __LINE__) \
                       .c_str());                                                    \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

/// Skip the benchmark if an earlier one lost the CUDA context. Returns false when skipped.
inline bool context_usable(benchmark::State& state) {
  if (context_lost().empty()) return true;
  std::string msg = "skipped: CUDA context lost earlier: " + context_lost();
  state.SkipWithError(msg.c_str());
  return false;
}

// ---------------------------------------------------------------------------------------------
// Device, stream
// ---------------------------------------------------------------------------------------------

inline const cudaDeviceProp& device_props() {
  static cudaDeviceProp prop = [] {
    cudaDeviceProp p{};
    int dev = 0;
    RWB_CUDA_CHECK_ABORT(cudaGetDevice(&dev));
    RWB_CUDA_CHECK_ABORT(cudaGetDeviceProperties(&p, dev));
    return p;
  }();
  return prop;
}

inline cudaStream_t& bench_stream_slot() {
  static cudaStream_t s = nullptr;
  return s;
}

/// The stream every benchmark launches on: non-blocking, never the legacy default stream.
inline cudaStream_t bench_stream() {
  cudaStream_t& s = bench_stream_slot();
  if (s == nullptr) RWB_CUDA_CHECK_ABORT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Device memory
// ---------------------------------------------------------------------------------------------

/// RAII owner of one cudaMalloc allocation (no managed memory). Move-only.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~device_buffer() { reset(); }

  /// Allocate `bytes` (freeing what was held). Returns the CUDA error; on failure holds nothing.
  cudaError_t allocate(size_t bytes) {
    reset();
    if (bytes == 0) return cudaSuccess;
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return e;
    }
    ptr_ = p;
    bytes_ = bytes;
    return cudaSuccess;
  }
  void reset() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);  // errors at teardown are not actionable
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// Named slots of a grow-only pool: the big buffers are allocated once and reused by every
/// benchmark (no cudaMalloc churn between benchmarks). Capacity is rounded up (64 MiB steps for
/// big requests) so that the slightly different sizes of the large shapes share one allocation.
enum class slot : int { in = 0, out, residual, weight, bias, floor_src, floor_dst, count };

inline std::vector<device_buffer>& pool_slots() {
  static std::vector<device_buffer> slots(static_cast<size_t>(slot::count));
  return slots;
}

inline size_t round_capacity(size_t bytes) {
  constexpr size_t MiB = size_t(1) << 20;
  const size_t step = bytes > 64 * MiB ? 64 * MiB : MiB;
  return (bytes + step - 1) / step * step;
}

/// A device buffer of at least `bytes` in slot `s`; contents are unspecified (fill before use).
/// Returns nullptr and sets *error on allocation failure.
inline void* pool_get(slot s, size_t bytes, cudaError_t* error = nullptr) {
  device_buffer& b = pool_slots()[static_cast<size_t>(s)];
  if (bytes > b.bytes()) {
    cudaError_t e = b.allocate(round_capacity(bytes));
    if (e != cudaSuccess) {
      if (error) *error = e;
      return nullptr;
    }
  }
  if (error) *error = cudaSuccess;
  return b.get();
}

/// Typed pool access for a benchmark: on failure skips it with the message and returns nullptr.
template <class T>
T* pool_get(benchmark::State& state, slot s, int64_t count) {
  cudaError_t e = cudaSuccess;
  void* p = pool_get(s, static_cast<size_t>(count) * sizeof(T), &e);
  if (p == nullptr) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "cudaMalloc of %lld bytes failed: %s",
                  static_cast<long long>(count) * static_cast<long long>(sizeof(T)),
                  cudaGetErrorString(e));
    state.SkipWithError(buf);
  }
  return static_cast<T*>(p);
}

// ---------------------------------------------------------------------------------------------
// Random fill on the device (hash-based, no curand)
// ---------------------------------------------------------------------------------------------

__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

enum class distribution : int { uniform = 0, normal = 1 };

/// Element i gets a value that depends only on (seed, i): uniform in [a, b), or normal with mean
/// a and standard deviation b (Box-Muller on two 24-bit uniforms), rounded to T.
template <class T>
__global__ void fill_kernel(T* __restrict__ p, int64_t n, uint64_t seed, int dist, float a, float b) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const uint64_t key = splitmix64(seed);
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = splitmix64(key ^ static_cast<uint64_t>(i));
    const float u1 = static_cast<float>((h >> 40) + 1) * (1.0f / 16777216.0f);  // (0, 1]
    const float u2 = static_cast<float>((h >> 16) & 0xFFFFFFu) * (1.0f / 16777216.0f);  // [0, 1)
    float v;
    if (dist == static_cast<int>(distribution::uniform)) {
      v = a + (b - a) * u2;
    } else {
      v = a + b * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
    if constexpr (rowwise::is_supported_dtype_v<T>) {
      p[i] = rowwise::from_float<T>(v);
    } else {
      p[i] = static_cast<T>(v);  // raw bytes / integers (the copy benchmark)
    }
  }
}

/// Enqueue a fill of n elements on `stream` (asynchronous; returns the launch error).
template <class T>
cudaError_t fill_random(T* p, int64_t n, uint64_t seed, distribution dist, float a, float b,
                        cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int threads = 256;
  const int64_t want = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(std::min<int64_t>(want, 8192));
  fill_kernel<T><<<blocks, threads, 0, stream>>>(p, n, seed, static_cast<int>(dist), a, b);
  return cudaGetLastError();
}

template <class T>
cudaError_t fill_normal(T* p, int64_t n, uint64_t seed, float mean, float stddev,
                        cudaStream_t stream = bench_stream()) {
  return fill_random(p, n, seed, distribution::normal, mean, stddev, stream);
}

template <class T>
cudaError_t fill_uniform(T* p, int64_t n, uint64_t seed, float lo, float hi,
                         cudaStream_t stream = bench_stream()) {
  return fill_random(p, n, seed, distribution::uniform, lo, hi, stream);
}

// ---------------------------------------------------------------------------------------------
// L2 flusher, event timer
// ---------------------------------------------------------------------------------------------

/// Evicts the L2 by writing a buffer of 2x its size (cudaMemsetAsync) on the timed stream.
class l2_flusher {
 public:
  static l2_flusher& get() {
    auto& p = instance();
    if (!p) p.reset(new l2_flusher());
    return *p;
  }
  /// Free the flush buffer (if it was ever allocated).
  static void release() { instance().reset(); }
  cudaError_t flush(cudaStream_t s) {
    if (error_ != cudaSuccess) return error_;
    value_ = (value_ + 1) & 0xFF;
    return cudaMemsetAsync(buf_.get(), value_, buf_.bytes(), s);
  }
  size_t bytes() const { return buf_.bytes(); }

 private:
  static std::unique_ptr<l2_flusher>& instance() {
    static std::unique_ptr<l2_flusher> p;
    return p;
  }
  l2_flusher() {
    size_t l2 = static_cast<size_t>(std::max(device_props().l2CacheSize, 1 << 20));
    error_ = buf_.allocate(2 * l2);
  }
  device_buffer buf_;
  cudaError_t error_ = cudaSuccess;
  int value_ = 0;
};

/// A start/stop pair of CUDA events (timing enabled).
class event_timer {
 public:
  event_timer() {
    e0_ = cudaEventCreate(&start_);
    if (e0_ == cudaSuccess) e0_ = cudaEventCreate(&stop_);
  }
  ~event_timer() {
    if (start_) (void)cudaEventDestroy(start_);
    if (stop_) (void)cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  cudaError_t init_error() const { return e0_; }
  cudaError_t start(cudaStream_t s) { return cudaEventRecord(start_, s); }
  cudaError_t stop(cudaStream_t s) { return cudaEventRecord(stop_, s); }
  /// Wait for the stop event and return the elapsed seconds in *seconds.
  cudaError_t seconds(double* seconds) {
    cudaError_t e = cudaEventSynchronize(stop_);
    if (e != cudaSuccess) return e;
    float ms = 0.f;
    e = cudaEventElapsedTime(&ms, start_, stop_);
    *seconds = static_cast<double>(ms) * 1e-3;
    return e;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cudaError_t e0_ = cudaSuccess;
};

// ---------------------------------------------------------------------------------------------
// Launch results: a launch callable returns void, cudaError_t, or a status with ok()/message()
// (rowwise::status).
// ---------------------------------------------------------------------------------------------

template <class R, class = void>
struct has_ok : std::false_type {};
template <class R>
struct has_ok<R, std::void_t<decltype(std::declval<const R&>().ok()),
                             decltype(std::declval<const R&>().message())>> : std::true_type {};

/// Call launch(stream); on failure skip the benchmark with the reason. Returns success.
template <class F>
bool checked_launch(benchmark::State& state, F& launch, cudaStream_t s) {
  using R = std::invoke_result_t<F&, cudaStream_t>;
  if constexpr (std::is_void_v<R>) {
    launch(s);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      fail_cuda(state, e, "launch", __FILE__, __LINE__);
      return false;
    }
    return true;
  } else if constexpr (std::is_same_v<R, cudaError_t>) {
    cudaError_t e = launch(s);
    if (e != cudaSuccess) {
      fail_cuda(state, e, "launch", __FILE__, __LINE__);
      return false;
    }
    return true;
  } else {
    static_assert(has_ok<R>::value, "launch must return void, cudaError_t or a status with ok()/message()");
    const R r = launch(s);
    if (!r.ok()) {
      std::string msg = std::string("launch returned an error: ") + r.message();
      std::fprintf(stderr, "bench: %s\n", msg.c_str());
      (void)cudaGetLastError();
      if (cudaDeviceSynchronize() != cudaSuccess && context_lost().empty()) context_lost() = msg;
      state.SkipWithError(msg.c_str());
      return false;
    }
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Copy floor
// ---------------------------------------------------------------------------------------------

enum class floor_mode : int {
  flushed = 0,  // one cudaMemcpyAsync per timed launch, L2 flushed before each (large shapes)
  graph = 1,    // `calls` copies captured in a graph, per-call time of one replay (small shapes)
};

constexpr int kFloorRuns = 20;
constexpr int kGraphCalls = 100;

inline double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace detail {

inline cudaError_t measure_floor(int64_t bytes, floor_mode mode, int calls, double* gbps) {
  const size_t half = static_cast<size_t>(bytes / 2);
  *gbps = std::nan("");
  if (half == 0) return cudaErrorInvalidValue;
  cudaError_t e = cudaSuccess;
  void* src = pool_get(slot::floor_src, half, &e);
  if (!src) return e;
  void* dst = pool_get(slot::floor_dst, half, &e);
  if (!dst) return e;
  cudaStream_t s = bench_stream();
  if ((e = cudaMemsetAsync(src, 0x3c, half, s)) != cudaSuccess) return e;
  event_timer t;
  if ((e = t.init_error()) != cudaSuccess) return e;
  std::vector<double> per_call;
  per_call.reserve(kFloorRuns);

  if (mode == floor_mode::flushed) {
    l2_flusher& fl = l2_flusher::get();
    if ((e = cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return e;  // warm-up
    for (int r = 0; r < kFloorRuns; ++r) {
      if ((e = fl.flush(s)) != cudaSuccess) return e;
      if ((e = t.start(s)) != cudaSuccess) return e;
      if ((e = cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return e;
      if ((e = t.stop(s)) != cudaSuccess) return e;
      double sec = 0;
      if ((e = t.seconds(&sec)) != cudaSuccess) return e;
      per_call.push_back(sec);
    }
  } else {
    if ((e = cudaStreamSynchronize(s)) != cudaSuccess) return e;
    cudaGraph_t graph = nullptr;
    if ((e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)) != cudaSuccess) return e;
    cudaError_t ce = cudaSuccess;
    for (int c = 0; c < calls && ce == cudaSuccess; ++c)
      ce = cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice, s);
    e = cudaStreamEndCapture(s, &graph);
    if (ce != cudaSuccess || e != cudaSuccess) {
      if (graph) (void)cudaGraphDestroy(graph);
      return ce != cudaSuccess ? ce : e;
    }
    cudaGraphExec_t exec = nullptr;
    e = cudaGraphInstantiate(&exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    if (e != cudaSuccess) return e;
    e = cudaGraphLaunch(exec, s);  // warm-up
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    for (int r = 0; r < kFloorRuns && e == cudaSuccess; ++r) {
      if ((e = t.start(s)) != cudaSuccess) break;
      if ((e = cudaGraphLaunch(exec, s)) != cudaSuccess) break;
      if ((e = t.stop(s)) != cudaSuccess) break;
      double sec = 0;
      if ((e = t.seconds(&sec)) != cudaSuccess) break;
      per_call.push_back(sec / calls);
    }
    (void)cudaGraphExecDestroy(exec);
    if (e != cudaSuccess) return e;
  }
  const double sec = median(per_call);
  *gbps = static_cast<double>(2 * half) / sec / 1e9;
  return cudaSuccess;
}

}  // namespace detail

/// GB/s (1e9 bytes/s, read + write counted) of a D2D cudaMemcpyAsync moving `bytes` of traffic
/// (a copy of bytes/2), measured once per (bytes, mode) in this process and cached.
/// Returns NaN if the measurement failed (*error says why, when given).
inline double copy_floor_gbps(int64_t bytes, floor_mode mode = floor_mode::flushed,
                              int calls = kGraphCalls, std::string* error = nullptr) {
  static std::map<std::pair<int64_t, int>, double> cache;
  const auto key = std::make_pair(bytes, mode == floor_mode::graph ? calls : 0);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  double gbps = std::nan("");
  cudaError_t e = detail::measure_floor(bytes, mode, calls, &gbps);
  if (e != cudaSuccess) {
    if (error) *error = cuda_message(e, "copy floor measurement", __FILE__, __LINE__);
    (void)cudaGetLastError();
    return std::nan("");  // not cached: a later benchmark may retry
  }
  cache.emplace(key, gbps);
  return gbps;
}

// ---------------------------------------------------------------------------------------------
// Timing loops
// ---------------------------------------------------------------------------------------------

/// Sets GBps, floor_GBps, pct_of_floor and bytes_per_second from the measured seconds.
inline void report(benchmark::State& state, int64_t bytes, double total_seconds, double floor_gbps) {
  const double iters = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  const double gbps = total_seconds > 0 ? static_cast<double>(bytes) * iters / total_seconds / 1e9 : 0.0;
  state.counters["GBps"] = benchmark::Counter(gbps);
  state.counters["floor_GBps"] = benchmark::Counter(floor_gbps);
  state.counters["pct_of_floor"] = benchmark::Counter(floor_gbps > 0 ? 100.0 * gbps / floor_gbps : 0.0);
  state.counters["bytes_per_call"] = benchmark::Counter(static_cast<double>(bytes));
}

/// Time one launch per iteration: [flush L2] -> start event -> launch(stream) -> stop event ->
/// sync -> SetIterationTime. One untimed warm-up launch first. `bytes` = minimum traffic of one
/// launch. Register with UseManualTime().
template <class F>
void time_kernel(benchmark::State& state, F launch, int64_t bytes, bool flush_l2) {
  if (!context_usable(state)) return;
  cudaStream_t s = bench_stream();

  std::string floor_err;
  const double floor_gbps = copy_floor_gbps(bytes, floor_mode::flushed, kGraphCalls, &floor_err);
  if (std::isnan(floor_gbps)) {
    state.SkipWithError(floor_err.c_str());
    return;
  }
  l2_flusher* fl = nullptr;
  if (flush_l2) {
    fl = &l2_flusher::get();
    RWB_CUDA_CHECK(state, fl->flush(s));  // surfaces an allocation failure of the flush buffer
  }
  event_timer t;
  RWB_CUDA_CHECK(state, t.init_error());

  if (!checked_launch(state, launch, s)) return;  // warm-up (first-call set-up, module load)
  RWB_CUDA_CHECK(state, cudaStreamSynchronize(s));

  double total = 0;
  for (auto _ : state) {
    if (fl) RWB_CUDA_CHECK(state, fl->flush(s));
    RWB_CUDA_CHECK(state, t.start(s));
    if (!checked_launch(state, launch, s)) return;
    RWB_CUDA_CHECK(state, t.stop(s));
    double sec = 0;
    RWB_CUDA_CHECK(state, t.seconds(&sec));
    state.SetIterationTime(sec);
    total += sec;
  }
  report(state, bytes, total, floor_gbps);
}

/// Graph mode: capture `calls` back-to-back launches on the bench stream (thread-local capture),
/// instantiate, replay once to warm up, then time one replay per iteration and report
/// elapsed / calls (per-call time; no L2 flush inside the graph). `bytes` is per call.
template <class F>
void time_graph(benchmark::State& state, F launch, int64_t bytes, int calls = kGraphCalls) {
  if (!context_usable(state)) return;
  cudaStream_t s = bench_stream();

  std::string floor_err;
  const double floor_gbps = copy_floor_gbps(bytes, floor_mode::graph, calls, &floor_err);
  if (std::isnan(floor_gbps)) {
    state.SkipWithError(floor_err.c_str());
    return;
  }
  event_timer t;
  RWB_CUDA_CHECK(state, t.init_error());

  // One eager call first: any lazy set-up (function attributes, module load) happens outside capture.
  if (!checked_launch(state, launch, s)) return;
  RWB_CUDA_CHECK(state, cudaStreamSynchronize(s));

  cudaGraph_t graph = nullptr;
  RWB_CUDA_CHECK(state, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  std::string launch_err;  // empty while every captured launch succeeds
  for (int c = 0; c < calls && launch_err.empty(); ++c) {
    using R = std::invoke_result_t<F&, cudaStream_t>;
    if constexpr (std::is_void_v<R>) {
      launch(s);
    } else if constexpr (std::is_same_v<R, cudaError_t>) {
      const cudaError_t e = launch(s);
      if (e != cudaSuccess) launch_err = cudaGetErrorString(e);
    } else {
      const R r = launch(s);
      if (!r.ok()) launch_err = r.message();
    }
  }
  cudaError_t end = cudaStreamEndCapture(s, &graph);
  if (!launch_err.empty() || end != cudaSuccess || graph == nullptr) {
    if (graph) (void)cudaGraphDestroy(graph);
    std::string msg = "graph capture failed: " +
                      (!launch_err.empty() ? "launch returned an error: " + launch_err
                                           : std::string(cudaGetErrorString(end)));
    (void)cudaGetLastError();
    std::fprintf(stderr, "bench: %s\n", msg.c_str());
    state.SkipWithError(msg.c_str());
    return;
  }
  cudaGraphExec_t exec = nullptr;
  cudaError_t ie = cudaGraphInstantiate(&exec, graph, 0);
  (void)cudaGraphDestroy(graph);
  RWB_CUDA_CHECK(state, ie);
  struct exec_guard {
    cudaGraphExec_t e;
    ~exec_guard() { (void)cudaGraphExecDestroy(e); }
  } guard{exec};

  RWB_CUDA_CHECK(state, cudaGraphLaunch(exec, s));  // warm-up replay
  RWB_CUDA_CHECK(state, cudaStreamSynchronize(s));

  double total = 0;
  for (auto _ : state) {
    RWB_CUDA_CHECK(state, t.start(s));
    RWB_CUDA_CHECK(state, cudaGraphLaunch(exec, s));
    RWB_CUDA_CHECK(state, t.stop(s));
    double sec = 0;
    RWB_CUDA_CHECK(state, t.seconds(&sec));
    const double per_call = sec / calls;
    state.SetIterationTime(per_call);
    total += per_call;
  }
  report(state, bytes, total, floor_gbps);
}

// ---------------------------------------------------------------------------------------------
// Names, shapes, registration, main
// ---------------------------------------------------------------------------------------------

constexpr int64_t kLargeTraffic = int64_t(256) << 20;  // >= 256 MiB per large-shape launch
constexpr int kLargeIterations = 20;
constexpr int kGraphIterations = 50;

/// Rows such that a read + a write of the matrix (2 * rows * cols * elem bytes) is >= 256 MiB.
inline int64_t large_rows(int64_t cols, size_t elem_bytes) {
  const int64_t per_row = 2 * cols * static_cast<int64_t>(elem_bytes);
  return (kLargeTraffic + per_row - 1) / per_row;
}

/// Large shapes run at two alignments: every matrix's base pointer 16-byte aligned (offset 0), and
/// one element past that (offset 1, name suffix "offset1"): the issue's "a base pointer offset by
/// one element must work and stay fast". With contiguous rows of a multiple of 16 bytes every row
/// then starts and ends inside a 16-byte pack. Weights stay aligned (a separate allocation).
constexpr int64_t kLargeOffsets[] = {0, 1};
inline const char* offset_variant(int64_t offset) { return offset == 0 ? nullptr : "offset1"; }

template <class T>
const char* dtype_name() {
  return rowwise::dtype_traits<T>::name;
}

inline std::string bench_name(const char* op, const char* dtype, int64_t rows, int64_t cols,
                              const char* variant = nullptr) {
  std::string n = std::string(op) + "/" + dtype + "/" + std::to_string(rows) + "/" + std::to_string(cols);
  if (variant != nullptr) n += std::string("/") + variant;
  return n;
}

/// Register a benchmark under `name` with manual time in microseconds.
template <class Fn>
benchmark::internal::Benchmark* add(const std::string& name, Fn&& fn) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

using registrar_fn = void (*)();

inline std::vector<std::pair<int, registrar_fn>>& registrars() {
  static std::vector<std::pair<int, registrar_fn>> r;
  return r;
}

/// Called from a static initializer in each bench/*.cu; bench_main runs them by `order`.
inline bool add_registrar(int order, registrar_fn fn) {
  registrars().emplace_back(order, fn);
  return true;
}

#define RWB_CONCAT_(a, b) a##b
#define RWB_CONCAT(a, b) RWB_CONCAT_(a, b)
#define RWB_REGISTER(order, fn) \
  static const bool RWB_CONCAT(rwb_registered_, __LINE__) = ::rowwise_bench::add_registrar((order), (fn))

/// Free every pooled buffer and the flusher while the CUDA runtime is still alive.
inline void release_all() {
  for (auto& b : pool_slots()) b.reset();
  l2_flusher::release();
}

inline std::string read_first_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  if (f) std::getline(f, line);
  return line;
}

inline void add_device_context() {
  const cudaDeviceProp& p = device_props();
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  benchmark::AddCustomContext("device_name", p.name);
  benchmark::AddCustomContext("compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor));
  benchmark::AddCustomContext("sm_count", std::to_string(p.multiProcessorCount));
  benchmark::AddCustomContext("l2_cache_bytes", std::to_string(p.l2CacheSize));
  benchmark::AddCustomContext("global_mem_bytes", std::to_string(p.totalGlobalMem));
  benchmark::AddCustomContext("memory_bus_width_bits", std::to_string(p.memoryBusWidth));
  benchmark::AddCustomContext("cuda_driver_version", ver(driver));
  benchmark::AddCustomContext("cuda_runtime_version", ver(runtime));
  const std::string kdrv = read_first_line("/proc/driver/nvidia/version");
  if (!kdrv.empty()) benchmark::AddCustomContext("nvidia_driver", kdrv);
  benchmark::AddCustomContext("rowwise_version", std::to_string(ROWWISE_VERSION_MAJOR) + "." +
                                                     std::to_string(ROWWISE_VERSION_MINOR) + "." +
                                                     std::to_string(ROWWISE_VERSION_PATCH));
#ifdef ROWWISE_GIT_COMMIT
  benchmark::AddCustomContext("rowwise_commit", ROWWISE_GIT_COMMIT);
#endif
  benchmark::AddCustomContext("l2_flush", "cudaMemsetAsync of 2 x l2CacheSize before each timed launch (large shapes)");
  benchmark::AddCustomContext("graph_calls", std::to_string(kGraphCalls));
  benchmark::AddCustomContext("copy_floor", "D2D cudaMemcpyAsync of bytes/2 (read+write = bytes), median of " +
                                                std::to_string(kFloorRuns) + " runs, same process");
}

/// The body of main: device check, registration, context, run.
inline int bench_main(int argc, char** argv) {
  bool list_only = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0 &&
        std::strstr(argv[i], "=false") == nullptr && std::strstr(argv[i], "=0") == nullptr)
      list_only = true;

  int devices = 0;
  const bool have_device = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  if (!have_device && !list_only) {
    std::fprintf(stderr, "bench: no CUDA device\n");
    return 2;
  }

  auto& regs = registrars();
  std::stable_sort(regs.begin(), regs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& r : regs) r.second();

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (have_device) {
    RWB_CUDA_CHECK_ABORT(cudaSetDevice(0));
    add_device_context();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (have_device) {
    release_all();
    if (bench_stream_slot() != nullptr) (void)cudaStreamDestroy(bench_stream_slot());
    bench_stream_slot() = nullptr;
  }
  return context_lost().empty() ? 0 : 1;
}

}  // namespace rowwise_bench
