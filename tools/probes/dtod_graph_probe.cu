// Is an L2-resident 1 MiB DtoD copy's speed set by the stream (its copy engine) or the buffers?
// Each case: a graph of 64 copies replayed between events, so the GPU runs them back to back.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
int main() {
  const size_t n = size_t{1} << 20; const int per = 64;
  std::vector<char*> bufs(8);
  for (auto& b : bufs) { CK(cudaMalloc(&b, 2 * n)); CK(cudaMemset(b, 1, 2 * n)); }
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int si = 0; si < 6; ++si) {
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("stream %d:", si);
    for (int bi = 0; bi < 4; ++bi) {
      cudaGraph_t g; cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < per; ++k) CK(cudaMemcpyAsync(bufs[bi] + n, bufs[bi], n, cudaMemcpyDeviceToDevice, s));
      CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&ge, g, 0)); CK(cudaGraphUpload(ge, s));
      std::vector<float> t;
      for (int r = 0; r < 60; ++r) {
        CK(cudaEventRecord(e0, s)); CK(cudaGraphLaunch(ge, s)); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 10) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      printf(" %6.0f", per * double(n) / (t[t.size() / 2] * 1e-3) / 1e9);
      CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(g));
    }
    printf("  GB/s, buffers 0-3\n");
  }
  return 0;
}
