// Experiment 92 (session 36, prepared, not run: no device lent). What 4f705be's slope register
// costs softmax: the exponential loop of the register kernels takes its slope from a register
// (log2e, or 1 on the exact-only path for |max| >= ~1.49e9), and ptxas reports small spills in
// five wide 16-bit instances that did not spill before (bench/results/2026-12-04-s36-host/):
// bf16 256 x 8 (16384 columns, in the sweep) and 224 x 8 (14336), 192 x 6 (9216); fp16 160 x 8
// (10240) and 192 x 8 (12288). bf16 160 x 8 / 192 x 8 spilled before and spill more.
// One program holds both versions (softmax_version.cu built against 625279d's headers and the
// tree's): per shape, 15 rounds alternating before / after, each round 20 eager back-to-back calls
// timed with events (per call: the median round); outputs compared bit for bit (the ordinary
// path's arithmetic is the same: an FFMA with log2e in a register instead of an immediate).
// Rows: as many as make ~256 MiB of reads + writes (the sweep's rule).
//
// Build (from the repo root; ~3 minutes on 2 cores):
//   D=scratch/p92; mkdir -p $D/old && git archive 625279d include | tar x -C $D/old
//   E=bench/experiments/92-softmax-slope-ab
//   nvcc -O3 -std=c++17 -arch=sm_90 -I$D/old/include -DVERSION_NAME=before -c $E/softmax_version.cu -o $D/before.o
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -DVERSION_NAME=after -c $E/softmax_version.cu -o $D/after.o
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments $E/probe92.cu $D/before.o $D/after.o -o $D/probe92
// Run (device): timeout 300 scratch/p92/probe92 > $OUT/probe92.txt
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_common.cuh"

cudaError_t softmax_before(int dtype, const void* in, void* out, long long rows, long long cols, cudaStream_t s);
cudaError_t softmax_after(int dtype, const void* in, void* out, long long rows, long long cols, cudaStream_t s);

namespace {

struct shape {
  int dtype;  // 0 bf16, 1 fp16, 2 fp32
  long long cols;
  const char* why;
};

const char* dtype_name(int t) { return t == 0 ? "bf16" : (t == 1 ? "fp16" : "fp32"); }

double time_calls(cudaError_t (*f)(int, const void*, void*, long long, long long, cudaStream_t), const shape& sh,
                  const void* in, void* out, long long rows, cudaStream_t s) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  constexpr int calls = 20;
  CK(cudaEventRecord(a, s));
  for (int i = 0; i < calls; ++i) CK(f(sh.dtype, in, out, rows, sh.cols, s));
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  float ms = 0.0f;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return 1e3 * ms / calls;  // us per call
}

}  // namespace

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const shape shapes[] = {
      {0, 16384, "bf16 256 x 8 (sweep shape): 4 B spill after"},
      {0, 14336, "bf16 224 x 8: 12 B spill after"},
      {0, 9216, "bf16 192 x 6: 4 B spill after"},
      {0, 12288, "bf16 192 x 8: 28 -> 52 B spill"},
      {0, 10240, "bf16 160 x 8: 28 -> 52 B spill"},
      {1, 10240, "fp16 160 x 8: 12 B spill after"},
      {1, 12288, "fp16 192 x 8: 12 B spill after"},
      {1, 16384, "fp16 256 x 8: unchanged registers (control)"},
      {2, 4096, "fp32 4096: control"},
      {2, 262144, "fp32 262144 (staged): slope in the sweep"},
      {0, 262144, "bf16 262144 (staged): slope in the sweep"},
  };
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, driver-visible SMs %d\n", prop.name, prop.multiProcessorCount);
  std::printf("%-6s %7s %8s  %10s %10s  %7s  %s\n", "dtype", "cols", "rows", "before us", "after us", "after/before",
              "outputs / note");
  for (const shape& sh : shapes) {
    const size_t eb = sh.dtype == 2 ? 4 : 2;
    const long long rows = static_cast<long long>((256ull << 20) / (2 * eb * sh.cols));
    const size_t bytes = static_cast<size_t>(rows * sh.cols) * eb;
    void *in = nullptr, *out_b = nullptr, *out_a = nullptr;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out_b, bytes));
    CK(cudaMalloc(&out_a, bytes));
    const size_t n = static_cast<size_t>(rows * sh.cols);
    if (sh.dtype == 0) fill_hashed<<<1024, 256, 0, s>>>(static_cast<__nv_bfloat16*>(in), n, 92u, -8.0f, 8.0f);
    else if (sh.dtype == 1) fill_hashed<<<1024, 256, 0, s>>>(static_cast<__half*>(in), n, 92u, -8.0f, 8.0f);
    else fill_hashed<<<1024, 256, 0, s>>>(static_cast<float*>(in), n, 92u, -8.0f, 8.0f);
    CK(cudaGetLastError());
    // Warm-up (module load, set-up) and the outputs to compare.
    CK(softmax_before(sh.dtype, in, out_b, rows, sh.cols, s));
    CK(softmax_after(sh.dtype, in, out_a, rows, sh.cols, s));
    CK(cudaStreamSynchronize(s));
    std::vector<unsigned char> hb(bytes), ha(bytes);
    CK(cudaMemcpy(hb.data(), out_b, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ha.data(), out_a, bytes, cudaMemcpyDeviceToHost));
    size_t differ = 0;
    for (size_t i = 0; i < bytes; i += eb) differ += std::memcmp(&hb[i], &ha[i], eb) != 0;
    std::vector<double> tb, ta;
    for (int round = 0; round < 15; ++round) {
      tb.push_back(time_calls(softmax_before, sh, in, out_b, rows, s));
      ta.push_back(time_calls(softmax_after, sh, in, out_a, rows, s));
    }
    const double mb = median(tb), ma = median(ta);
    std::printf("%-6s %7lld %8lld  %10.2f %10.2f  %7.4f       %zu of %zu outputs differ; %s\n", dtype_name(sh.dtype),
                sh.cols, rows, mb, ma, ma / mb, differ, n, sh.why);
    CK(cudaFree(in));
    CK(cudaFree(out_b));
    CK(cudaFree(out_a));
  }
  return 0;
}
