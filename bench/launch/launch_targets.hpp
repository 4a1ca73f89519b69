#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpubench::bench {

// One launch-probe kernel per parameter-block size, with the typed launchers that <<<>>> and
// cudaLaunchKernelEx need (they must be compiled by nvcc; everything else lives in launch.cpp).
struct LaunchTarget {
  std::size_t bytes;
  const void* symbol;
  void (*chevron)(CUstream stream, const void* payload);
  cudaError_t (*launch_ex)(const cudaLaunchConfig_t& config, const void* payload);
};

// 0, 8, 256, 4096 and 32764 bytes.
[[nodiscard]] const std::array<LaunchTarget, 5>& launch_targets();

// The probe that takes a `bytes`-byte parameter block; std::logic_error if none does.
[[nodiscard]] const LaunchTarget& launch_target(std::int64_t bytes);

// launch_floor_empty: no parameters, and it does not count itself.
[[nodiscard]] const LaunchTarget& floor_target();

// launch_gap_stamp: no parameters; stamps the global timer as it starts and ends.
[[nodiscard]] const LaunchTarget& gap_target();

} // namespace gpubench::bench
