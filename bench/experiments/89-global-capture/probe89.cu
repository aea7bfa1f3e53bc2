// Session 34 probe (experiment 89): experiment 88's program stopped when it captured, in
// cudaStreamCaptureModeGlobal, layer_norm fp32 16 x 4096 after graphs of 1 x 4096 (the same plan
// and kernel): the launch returned "operation failed due to a previous error during capture" at
// the capture's first call. Which sequence does it? argv: mode (global | thread | relaxed),
// first rows, second rows, calls per capture, replays of the first graph; or "seq" mode rows...:
// experiment 88's order (layer_norm both weights / gamma / none, rms_norm with / without weight,
// fused_add_rms_norm) for each rows value, 100 calls per capture, 21 replays; or "ops" rows op...:
// captures of those ops (0-5 in that order) in the order given.
#include <rowwise/rowwise.cuh>
#include <cstdio>
#include <cstdlib>
#include <string>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
using namespace rowwise;
static cudaStream_t s;
static float *A, *B, *W, *Beta;
static cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
static int g_op = 0;  // 0 layer_norm both, 1 gamma, 2 none, 3 rms weight, 4 rms none, 5 fused
static status call(long long rows) {
  const auto x = matrix<const float>(A, rows, 4096);
  const auto y = matrix<float>(B, rows, 4096);
  const auto w = vector<const float>(W, 4096), bt = vector<const float>(Beta, 4096);
  const auto none = vector<const float>(static_cast<const float*>(nullptr), 0);
  switch (g_op) {
    case 1: return layer_norm(x, y, w, none, 1e-5f, s);
    case 2: return layer_norm(x, y, none, none, 1e-5f, s);
    case 3: return rms_norm(x, y, w, 1e-6f, s);
    case 4: return rms_norm(x, y, none, 1e-6f, s);
    case 5: return fused_add_rms_norm(matrix<float>(A, rows, 4096), matrix<float>(B, rows, 4096), w, 1e-6f, s);
    default: return layer_norm(x, y, w, bt, 1e-5f, s);
  }
}
static int capture(long long rows, int calls, int replays, const char* what) {
  cudaGraph_t gr; cudaGraphExec_t ge;
  if (const cudaError_t pending = cudaGetLastError(); pending != cudaSuccess)
    printf("(pending before %s: %s)\n", what, cudaGetErrorString(pending));
  CK(cudaStreamBeginCapture(s, mode));
  for (int i = 0; i < calls; ++i) {
    const status st = call(rows);
    if (!st.ok()) {
      cudaStreamCaptureStatus cs; cudaStreamIsCapturing(s, &cs);
      printf("%s: %lld rows, call %d: %s (capture status %d)\n", what, rows, i, st.message(), (int)cs);
      cudaGraph_t g2; cudaStreamEndCapture(s, &g2); cudaGetLastError();
      return 1;
    }
  }
  CK(cudaStreamEndCapture(s, &gr)); CK(cudaGraphInstantiate(&ge, gr, 0));
  for (int r = 0; r < replays; ++r) CK(cudaGraphLaunch(ge, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(gr));
  printf("%s: %lld rows, %d calls, %d replays: ok\n", what, rows, calls, replays);
  return 0;
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc >= 3 && std::string(argv[1]) == "seq") {
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&A, 8 << 20)); CK(cudaMalloc(&B, 8 << 20)); CK(cudaMalloc(&W, 1 << 20)); CK(cudaMalloc(&Beta, 1 << 20));
    CK(cudaMemset(A, 0, 8 << 20)); CK(cudaMemset(B, 0, 8 << 20)); CK(cudaMemset(W, 0, 1 << 20)); CK(cudaMemset(Beta, 0, 1 << 20));
    CK(cudaDeviceSynchronize());
    const char* names[] = {"layer_norm both", "layer_norm gamma", "layer_norm none", "rms_norm weight", "rms_norm none", "fused"};
    for (int a = 2; a < argc; ++a)
      for (g_op = 0; g_op < 6; ++g_op)
        if (capture(atoll(argv[a]), 100, 21, names[g_op])) return 1;
    return 0;
  }
  if (argc >= 4 && std::string(argv[1]) == "ops") {  // ops <rows> <op>...: captures in that order
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&A, 8 << 20)); CK(cudaMalloc(&B, 8 << 20)); CK(cudaMalloc(&W, 1 << 20)); CK(cudaMalloc(&Beta, 1 << 20));
    CK(cudaMemset(A, 0, 8 << 20)); CK(cudaMemset(B, 0, 8 << 20)); CK(cudaMemset(W, 0, 1 << 20)); CK(cudaMemset(Beta, 0, 1 << 20));
    CK(cudaDeviceSynchronize());
    const char* names[] = {"layer_norm both", "layer_norm gamma", "layer_norm none", "rms_norm weight", "rms_norm none", "fused"};
    const long long rows = atoll(argv[2]);
    int bad = 0;
    for (int a = 3; a < argc; ++a) {
      g_op = atoi(argv[a]);
      bad += capture(rows, 100, 21, names[g_op]);
    }
    return bad;
  }
  if (argc < 6) { printf("usage: probe89 global|thread|relaxed rows1 rows2 calls replays\n"); return 1; }
  const std::string m = argv[1];
  mode = m == "thread" ? cudaStreamCaptureModeThreadLocal : m == "relaxed" ? cudaStreamCaptureModeRelaxed : cudaStreamCaptureModeGlobal;
  const long long r1 = atoll(argv[2]), r2 = atoll(argv[3]);
  const int calls = atoi(argv[4]), replays = atoi(argv[5]);
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaMalloc(&A, 8 << 20)); CK(cudaMalloc(&B, 8 << 20)); CK(cudaMalloc(&W, 1 << 20)); CK(cudaMalloc(&Beta, 1 << 20));
  CK(cudaMemset(A, 0, 8 << 20)); CK(cudaMemset(W, 0, 1 << 20)); CK(cudaMemset(Beta, 0, 1 << 20));
  CK(cudaDeviceSynchronize());
  int bad = capture(r1, calls, replays, "first");
  bad += capture(r2, calls, replays, "second");
  bad += capture(r1, calls, replays, "third");
  return bad;
}
