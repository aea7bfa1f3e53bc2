// Experiment 94 (session 37). Session 37's sweep of 9d50d17 read some small calls ~0.1 us slower
// than every sweep and re-run since session 32 (fused_add_rms_norm fp32 / bf16 1 x 4096 1.67-1.69
// / 1.47-1.48 -> 1.79 / 1.59 us, bf16 1 x 8192 1.69-1.70 -> 1.80, softmax bf16 64 x 32000 3.59-3.61
// -> 3.71), while others did not move (rms_norm, layer_norm). Between the two binaries the kernels
// of the rms_norm family are the same PTX (sessions 35-36 ptx_same); the host launch path changed.
// Is it the code or the machine, and if the code, which commit? One program holds five versions
// (call_version.cu against each one's headers): 51780a8 (session 34's sweep), 3e20620 (the
// shared-memory limit only raised), dd971d3 (session 35: plan for the loaded target; each
// kernel's target read per launch key), a5b0239 (the ABI namespace, validation; before the kernel
// fixes), and the tree (9d50d17's library). Per case one CUDA graph of 100 back-to-back calls per
// version (relaxed capture: 51780a8 has the global-mode capture defect that 3e20620 fixed), 15
// rounds over the versions in turn, each the median of 20 replays (time per call). Each graph's
// first kernel node is printed (grid, block, dynamic smem, cluster) with the count of programmatic
// edges, so that a plan or launch attribute that differs shows.
//
// Build (from the repo root, ~8 minutes on 2 cores):
//   E=bench/experiments/94-small-call-ab; D=scratch/p94
//   for v in 51780a8 3e20620 dd971d3 a5b0239; do
//     mkdir -p $D/$v && git archive $v include | tar x -C $D/$v
//     ns=; [ $v != a5b0239 ] && ns=-Drowwise=rowwise_v$v
//     nvcc -O3 -std=c++17 -arch=sm_90 -I$D/$v/include $ns -DVERSION_NAME=v$v -c $E/call_version.cu -o $D/v$v.o
//   done
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -DVERSION_NAME=vtree -c $E/call_version.cu -o $D/vtree.o
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ibench/experiments $E/probe94.cu $D/v*.o -o $D/probe94
// Run (device): timeout 200 scratch/p94/probe94 > $OUT/probe94.txt
#include <cuda_bf16.h>

#include <cstdio>
#include <vector>

#include "probe_common.cuh"

#define VERSION_CALL(v)                                                                                \
  cudaError_t call_##v(int op, int dtype, void* a, void* b, void* r, const void* w, const void* beta, long long rows, \
                       long long cols, cudaStream_t s);
VERSION_CALL(v51780a8)
VERSION_CALL(v3e20620)
VERSION_CALL(vdd971d3)
VERSION_CALL(va5b0239)
VERSION_CALL(vtree)
using call_fn = decltype(&call_vtree);

namespace {

const char* op_name(int op) {
  return op == 0 ? "softmax" : op == 1 ? "fused_add_rms_norm" : "rms_norm";
}

struct buffers {
  void *a, *b, *r, *w, *beta;
};

cudaGraphExec_t capture(call_fn f, int op, int dtype, const buffers& m, long long rows, long long cols, cudaStream_t s,
                        const char* tag) {
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  for (int i = 0; i < 100; ++i) CK(f(op, dtype, m.a, m.b, m.r, m.w, m.beta, rows, cols, s));
  CK(cudaStreamEndCapture(s, &g));
  // The first kernel node: what was launched.
  size_t n = 0;
  CK(cudaGraphGetNodes(g, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  CK(cudaGraphGetNodes(g, nodes.data(), &n));
  size_t kernels = 0;
  for (size_t i = 0; i < n; ++i) {
    cudaGraphNodeType t;
    CK(cudaGraphNodeGetType(nodes[i], &t));
    if (t != cudaGraphNodeTypeKernel) continue;
    if (kernels++ == 0) {
      cudaKernelNodeParams p;
      CK(cudaGraphKernelNodeGetParams(nodes[i], &p));
      cudaLaunchAttributeValue v{};
      CK(cudaGraphKernelNodeGetAttribute(nodes[i], cudaLaunchAttributeClusterDimension, &v));
      std::printf("    %-8s grid %u block %u smem %u cluster %u", tag, p.gridDim.x, p.blockDim.x, p.sharedMemBytes,
                  v.clusterDim.x);
    }
  }
  size_t e = 0;
  CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &e));
  std::vector<cudaGraphNode_t> from(e), to(e);
  std::vector<cudaGraphEdgeData> data(e);
  CK(cudaGraphGetEdges(g, from.data(), to.data(), data.data(), &e));
  size_t programmatic = 0;
  for (const auto& d : data) programmatic += d.type == cudaGraphDependencyTypeProgrammatic ? 1 : 0;
  std::printf("; %zu nodes (%zu kernels), %zu edges, %zu programmatic\n", n, kernels, e, programmatic);
  cudaGraphExec_t x;
  CK(cudaGraphInstantiate(&x, g, 0));
  CK(cudaGraphDestroy(g));
  return x;
}

double replay(cudaGraphExec_t x, cudaStream_t s) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < 20; ++i) {
    CK(cudaEventRecord(e0, s));
    CK(cudaGraphLaunch(x, s));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1e3 / 100);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return median(t);
}

}  // namespace

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const size_t bytes = size_t(64) << 20;
  buffers m{};
  CK(cudaMalloc(&m.a, bytes));
  CK(cudaMalloc(&m.b, bytes));
  CK(cudaMalloc(&m.r, bytes));
  CK(cudaMalloc(&m.w, 1 << 20));
  CK(cudaMalloc(&m.beta, 1 << 20));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  fill_hashed<float><<<1024, 256, 0, s>>>(static_cast<float*>(m.a), bytes / 4, 1u, -2.f, 2.f);
  fill_hashed<float><<<1024, 256, 0, s>>>(static_cast<float*>(m.r), bytes / 4, 2u, -2.f, 2.f);
  fill_hashed<__nv_bfloat16><<<64, 256, 0, s>>>(static_cast<__nv_bfloat16*>(m.w), (1 << 20) / 2, 3u, 0.5f, 1.5f);
  fill_hashed<__nv_bfloat16><<<64, 256, 0, s>>>(static_cast<__nv_bfloat16*>(m.beta), (1 << 20) / 2, 4u, -.5f, .5f);
  CK(cudaStreamSynchronize(s));
  struct shape {
    int op, dtype;
    long long rows, cols;
  };
  // Weights filled as bf16: read as fp32 they are still finite values (timing only).
  const shape shapes[] = {{1, 2, 1, 4096},  {1, 0, 1, 4096},   {1, 0, 1, 8192},   {1, 2, 1, 8192},
                          {1, 2, 16, 4096}, {0, 0, 64, 32000}, {0, 2, 64, 32000}, {0, 2, 1, 4096},
                          {0, 0, 1, 4096},  {2, 0, 1, 8192},   {2, 2, 1, 4096},   {2, 2, 128, 4096}};
  const call_fn versions[] = {call_v51780a8, call_v3e20620, call_vdd971d3, call_va5b0239, call_vtree};
  const char* names[] = {"51780a8", "3e20620", "dd971d3", "a5b0239", "tree"};
  constexpr int nv = 5;
  std::printf("us per call (graph of 100, median of 15 rounds of 20 replays); versions:");
  for (const char* n : names) std::printf(" %s", n);
  std::printf("\n");
  for (const shape& sh : shapes) {
    std::printf("%s %s %lld x %lld\n", op_name(sh.op), sh.dtype == 0 ? "bf16" : "fp32", sh.rows, sh.cols);
    cudaGraphExec_t g[nv];
    for (int v = 0; v < nv; ++v) {  // set-up and module load first, outside the capture
      CK(versions[v](sh.op, sh.dtype, m.a, m.b, m.r, m.w, m.beta, sh.rows, sh.cols, s));
      CK(cudaStreamSynchronize(s));
      g[v] = capture(versions[v], sh.op, sh.dtype, m, sh.rows, sh.cols, s, names[v]);
    }
    std::vector<double> t[nv];
    for (int round = 0; round < 15; ++round)
      for (int v = 0; v < nv; ++v) t[v].push_back(replay(g[v], s));
    std::printf("  %-18s %-5s %4lld x %-6lld", op_name(sh.op), sh.dtype == 0 ? "bf16" : "fp32", sh.rows, sh.cols);
    const double base = median(t[0]);
    for (int v = 0; v < nv; ++v) std::printf("  %s %.3f (%.3f)", names[v], median(t[v]), median(t[v]) / base);
    std::printf("\n");
    for (int v = 0; v < nv; ++v) CK(cudaGraphExecDestroy(g[v]));
  }
  std::printf("done\n");
  return 0;
}
