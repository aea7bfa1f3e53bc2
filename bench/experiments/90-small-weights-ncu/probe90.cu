// Session 35 probe (experiment 90): one launch each of layer_norm with both weights / none and
// rms_norm with its weight at 128 x 4096 (fp32, bf16; weights of T), eager, L2 warm (each is
// called 5 times first), for ncu: where the time of a small layer_norm call goes (L2 traffic of
// the weights' column stage against the rows', warp stalls). The launch to profile of each
// (op, dtype) is the sixth; argv[1] picks one case (0-5) so each ncu run sees one kernel kind.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Iinclude bench/experiments/90-small-weights-ncu/probe90.cu
// Run (one device call), for c in 0..5: ncu --cache-control none --clock-control none
//   -k regex:registers_kernel --launch-skip 5 --launch-count 1 --section SpeedOfLight
//   --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats
//   --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,
//             dram__bytes_read.sum,gpu__time_duration.sum,smsp__inst_executed.sum ./probe90 $c
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>

#include "../probe_common.cuh"

using namespace rowwise;
static const size_t MiB = size_t(1) << 20;
static void *A, *B, *W, *Beta;
template <class T> void run(int which) {
  fill_hashed<T><<<256, 256>>>((T*)A, 8 * MiB / sizeof(T), 7, -2.f, 2.f);
  fill_hashed<T><<<64, 256>>>((T*)W, MiB / sizeof(T), 3, 0.5f, 1.5f);
  fill_hashed<T><<<64, 256>>>((T*)Beta, MiB / sizeof(T), 5, -0.5f, 0.5f);
  CK(cudaDeviceSynchronize());
  const long long rows = 128, cols = 4096;
  const auto x = matrix<const T>((const T*)A, rows, cols);
  const auto y = matrix<T>((T*)B, rows, cols);
  const auto w = vector<const T>((const T*)W, cols), bt = vector<const T>((const T*)Beta, cols);
  const auto none = vector<const T>(static_cast<const T*>(nullptr), 0);
  for (int i = 0; i < 6; ++i) {
    status st = which == 0 ? layer_norm(x, y, w, bt, 1e-5f, 0)
              : which == 1 ? layer_norm(x, y, none, none, 1e-5f, 0)
                           : rms_norm(x, y, w, 1e-6f, 0);
    if (!st.ok()) { printf("status: %s\n", st.message()); exit(1); }
  }
  CK(cudaDeviceSynchronize());
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int c = argc > 1 ? atoi(argv[1]) : 0;
  CK(cudaMalloc(&A, 8 * MiB)); CK(cudaMalloc(&B, 8 * MiB));
  CK(cudaMalloc(&W, MiB)); CK(cudaMalloc(&Beta, MiB));
  if (c < 3) run<float>(c); else run<__nv_bfloat16>(c - 3);
  printf("case %d done\n", c);
  return 0;
}
