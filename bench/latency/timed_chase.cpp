#include "timed_chase.hpp"

#include "chase_launch.hpp"
#include "driver_api.hpp"
#include "median.hpp"
#include "memory.hpp"

#include <algorithm>

namespace gpubench::bench {

TimedChase::TimedChase(Session&)
    : cursor_(sizeof(ChaseCursor)), timings_(capacity * sizeof(ChaseTiming)) {}

void TimedChase::start_at(std::uint64_t start) const {
  const ChaseCursor cursor{start, 0};
  upload(cursor_.ptr(), &cursor, sizeof(cursor));
}

void TimedChase::launch(std::uint64_t warm_loads, std::uint64_t timed_loads,
                        CUstream stream) const {
  chase_timed_launch(cursor_.ptr(), timings_.ptr(), capacity, warm_loads, timed_loads, stream);
}

TimedChase::Readings TimedChase::read() const {
  ChaseCursor cursor{};
  GPUBENCH_CU(cuMemcpyDtoH, &cursor, cursor_.ptr(), sizeof(cursor));
  std::vector<ChaseTiming> ring(capacity);
  GPUBENCH_CU(cuMemcpyDtoH, ring.data(), timings_.ptr(), capacity * sizeof(ChaseTiming));
  Readings readings{cursor.position, cursor.launches, {}};
  const std::uint64_t kept = std::min<std::uint64_t>(cursor.launches, capacity);
  for (std::uint64_t launch = cursor.launches - kept; launch < cursor.launches; ++launch) {
    readings.timings.push_back(ring[launch % capacity]);
  }
  return readings;
}

ChaseFigures chase_figures(const TimedChase::Readings& readings, std::size_t launches,
                           std::uint64_t timed_loads) {
  const std::size_t used = std::min(launches, readings.timings.size());
  std::vector<double> ns;
  std::vector<double> cycles;
  for (std::size_t i = readings.timings.size() - used; i < readings.timings.size(); ++i) {
    ns.push_back(static_cast<double>(readings.timings[i].ns));
    cycles.push_back(static_cast<double>(readings.timings[i].cycles));
  }
  const auto loads = static_cast<double>(timed_loads);
  return {median(ns) / loads, median(cycles) / loads};
}

} // namespace gpubench::bench
