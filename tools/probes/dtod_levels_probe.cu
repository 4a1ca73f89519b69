// What gives a gated 1 MiB device-to-device copy a new level within one process: new buffers on
// the same stream, a new stream on the same buffers, both, or a new context with both.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define CU(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { printf("%s: %d\n", #x, (int)e); exit(1); } } while (0)

__global__ void spin(unsigned long long ns) {
  unsigned long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); if (t - t0 > ns) break; }
}

struct Placement { cudaStream_t s; void* src; void* dst; };

static double measure(const Placement& p, size_t bytes) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> v;
  for (int rep = 0; rep < 25; ++rep) {
    spin<<<1, 1, 0, p.s>>>(1000000);
    CK(cudaEventRecord(a, p.s));
    for (int c = 0; c < 64; ++c) CK(cudaMemcpyAsync(p.dst, p.src, bytes, cudaMemcpyDeviceToDevice, p.s));
    CK(cudaEventRecord(b, p.s));
    CK(cudaStreamSynchronize(p.s));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    if (rep >= 5) v.push_back(2.0 * 64 * bytes / (ms * 1e-3) / 1e9);
  }
  std::sort(v.begin(), v.end());
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  return v[v.size() / 2];
}

static void* alloc(size_t bytes) { void* p; CK(cudaMalloc(&p, bytes)); CK(cudaMemset(p, 1, bytes)); return p; }

int main(int argc, char** argv) {
  const size_t bytes = (argc > 1 ? atol(argv[1]) : 1) << 20;
  CK(cudaFree(0));
  CUcontext primary; CU(cuCtxGetCurrent(&primary));
  Placement base{nullptr, alloc(bytes), alloc(bytes)};
  CK(cudaStreamCreateWithFlags(&base.s, cudaStreamNonBlocking));
  printf("%zu MiB base        %6.0f %6.0f\n", bytes >> 20, measure(base, bytes), measure(base, bytes));
  printf("  new buffers    "); for (int i = 0; i < 8; ++i) { Placement p{base.s, alloc(bytes), alloc(bytes)}; printf(" %6.0f", measure(p, bytes)); } printf("\n");
  printf("  new stream     "); for (int i = 0; i < 8; ++i) { Placement p = base; CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking)); printf(" %6.0f", measure(p, bytes)); } printf("\n");
  printf("  new both       "); for (int i = 0; i < 8; ++i) { Placement p{nullptr, alloc(bytes), alloc(bytes)}; CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking)); printf(" %6.0f", measure(p, bytes)); } printf("\n");
  printf("  new context    "); CUdevice dev; CU(cuDeviceGet(&dev, 0));
  for (int i = 0; i < 6; ++i) { CUcontext c; CU(cuCtxCreate(&c, nullptr, 0, dev)); Placement p{nullptr, alloc(bytes), alloc(bytes)}; CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking)); printf(" %6.0f", measure(p, bytes)); }
  CU(cuCtxSetCurrent(primary));
  printf("\n  base again     %6.0f\n", measure(base, bytes));
  return 0;
}
