#include <rowwise/rowwise.cuh>
template <class T>
void all(T* a, T* b, cudaStream_t s) {
  auto in = rowwise::matrix<const T>(a, 4, 64);
  auto out = rowwise::matrix(b, 4, 64);
  (void)rowwise::softmax(in, out, s);
  (void)rowwise::log_softmax(in, out, s);
}
template void all<float>(float*, float*, cudaStream_t);
template void all<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, cudaStream_t);
template void all<__half>(__half*, __half*, cudaStream_t);
