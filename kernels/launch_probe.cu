#include "launch_probe.cuh"

// At namespace scope with plain names, so the host finds them with cuModuleGetGlobal.
__device__ unsigned long long gpubench_launch_count = 0;
__device__ unsigned long long gpubench_intact_count = 0;

namespace {
template <std::size_t Bytes> __device__ void count_launch(const Payload<Bytes>& payload) {
  atomicAdd(&gpubench_launch_count, 1ULL);
  if (payload.bytes[0] == payload_first_byte && payload.bytes[Bytes - 1] == payload_last_byte) {
    atomicAdd(&gpubench_intact_count, 1ULL);
  }
}
} // namespace

__global__ void launch_probe_empty() {
  atomicAdd(&gpubench_launch_count, 1ULL);
  atomicAdd(&gpubench_intact_count, 1ULL);
}
__global__ void launch_probe_8(Payload<8> payload) { count_launch(payload); }
__global__ void launch_probe_256(Payload<256> payload) { count_launch(payload); }
__global__ void launch_probe_4096(Payload<4096> payload) { count_launch(payload); }
__global__ void launch_probe_32764(Payload<32764> payload) { count_launch(payload); }

__global__ void launch_floor_empty() {}
