// Session 32: resident clusters of the library's staged and cluster-registers softmax grids, as the
// launcher's occupancy query gives them (prepare_launch), for the sweep's long-row shapes.
#include <rowwise/rowwise.cuh>
#include <cuda_bf16.h>
#include <cstdio>
using namespace rowwise;
template <class T, int N>
void show(const char* dt, int64_t rows, int64_t cols) {
  dispatch::device_limits dev;
  if (dispatch::current_device_limits(dev) != cudaSuccess) { printf("no device\n"); return; }
  dispatch::problem p;
  p.rows = rows; p.cols = cols; p.elem_bytes = sizeof(T); p.pack_elems = N; p.head = 0;
  p.row_inputs = 1; p.staged_op = true; p.column_params = false;
  const dispatch::plan pl = dispatch::plan_rows(p, dev);
  auto kernel = dispatch::kernel_for<kernels::softmax_op<false>, T, N>(pl);
  const dispatch::launch_setup_key key{reinterpret_cast<const void*>(kernel), dev.device, pl.block, pl.cluster, pl.dynamic_smem};
  dispatch::launch_setup setup;
  const cudaError_t e = dispatch::prepare_launch(kernel, key, dev, setup);
  printf("softmax %s %lld x %lld: %s cluster %d block %d smem %lld -> resident CTAs %lld = %lld clusters (%s); row steps %lld\n", dt,
         (long long)rows, (long long)cols, dispatch::strategy_name(pl.kind), pl.cluster, pl.block, (long long)pl.dynamic_smem,
         (long long)setup.resident_ctas, (long long)(setup.resident_ctas / pl.cluster), cudaGetErrorString(e),
         (long long)((rows + setup.resident_ctas / pl.cluster - 1) / (setup.resident_ctas / pl.cluster)));
}
int main() {
  show<__nv_bfloat16, 8>("bf16", 256, 262144);
  show<__nv_bfloat16, 8>("bf16", 442, 152064);
  show<float, 4>("fp32", 128, 262144);
  show<float, 4>("fp32", 221, 152064);
  show<float, 4>("fp32", 512, 65536);
  return 0;
}
