// Session 27 probe: small calls through the public API (graph of 100 calls, warm L2, us per call)
// and a few large ones (graph of 4 calls, >= 256 MiB of traffic). Built twice — the library
// before and after a change — and the two binaries alternated on one machine.
#include <rowwise/rowwise.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
static const size_t kBytes = size_t(128) << 20;
static void *g_in, *g_out, *g_res, *g_w, *g_b;
__global__ void fillk(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u + seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = ((h & 0xffff) / 65536.0f - 0.5f) * 4.0f;
  }
}
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double graph_us(const std::function<void(cudaStream_t)>& launch, int calls) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  launch(s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  cudaGraph_t g; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) launch(s);
  CK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ex; CK(cudaGraphInstantiate(&ex, g, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 12; ++r) {
    CK(cudaEventRecord(a, s)); CK(cudaGraphLaunch(ex, s)); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r > 0) t.push_back(ms * 1000.0 / calls);
  }
  CK(cudaGraphExecDestroy(ex)); CK(cudaGraphDestroy(g)); CK(cudaStreamDestroy(s));
  return med(t);
}
template <class T>
void shape(const char* op, int64_t rows, int64_t cols, int calls) {
  auto x = rowwise::matrix<const T>((const T*)g_in, rows, cols);
  auto y = rowwise::matrix<T>((T*)g_out, rows, cols);
  auto xm = rowwise::matrix<T>((T*)g_in, rows, cols);
  auto r = rowwise::matrix<T>((T*)g_res, rows, cols);
  auto g = rowwise::vector<const T>((const T*)g_w, cols), be = rowwise::vector<const T>((const T*)g_b, cols);
  auto launch = [&](cudaStream_t s) {
    rowwise::status st;
    if (!strcmp(op, "softmax")) st = rowwise::softmax(x, y, s);
    else if (!strcmp(op, "log_softmax")) st = rowwise::log_softmax(x, y, s);
    else if (!strcmp(op, "layer_norm")) st = rowwise::layer_norm(x, y, g, be, 1e-5f, s);
    else if (!strcmp(op, "rms_norm")) st = rowwise::rms_norm(x, y, g, 1e-5f, s);
    else st = rowwise::fused_add_rms_norm(xm, r, g, 1e-5f, s);
    if (!st) { printf("status fail\n"); exit(1); }
  };
  printf("%-18s %s %6lld x %6lld", op, sizeof(T) == 4 ? "fp32" : "bf16", (long long)rows, (long long)cols);
  for (int k = 0; k < 3; ++k) printf("  %8.3f", graph_us(launch, calls));
  printf("\n");
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (void** p : {&g_in, &g_out, &g_res}) { CK(cudaMalloc(p, kBytes)); fillk<<<1024, 256>>>((float*)*p, kBytes / 4, 7); }
  for (void** p : {&g_w, &g_b}) { CK(cudaMalloc(p, 1 << 20)); fillk<<<64, 256>>>((float*)*p, (1 << 20) / 4, 3); }
  CK(cudaDeviceSynchronize());
  printf("%s\n", argc > 1 ? argv[1] : "");
  for (const char* op : {"layer_norm", "rms_norm", "fused_add_rms_norm"}) {
    for (int64_t rc : {1, 16, 128}) { shape<float>(op, rc, 4096, 100); shape<__nv_bfloat16>(op, rc, 4096, 100); }
    shape<float>(op, 1, 8192, 100); shape<__nv_bfloat16>(op, 1, 8192, 100);
  }
  for (const char* op : {"softmax", "log_softmax"}) {
    shape<float>(op, 128, 4096, 100); shape<float>(op, 64, 32000, 100); shape<float>(op, 8, 152064, 100);
  }
  // Large (fused_add_rms_norm moves 4 rows of bytes per row: half the rows).
  for (int64_t c : {1024, 4096, 16384, 65536}) {
    shape<float>("layer_norm", kBytes / 4 / c, c, 4); shape<float>("rms_norm", kBytes / 4 / c, c, 4);
    shape<float>("fused_add_rms_norm", kBytes / 8 / c, c, 4); shape<float>("softmax", kBytes / 4 / c, c, 4);
    shape<__nv_bfloat16>("layer_norm", kBytes / 2 / c, c, 4); shape<__nv_bfloat16>("rms_norm", kBytes / 2 / c, c, 4);
  }
  shape<float>("softmax", kBytes / 4 / 262144, 262144, 4); shape<__nv_bfloat16>("softmax", kBytes / 2 / 262144, 262144, 4);
  return 0;
}
