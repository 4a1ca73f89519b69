// Probe: is the GPU-side level of small kernels (a 4096-element saxpy, an empty kernel) set per
// stream, per context or per process? Gated batches of 64 launches timed with events (the saxpy
// also as gpubench's l2_flushed times it: each launch between its own events, after a write of
// one L2's worth of memory), median of 30 batches, on 8 streams of the primary context and 8
// streams of a created one, three passes.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
__global__ void empty() {}
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
struct Probe { int* flag; float *x, *y; void* flush; size_t l2; cudaEvent_t e0, e1, a[64], b[64]; };
int setup(Probe& p) {
  CK(cudaHostAlloc(&p.flag, 4, cudaHostAllocMapped));
  CK(cudaMalloc(&p.x, 4096 * 4)); CK(cudaMalloc(&p.y, 4096 * 4));
  CK(cudaMemset(p.x, 0, 4096 * 4)); CK(cudaMemset(p.y, 0, 4096 * 4));
  CK(cudaEventCreate(&p.e0)); CK(cudaEventCreate(&p.e1));
  for (int i = 0; i < 64; ++i) { CK(cudaEventCreate(&p.a[i])); CK(cudaEventCreate(&p.b[i])); }
  int l2; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0)); p.l2 = l2;
  CK(cudaMalloc(&p.flush, p.l2)); return 0;
}
int batch(Probe& p, cudaStream_t s, int kind, double* us) {
  if (kind == 2) {
    for (int i = 0; i < 64; ++i) {
      CK(cudaMemsetAsync(p.flush, i, p.l2, s)); CK(cudaEventRecord(p.a[i], s));
      saxpy<<<16, 256, 0, s>>>(4096, 2.f, p.x, p.y); CK(cudaEventRecord(p.b[i], s));
    }
    CK(cudaStreamSynchronize(s)); std::vector<double> t(64);
    for (int i = 0; i < 64; ++i) { float ms; CK(cudaEventElapsedTime(&ms, p.a[i], p.b[i])); t[i] = ms * 1e3; }
    double sum = 0; for (double v : t) sum += v; *us = sum / 64; return 0;
  }
  *(volatile int*)p.flag = 0; spin<<<1, 1, 0, s>>>(p.flag); CK(cudaEventRecord(p.e0, s));
  for (int i = 0; i < 64; ++i) { if (kind) saxpy<<<16, 256, 0, s>>>(4096, 2.f, p.x, p.y); else empty<<<1, 1, 0, s>>>(); }
  CK(cudaEventRecord(p.e1, s)); *(volatile int*)p.flag = 1; CK(cudaStreamSynchronize(s));
  float ms; CK(cudaEventElapsedTime(&ms, p.e0, p.e1)); *us = ms * 1e3 / 64; return 0;
}
int main() {
  CK(cudaFree(0));
  CUdevice dev; cuDeviceGet(&dev, 0);
  CUcontext ctx[2]; cuCtxGetCurrent(&ctx[0]);
  if (cuCtxCreate(&ctx[1], nullptr, 0, dev) != CUDA_SUCCESS) { printf("ctx create failed\n"); return 1; }
  Probe pr[2]; std::vector<cudaStream_t> st[2];
  for (int c = 0; c < 2; ++c) {
    cuCtxSetCurrent(ctx[c]); if (setup(pr[c])) return 1;
    for (int i = 0; i < 8; ++i) { cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); st[c].push_back(s); }
  }
  for (int pass = 0; pass < 3; ++pass) for (int c = 0; c < 2; ++c) for (int kind = 2; kind >= 0; --kind) {
    cuCtxSetCurrent(ctx[c]);
    std::vector<std::vector<double>> t(8);
    for (int r = 0; r < 35; ++r) for (int i = 0; i < 8; ++i) { double us; if (batch(pr[c], st[c][i], kind, &us)) return 1; if (r >= 5) t[i].push_back(us); }
    printf("pass %d ctx %d %-7s us/launch by stream:", pass, c, kind == 2 ? "flushed" : kind ? "saxpy" : "empty");
    for (int i = 0; i < 8; ++i) printf(" %6.3f", med(t[i]));
    printf("\n");
  }
  return 0;
}
