// Probe: are per-process levels per object (graph instance, buffer pair) or per process?
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <chrono>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
struct Big { char b[32764 - 4]; int x; };
__global__ void empty() {}
__global__ void big(Big p) { if (p.x == 12345678) printf("x"); }
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int measure() {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int K = 2, N = 32, R = 200;
  static Big p{}; p.x = 1;
  for (int kind = 0; kind < 2; ++kind) {
    std::vector<cudaGraphExec_t> ex(K);
    for (int k = 0; k < K; ++k) {
      cudaGraph_t g; CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < N; ++i) { if (kind == 0) empty<<<1, 1, 0, s>>>(); else big<<<1, 1, 0, s>>>(p); }
      CK(cudaStreamEndCapture(s, &g)); CK(cudaGraphInstantiate(&ex[k], g, 0)); CK(cudaGraphUpload(ex[k], s)); CK(cudaStreamSynchronize(s));
    }
    std::vector<std::vector<double>> t(K);
    for (int r = 0; r < R; ++r) for (int j = 0; j < K; ++j) {
      int k = (j + r) % K; double a = now(); CK(cudaGraphLaunch(ex[k], s)); double b = now(); CK(cudaStreamSynchronize(s));
      if (r >= 20) t[k].push_back((b - a) / N * 1e6);
    }
    printf(" %s", kind ? "p32764" : "empty");
    for (int k = 0; k < K; ++k) printf(" %5.1f", med(t[k]) * 1e3);
  }
  // Gated DtoD 1 MiB copies: 4 buffer pairs on one stream, 64 copies behind a spin gate.
  const size_t B = 1 << 20; int* flag; CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
  std::vector<void*> src(4), dst(4);
  for (int i = 0; i < 4; ++i) { CK(cudaMalloc(&src[i], B)); CK(cudaMalloc(&dst[i], B)); CK(cudaMemset(src[i], i, B)); }
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<std::vector<double>> g(4);
  for (int r = 0; r < 40; ++r) for (int i = 0; i < 2; ++i) {
    *(volatile int*)flag = 0; spin<<<1, 1, 0, s>>>(flag); CK(cudaEventRecord(e0, s));
    for (int c = 0; c < 64; ++c) CK(cudaMemcpyAsync(dst[i], src[i], B, cudaMemcpyDeviceToDevice, s));
    CK(cudaEventRecord(e1, s)); *(volatile int*)flag = 1; CK(cudaStreamSynchronize(s));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 5) g[i].push_back(64.0 * B / (ms * 1e-3) / 1e9);
  }
  printf(" dtod");
  for (int i = 0; i < 2; ++i) printf(" %6.0f", med(g[i]));
  for (int i = 0; i < 4; ++i) { cudaFree(src[i]); cudaFree(dst[i]); }
  cudaFreeHost(flag); cudaStreamDestroy(s);
  printf("\n");
  return 0;
}
int main() {
  CK(cudaFree(0));
  CUdevice dev; cuDeviceGet(&dev, 0);
  CUcontext primary; cuCtxGetCurrent(&primary);
  std::vector<CUcontext> ctx{primary};
  for (int i = 0; i < 4; ++i) { CUcontext c; if (cuCtxCreate(&c, nullptr, 0, dev) != CUDA_SUCCESS) { printf("ctx create failed\n"); return 1; } ctx.push_back(c); }
  for (int pass = 0; pass < 2; ++pass) for (size_t i = 0; i < ctx.size(); ++i) {
    cuCtxSetCurrent(ctx[i]); printf("pass %d ctx %zu:", pass, i); if (measure()) return 1;
  }
  return 0;
}
