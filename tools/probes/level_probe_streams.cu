// Probe: gated DtoD copies, 8 streams in one process, one buffer pair, interleaved: per-stream levels?
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  const int S = 8; int* flag; CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
  std::vector<cudaStream_t> st(S); for (auto& s : st) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (size_t B : {size_t(1) << 20, size_t(16) << 20}) {
    void *src, *dst; CK(cudaMalloc(&src, B)); CK(cudaMalloc(&dst, B)); CK(cudaMemset(src, 1, B));
    for (int pass = 0; pass < 3; ++pass) {
      std::vector<std::vector<double>> g(S);
      for (int r = 0; r < 30; ++r) for (int i = 0; i < S; ++i) {
        cudaStream_t s = st[(i + r) % S];
        *(volatile int*)flag = 0; spin<<<1, 1, 0, s>>>(flag); CK(cudaEventRecord(e0, s));
        for (int c = 0; c < 64; ++c) CK(cudaMemcpyAsync(dst, src, B, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e1, s)); *(volatile int*)flag = 1; CK(cudaStreamSynchronize(s));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 3) g[(i + r) % S].push_back(64.0 * B / (ms * 1e-3) / 1e9);
      }
      printf("%3zu MiB pass %d GB/s by stream:", B >> 20, pass);
      for (int i = 0; i < S; ++i) printf(" %5.0f", med(g[i]));
      printf("\n");
    }
    cudaFree(src); cudaFree(dst);
  }
  return 0;
}
