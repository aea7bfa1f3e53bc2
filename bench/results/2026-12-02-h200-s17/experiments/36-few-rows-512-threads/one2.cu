// Session 17 (for ncu): one op and shape called `calls` times; args: op dtype(0 fp32, 1 bf16)
// rows cols probe_one(0/1) calls
#include "probe_harness.cuh"
template <class T> void run(int op, int64_t rows, int64_t cols, int calls) {
  fill_all<T>();
  for (int i = 0; i < calls; ++i) if (!call<T>(op, rows, cols, cudaStream_t{})) { printf("launch failed\n"); exit(1); }
  CK(cudaDeviceSynchronize());
  printf("op %s rows %lld cols %lld kind %d cluster %d block %d\n", opname(op), (long long)rows, (long long)cols,
         rowwise::dispatch::probe_last_kind, rowwise::dispatch::probe_last_cluster, rowwise::dispatch::probe_last_block);
}
int main(int argc, char** argv) {
  if (argc < 7) return 2;
  CK(cudaMalloc(&g_in, 300 << 20)); CK(cudaMalloc(&g_out, 300 << 20)); CK(cudaMalloc(&g_w, 4 << 20)); CK(cudaMalloc(&g_flush, 130 << 20));
  const int op = atoi(argv[1]), dt = atoi(argv[2]); const int64_t rows = atoll(argv[3]), cols = atoll(argv[4]);
  rowwise::dispatch::probe_one = atoi(argv[5]) != 0; const int calls = atoi(argv[6]);
  if (dt == 0) run<float>(op, rows, cols, calls); else run<__nv_bfloat16>(op, rows, cols, calls);
  return 0;
}
