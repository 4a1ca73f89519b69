#pragma once

#include <cstddef>

// Kernels whose only job is to prove they ran: every launch adds one to the device counter
// gpubench_launch_count, and a launch whose parameter block arrived intact (first byte 0x5A,
// last byte 0xA5) also adds one to gpubench_intact_count. After a benchmark both must equal the
// launches it made. The counters live in launch_probe.cu's module; the host reaches them
// through the Driver API (bench/launch/launch_counts.hpp).

inline constexpr unsigned char payload_first_byte = 0x5A;
inline constexpr unsigned char payload_last_byte = 0xA5;

template <std::size_t Bytes> struct Payload { unsigned char bytes[Bytes]; };

// One kernel per parameter-block size (plain functions, not a template, so one definition in
// launch_probe.cu serves every translation unit). 32764 bytes is the largest block CUDA 12.1+
// accepts on Volta and newer.
__global__ void launch_probe_empty();
__global__ void launch_probe_8(Payload<8> payload);
__global__ void launch_probe_256(Payload<256> payload);
__global__ void launch_probe_4096(Payload<4096> payload);
__global__ void launch_probe_32764(Payload<32764> payload);

// A kernel that does nothing, not even count itself: what a launch costs with no work behind it
// (launch/floor/), beside launch_probe_empty, which counts.
__global__ void launch_floor_empty();
