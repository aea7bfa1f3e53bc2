// Lead's scratch (session 5): one plan (streaming or registers over a cluster of C) of softmax
// fp32 launched 3 times, for ncu: ./ps cols cluster rows kind(0 stream, 1 regs)
#include <rowwise/rowwise.cuh>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
using namespace rowwise::dispatch;
int main(int argc, char** argv) {
  const int64_t cols = atoll(argv[1]); const int c = atoi(argv[2]); const int64_t rows = atoll(argv[3]); const int kind = atoi(argv[4]);
  device_limits dev; current_device_limits(dev);
  void *in, *out; CK(cudaMalloc(&in, rows * cols * 4)); CK(cudaMalloc(&out, rows * cols * 4)); CK(cudaMemset(in, 0, rows * cols * 4));
  using T = float; constexpr int N = 4; using Op = kernels::softmax_op<false>;
  problem p; p.rows = rows; p.cols = cols; p.elem_bytes = 4; p.pack_elems = N; p.head = 0;
  const int64_t packs = row_packs_for(cols, N, 0), seg = ceil_div(packs, c);
  plan pl = kind == 0 ? make_chunked_plan(p, false, c, seg) : make_registers_plan(p, first_registers_config(seg, N, 64), c, seg);
  kernels::row_io<T> io{(const T*)in, (T*)out, nullptr, rows, cols, cols, cols, cols};
  for (int i = 0; i < 3; ++i) { auto s = launch_plan<softmax_messages, Op, T, N>(pl, io, Op{}, dev, 0); if (!s) { printf("%s\n", s.message()); return 1; } }
  CK(cudaDeviceSynchronize());
  printf("ok\n");
  return 0;
}
