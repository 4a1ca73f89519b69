#pragma once

#include "gpu_loop.cuh"
#include "memory.hpp"

#include <cuda.h>

#include <vector>

namespace gpubench::bench {

// The device memory a launch/gpu_loop benchmark's iterations count themselves and stamp in
// (kernels/device_launch/gpu_loop.cuh), for loops of `iterations` each.
class GpuLoopState {
public:
  // Zeroed.
  explicit GpuLoopState(unsigned int iterations);

  [[nodiscard]] unsigned int iterations() const noexcept { return iterations_; }
  // The parameters every iteration's kernel is given.
  [[nodiscard]] GpuLoopArgs args() const noexcept;
  [[nodiscard]] GpuLoopCounters* counters() const noexcept;

  // Queues `remaining` = iterations on `stream`: how every loop starts.
  void arm(CUstream stream) const;
  // Each waits for the whole context first, so it sees or clears what every loop before it left.
  void clear() const;
  [[nodiscard]] GpuLoopCounters read_counters() const;
  [[nodiscard]] std::vector<GpuLoopStamp> read_stamps() const;

private:
  unsigned int iterations_;
  DeviceBuffer counters_;
  DeviceBuffer stamps_;
};

} // namespace gpubench::bench
