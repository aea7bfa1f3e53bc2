#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "rowwise/rowwise.cuh"
namespace rk = rowwise::kernels;
namespace rd = rowwise::dispatch;
#ifdef BASE
#define EDGE(E)
#else
#define EDGE(E) , E
#endif
template <class Op, class T, bool E>
void* k() { constexpr int N = 16 / sizeof(T); return (void*)&rk::staged_kernel<Op, T, N, rd::staged_block, rd::staged_stages, rd::staged_unroll_for(N), rd::staged_min_blocks EDGE(E)>; }
template <class T, bool E> void add(std::vector<void*>& v) {
  v.push_back(k<rk::softmax_op<false>, T, E>()); v.push_back(k<rk::softmax_op<true>, T, E>());
  v.push_back(k<rk::rms_norm_op<T, false>, T, E>()); v.push_back(k<rk::rms_norm_op<T, true>, T, E>());
  v.push_back(k<rk::rms_norm_op<float, false>, T, E>()); v.push_back(k<rk::rms_norm_op<float, true>, T, E>());
}
#include <vector>
std::vector<void*> probe_all() {
  std::vector<void*> v;
  add<float, false>(v); add<__half, false>(v); add<__nv_bfloat16, false>(v);
#ifndef BASE
  add<float, true>(v); add<__half, true>(v); add<__nv_bfloat16, true>(v);
#endif
  return v;
}
