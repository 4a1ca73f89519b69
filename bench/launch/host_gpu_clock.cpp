#include "host_gpu_clock.hpp"

#include "harness.hpp"
#include "persistent_echo.hpp"

#include <cstddef>
#include <vector>

namespace gpubench::bench {
namespace {

// Echoes per measurement, each a round trip over the link: enough that the tightest of them is
// among the shortest the link gives, few enough to take milliseconds.
constexpr std::size_t echoes = 1024;

} // namespace

ClockRelation measure_clock_relation(double timer_step_ns) {
  std::vector<EchoSample> samples;
  samples.reserve(echoes);
  PersistentEcho echo;
  for (std::size_t i = 0; i < echoes; ++i) {
    samples.push_back(echo.serve());
  }
  Harness::verify(echo.finish());
  return clock_relation(samples, timer_step_ns);
}

} // namespace gpubench::bench
