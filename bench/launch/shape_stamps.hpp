#pragma once

#include "launch_shape.cuh"

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// The launch counter and per-launch stamps of launch_shape_stamp (kernels/launch_shape.cuh), in
// the module that holds it in the current context. Each call waits for the whole context first
// (cuCtxSynchronize), so what it reads or resets is what every launch before it left.
class ShapeStamps {
public:
  ShapeStamps();
  // Zeroes the counter and clears every slot (its first start all ones, the rest zero).
  void reset() const;
  // Throws VerificationFailure unless exactly `launches` launches of `blocks` blocks each ran
  // since the last reset, every block launched as the host said.
  void expect_ran(std::size_t launches, unsigned int blocks) const;
  // The first `n` slots; n <= shape_launch_capacity.
  [[nodiscard]] std::vector<ShapeStamp> read(std::size_t n) const;

private:
  CUdeviceptr launches_ = 0;
  CUdeviceptr stamps_ = 0;
};

} // namespace gpubench::bench
