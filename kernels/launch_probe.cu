#include "launch_probe.cuh"

#include "cuda_error.hpp"

namespace {
__device__ unsigned long long launch_count = 0;
__device__ unsigned long long intact_count = 0;

template <std::size_t Bytes> __device__ void count_launch(const Payload<Bytes>& payload) {
  atomicAdd(&launch_count, 1ULL);
  if (payload.bytes[0] == payload_first_byte && payload.bytes[Bytes - 1] == payload_last_byte) {
    atomicAdd(&intact_count, 1ULL);
  }
}
} // namespace

__global__ void launch_probe_empty() {
  atomicAdd(&launch_count, 1ULL);
  atomicAdd(&intact_count, 1ULL);
}
__global__ void launch_probe_8(Payload<8> payload) { count_launch(payload); }
__global__ void launch_probe_256(Payload<256> payload) { count_launch(payload); }
__global__ void launch_probe_4096(Payload<4096> payload) { count_launch(payload); }
__global__ void launch_probe_32764(Payload<32764> payload) { count_launch(payload); }

LaunchCounts read_launch_counts() {
  // The counters are read through the legacy stream, which does not wait for non-blocking ones.
  GPUBENCH_CUDART(cudaDeviceSynchronize());
  LaunchCounts counts;
  GPUBENCH_CUDART(cudaMemcpyFromSymbol(&counts.launched, launch_count, sizeof(counts.launched)));
  GPUBENCH_CUDART(cudaMemcpyFromSymbol(&counts.intact, intact_count, sizeof(counts.intact)));
  return counts;
}

void reset_launch_counts() {
  GPUBENCH_CUDART(cudaDeviceSynchronize());
  const unsigned long long zero = 0;
  GPUBENCH_CUDART(cudaMemcpyToSymbol(launch_count, &zero, sizeof(zero)));
  GPUBENCH_CUDART(cudaMemcpyToSymbol(intact_count, &zero, sizeof(zero)));
}
