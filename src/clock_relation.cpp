#include "clock_relation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpubench {

ClockRelation clock_relation(std::span<const EchoSample> samples, double timer_step_ns) {
  if (samples.empty()) {
    throw std::invalid_argument("a clock relation needs at least one echo");
  }
  if (!(timer_step_ns >= 0.0) || !std::isfinite(timer_step_ns)) {
    throw std::invalid_argument("a clock relation needs a finite, non-negative timer step");
  }
  for (const EchoSample& sample : samples) {
    if (sample.host_seen_ns < sample.host_sent_ns) {
      throw std::invalid_argument("an echo was seen on the host before it was sent");
    }
    if (sample.gpu_ns > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw std::invalid_argument("a GPU timer reading past 2^63 ns");
    }
  }
  const EchoSample& best = *std::min_element(
      samples.begin(), samples.end(), [](const EchoSample& a, const EchoSample& b) {
        return a.host_seen_ns - a.host_sent_ns < b.host_seen_ns - b.host_sent_ns;
      });
  const double roundtrip = static_cast<double>(best.host_seen_ns - best.host_sent_ns);
  // The interval's middle, g - host_sent + (step - roundtrip) / 2, kept in integers where the
  // timer's epoch makes the numbers too large for a double's nanoseconds.
  const std::int64_t gpu_minus_sent = static_cast<std::int64_t>(best.gpu_ns) - best.host_sent_ns;
  return {.offset_ns = gpu_minus_sent + std::llround((timer_step_ns - roundtrip) / 2.0),
          .uncertainty_ns = (roundtrip + timer_step_ns) / 2.0,
          .host_ns = best.host_sent_ns + (best.host_seen_ns - best.host_sent_ns) / 2,
          .roundtrip_ns = roundtrip};
}

std::int64_t offset_at(const ClockRelation& before, const ClockRelation& after,
                       std::int64_t host_ns) {
  if (after.host_ns == before.host_ns) {
    return before.offset_ns;
  }
  const double fraction = static_cast<double>(host_ns - before.host_ns) /
                          static_cast<double>(after.host_ns - before.host_ns);
  return before.offset_ns +
         std::llround(fraction * static_cast<double>(clock_drift_ns(before, after)));
}

std::int64_t clock_drift_ns(const ClockRelation& before, const ClockRelation& after) {
  return after.offset_ns - before.offset_ns;
}

} // namespace gpubench
