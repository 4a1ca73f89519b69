#pragma once

// The launch family's launch paths: one kernel image made ready for every launch API, and the
// paths that call each API. launch.cpp times each path in its own window; paired_launch.cpp
// times them all in the same rounds.
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "kernel_params.hpp"
#include "launch_probe.cuh"
#include "launch_targets.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace gpubench::bench {

// One target made ready for every launch API: the payload (first and last bytes marked so the
// kernel can prove it arrived), the driver's handle and each API's argument form. A launch
// here is one grid of one thread: the cost measured is the launch, not the kernel.
//
// The payload lies `payload_offset` bytes into its storage, so a caller can place it at another
// offset within a page and a cache line than the allocator's own.
class Launcher {
public:
  Launcher(const LaunchTarget& target, CUstream stream, std::size_t payload_offset = 0)
      : target_(target), stream_(stream), function_(driver_function(target.symbol)),
        storage_(payload_offset + std::max<std::size_t>(target.bytes, 1)),
        payload_(std::span(storage_).subspan(payload_offset)) {
    payload_.front() = payload_first_byte;
    payload_.back() = payload_last_byte;
    if (target.bytes > 0) {
      packed_.push_bytes(std::as_bytes(payload_), 1);
      args_[0] = payload_.data();
    }
    runtime_config_.gridDim = dim3(1);
    runtime_config_.blockDim = dim3(1);
    runtime_config_.stream = stream;
    driver_config_.gridDimX = driver_config_.gridDimY = driver_config_.gridDimZ = 1;
    driver_config_.blockDimX = driver_config_.blockDimY = driver_config_.blockDimZ = 1;
    driver_config_.hStream = stream;
  }

  // <<<>>> reports errors through cudaGetLastError, which the measurement checks per batch.
  void runtime() { target_.chevron(stream_, payload_.data()); }
  void runtime_launchkernel() {
    GPUBENCH_CUDART(cudaLaunchKernel(target_.symbol, dim3(1), dim3(1), args(), 0, stream_));
  }
  void runtime_launchkernelex() {
    GPUBENCH_CUDART(target_.launch_ex(runtime_config_, payload_.data()));
  }
  void driver() {
    GPUBENCH_CU(cuLaunchKernel, function_, 1, 1, 1, 1, 1, 1, 0, stream_, args(), nullptr);
  }
  void driver_extra() {
    GPUBENCH_CU(cuLaunchKernel, function_, 1, 1, 1, 1, 1, 1, 0, stream_, nullptr, extra());
  }
  void driver_launchkernelex() {
    GPUBENCH_CU(cuLaunchKernelEx, &driver_config_, function_, args(), nullptr);
  }

private:
  void** args() { return target_.bytes > 0 ? args_.data() : nullptr; }
  void** extra() { return target_.bytes > 0 ? packed_.extra() : nullptr; }

  const LaunchTarget& target_;
  CUstream stream_;
  CUfunction function_;
  std::vector<unsigned char> storage_;
  std::span<unsigned char> payload_;
  PackedKernelParams packed_;
  std::array<void*, 1> args_{};
  cudaLaunchConfig_t runtime_config_{};
  CUlaunchConfig driver_config_{};
};

struct Path {
  const char* name;
  void (Launcher::*launch)();
  bool graph = false; // K launches captured once into a graph, replayed; reported per kernel
};

inline const Path launch_paths[] = {
    {"runtime", &Launcher::runtime},
    {"runtime_launchkernel", &Launcher::runtime_launchkernel},
    {"runtime_launchkernelex", &Launcher::runtime_launchkernelex},
    {"driver", &Launcher::driver},
    {"driver_extra", &Launcher::driver_extra},
    {"driver_launchkernelex", &Launcher::driver_launchkernelex},
    {"graph", &Launcher::driver, true},
};
} // namespace gpubench::bench
