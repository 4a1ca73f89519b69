// Probe: where does a launch payload's cost relative to an empty launch (launch/paired's params0
// ratio) change between processes: by context, or in time?
// In one process: the primary context and three created ones, three passes over them; in each,
// 24 blocks x rounds of (32 launches with a 32764-byte payload, 32 with 8 bytes, 32 with none),
// each batch host-timed (submit; the stream drained outside the timed region), the order rotated.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
struct Big { char b[32764 - 4]; int x; };
__global__ void big(Big p) { if (p.x == 12345678) printf("x"); }
__global__ void small(long long v) { if (v == 12345678) printf("x"); }
__global__ void none() {}
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int measure() {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int N = 32, R = 240;
  static Big p{}; p.x = 1;
  std::vector<double> rb, rs, tb, t0;
  for (int r = 0; r < R; ++r) {
    double t[3];
    for (int j = 0; j < 3; ++j) {
      int k = (j + r) % 3;
      double a = now();
      for (int i = 0; i < N; ++i) { if (k == 0) big<<<1, 1, 0, s>>>(p); else if (k == 1) small<<<1, 1, 0, s>>>(r); else none<<<1, 1, 0, s>>>(); }
      double b = now(); CK(cudaStreamSynchronize(s));
      t[k] = (b - a) / N * 1e6;
    }
    if (r >= 24) { rb.push_back(t[0] / t[2]); rs.push_back(t[1] / t[2]); tb.push_back(t[0]); t0.push_back(t[2]); }
  }
  CK(cudaGetLastError());
  printf(" 32764/0 %.3f  8/0 %.3f  (32764 %.2f us, 0 %.2f us)\n", med(rb), med(rs), med(tb), med(t0));
  cudaStreamDestroy(s);
  return 0;
}
int main() {
  CK(cudaFree(0));
  CUdevice dev; cuDeviceGet(&dev, 0);
  CUcontext primary; cuCtxGetCurrent(&primary);
  std::vector<CUcontext> ctx{primary};
  for (int i = 0; i < 3; ++i) { CUcontext c; if (cuCtxCreate(&c, nullptr, 0, dev) != CUDA_SUCCESS) { printf("ctx create failed\n"); return 1; } ctx.push_back(c); }
  for (int pass = 0; pass < 3; ++pass) for (size_t i = 0; i < ctx.size(); ++i) {
    cuCtxSetCurrent(ctx[i]); printf("pass %d ctx %zu:", pass, i); if (measure()) return 1;
  }
  return 0;
}
