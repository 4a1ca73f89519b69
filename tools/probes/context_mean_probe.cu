// Probe: does measuring a small GPU-timed figure in several contexts of one process, and taking
// the mean over them, take out the level each context draws (gap_levels_probe.txt: a context's
// small saxpy and empty kernel sit at one of two levels for its life)? In K contexts (the primary
// and K - 1 created; K the first argument, default 8, at most 32), each with one stream and its
// own buffers: the median over 30 batches (after 5) of a 4096-element saxpy L2-flushed as
// gpubench times it (each launch between its own events, after a write of one L2's worth), the
// same saxpy back to back behind a gate, an empty kernel back to back, and a 4 KiB copy from
// pinned host memory to the device between its own events. One line per figure: its name, then
// the K contexts' µs per operation in the order made; tools/analysis/context_mean.py reads the
// lines of separate processes.
#include "whole_argument.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e = (x);                                                                           \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "context_mean_probe: %s: %s\n", #x, cudaGetErrorString(e));             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

__global__ void empty() {}
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
__global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}

constexpr int ops = 64, warm = 5, timed = 30, elements = 4096, copy_bytes = 4096;
const char* const names[] = {"saxpy_flushed", "saxpy", "empty", "copy_htod_4k"};
constexpr int kinds = 4;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Context {
  CUcontext ctx;
  cudaStream_t stream;
  int* flag;
  float *x, *y;
  void *flush, *host, *device;
  size_t l2;
  cudaEvent_t gate_start, gate_stop, start[ops], stop[ops];
};

int setup(Context& c) {
  CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  CK(cudaHostAlloc(&c.flag, sizeof(int), cudaHostAllocMapped));
  CK(cudaMalloc(&c.x, elements * sizeof(float)));
  CK(cudaMalloc(&c.y, elements * sizeof(float)));
  CK(cudaMemset(c.x, 0, elements * sizeof(float)));
  CK(cudaMemset(c.y, 0, elements * sizeof(float)));
  CK(cudaHostAlloc(&c.host, copy_bytes, cudaHostAllocDefault));
  CK(cudaMalloc(&c.device, copy_bytes));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  c.l2 = static_cast<size_t>(l2);
  CK(cudaMalloc(&c.flush, c.l2));
  CK(cudaEventCreate(&c.gate_start));
  CK(cudaEventCreate(&c.gate_stop));
  for (int i = 0; i < ops; ++i) {
    CK(cudaEventCreate(&c.start[i]));
    CK(cudaEventCreate(&c.stop[i]));
  }
  return 0;
}

// One batch of `kind`, its µs per operation in *us.
int batch(Context& c, int kind, double* us) {
  const cudaStream_t s = c.stream;
  if (kind == 0 || kind == 3) {
    for (int i = 0; i < ops; ++i) {
      if (kind == 0) {
        CK(cudaMemsetAsync(c.flush, i, c.l2, s));
      }
      CK(cudaEventRecord(c.start[i], s));
      if (kind == 0) {
        saxpy<<<elements / 256, 256, 0, s>>>(elements, 2.f, c.x, c.y);
      } else {
        CK(cudaMemcpyAsync(c.device, c.host, copy_bytes, cudaMemcpyHostToDevice, s));
      }
      CK(cudaEventRecord(c.stop[i], s));
    }
    CK(cudaStreamSynchronize(s));
    double sum = 0;
    for (int i = 0; i < ops; ++i) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, c.start[i], c.stop[i]));
      sum += ms * 1e3;
    }
    *us = sum / ops;
    return 0;
  }
  *reinterpret_cast<volatile int*>(c.flag) = 0;
  spin<<<1, 1, 0, s>>>(c.flag);
  CK(cudaEventRecord(c.gate_start, s));
  for (int i = 0; i < ops; ++i) {
    if (kind == 1) {
      saxpy<<<elements / 256, 256, 0, s>>>(elements, 2.f, c.x, c.y);
    } else {
      empty<<<1, 1, 0, s>>>();
    }
  }
  CK(cudaEventRecord(c.gate_stop, s));
  *reinterpret_cast<volatile int*>(c.flag) = 1;
  CK(cudaStreamSynchronize(s));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, c.gate_start, c.gate_stop));
  *us = ms * 1e3 / ops;
  return 0;
}

int main(int argc, char** argv) {
  const long count = argc > 1 ? whole_argument(argv[1], 1, 32) : 8;
  if (argc > 2 || count < 0) {
    std::fprintf(stderr, "context_mean_probe: usage: context_mean_probe [CONTEXTS, 1 to 32]\n");
    return 2;
  }
  CK(cudaFree(nullptr));
  CUdevice dev = 0;
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
    std::fprintf(stderr, "context_mean_probe: no device 0\n");
    return 1;
  }
  std::vector<Context> contexts(count);
  cuCtxGetCurrent(&contexts[0].ctx);
  for (int k = 1; k < count; ++k) {
    if (cuCtxCreate(&contexts[k].ctx, nullptr, 0, dev) != CUDA_SUCCESS) {
      std::fprintf(stderr, "context_mean_probe: context %d could not be created\n", k);
      return 1;
    }
  }
  for (Context& c : contexts) {
    cuCtxSetCurrent(c.ctx);
    if (setup(c) != 0) {
      return 1;
    }
  }
  for (int kind = 0; kind < kinds; ++kind) {
    std::printf("%s", names[kind]);
    for (Context& c : contexts) {
      cuCtxSetCurrent(c.ctx);
      std::vector<double> times;
      for (int b = 0; b < warm + timed; ++b) {
        double us = 0;
        if (batch(c, kind, &us) != 0) {
          return 1;
        }
        if (b >= warm) {
          times.push_back(us);
        }
      }
      std::printf(" %.4f", median(times));
    }
    std::printf("\n");
  }
  return 0;
}
