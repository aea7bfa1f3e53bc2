#include <rowwise/rowwise.cuh>
using namespace rowwise;
void f(float* a, float* b, const float* w, __nv_bfloat16* c, __nv_bfloat16* d, const __nv_bfloat16* wb) {
  (void)fused_add_rms_norm(matrix<float>(a, 10, 65536), matrix<float>(b, 10, 65536), vector<const float>(w, 65536), 1e-6f, 0);
  (void)fused_add_rms_norm(matrix<__nv_bfloat16>(c, 10, 65536), matrix<__nv_bfloat16>(d, 10, 65536), vector<const __nv_bfloat16>(wb, 65536), 1e-6f, 0);
}
