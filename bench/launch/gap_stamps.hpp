#pragma once

#include "launch_gap.cuh"

#include <cuda.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// The stamp count and the stamps of launch_gap_stamp (kernels/launch_gap.cuh), in the module
// that holds it in the current context. Each call waits for the whole context first
// (cuCtxSynchronize), so what it reads or resets is what every launch before it left.
class GapStamps {
public:
  GapStamps();
  // Launches that ran since the last reset.
  [[nodiscard]] unsigned int count() const;
  // Throws VerificationFailure unless exactly `made` launches ran since the last reset; the
  // message names them as `what` ("launches", "stamped launches").
  void expect_ran(std::size_t made, std::string_view what = "launches") const;
  void reset() const;
  // The first `n` stamps, in the order the launches took their slots; n <= gap_stamp_capacity.
  [[nodiscard]] std::vector<GapStamp> read(std::size_t n) const;

private:
  CUdeviceptr count_ = 0;
  CUdeviceptr stamps_ = 0;
};

} // namespace gpubench::bench
