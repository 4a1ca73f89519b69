#pragma once

#include "chase_records.hpp"
#include "memory.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Session;

// The timed chase's state on the chasing GPU: its cursor, which carries the chase from one
// launch to the next, and the clocks of its last `capacity` launches.
class TimedChase {
public:
  static constexpr std::uint32_t capacity = 4096;

  explicit TimedChase(Session&);

  // Puts the cursor at `start` with no launches made (the chasing GPU's context current).
  void start_at(std::uint64_t start) const;
  // One launch: `warm_loads` loads, then `timed_loads` between the clocks.
  void launch(std::uint64_t warm_loads, std::uint64_t timed_loads, CUstream stream) const;

  // What the launches left on the GPU, read once they are done.
  struct Readings {
    std::uint64_t position = 0;
    std::uint64_t launches = 0;
    std::vector<ChaseTiming> timings; // the last min(launches, capacity), oldest first
  };
  [[nodiscard]] Readings read() const;

private:
  DeviceBuffer cursor_;
  DeviceBuffer timings_;
};

// The figures of the last `launches` timed launches of `timed_loads` loads each: the median
// launch's nanoseconds and SM cycles per load.
struct ChaseFigures {
  double ns_per_load = 0.0;
  double cycles_per_load = 0.0;
};
[[nodiscard]] ChaseFigures chase_figures(const TimedChase::Readings& readings, std::size_t launches,
                                         std::uint64_t timed_loads);

} // namespace gpubench::bench
