#pragma once

#include "launch_mechanism.cuh"

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// The counters and per-launch stamps of launch_mechanism_stamp (kernels/launch_mechanism.cuh), in
// the module that holds it in the current context. Each call waits for the whole context first
// (cuCtxSynchronize), so what it reads or resets is what every launch before it left.
class MechanismStamps {
public:
  MechanismStamps();
  // Zeroes the counters and clears every slot (its firsts all ones, the rest zero).
  void reset() const;
  // Throws VerificationFailure unless exactly `launches` launches of `blocks` blocks each ran
  // since the last reset, every block seeing its parameters, cluster and grid as launched.
  void expect_ran(std::size_t launches, unsigned int blocks) const;
  // The first `n` slots; n <= mechanism_launch_capacity.
  [[nodiscard]] std::vector<MechanismStamp> read(std::size_t n) const;

private:
  CUdeviceptr launches_ = 0;
  CUdeviceptr blocks_ = 0;
  CUdeviceptr intact_ = 0;
  CUdeviceptr stamps_ = 0;
};

} // namespace gpubench::bench
