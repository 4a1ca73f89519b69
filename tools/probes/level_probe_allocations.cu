// Probe: does re-allocating the buffers within one process sample the copy levels, so the
// median over allocation rounds agrees between processes better than one allocation does?
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char** argv) {
  const int rounds = 8; const bool keep = argc > 1;  // keep: hold each round's buffers (new placement each round)
  int* flag; CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (size_t B : {size_t(1) << 20, size_t(4) << 20, size_t(16) << 20}) {
    std::vector<double> level; std::vector<void*> held;
    for (int k = 0; k < rounds; ++k) {
      void *src, *dst; CK(cudaMalloc(&src, B)); CK(cudaMalloc(&dst, B)); CK(cudaMemset(src, 1, B));
      std::vector<double> g;
      for (int r = 0; r < 12; ++r) {
        *(volatile int*)flag = 0; spin<<<1, 1, 0, s>>>(flag); CK(cudaEventRecord(e0, s));
        for (int c = 0; c < 64; ++c) CK(cudaMemcpyAsync(dst, src, B, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e1, s)); *(volatile int*)flag = 1; CK(cudaStreamSynchronize(s));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 2) g.push_back(64.0 * B / (ms * 1e-3) / 1e9);
      }
      level.push_back(med(g));
      if (keep) { held.push_back(src); held.push_back(dst); } else { cudaFree(src); cudaFree(dst); }
    }
    printf("%2zu MiB %s rounds:", B >> 20, keep ? "held" : "freed");
    for (double x : level) printf(" %5.0f", x);
    printf("  first %5.0f median %5.0f\n", level[0], med(level));
    for (void* p : held) cudaFree(p);
  }
  return 0;
}
