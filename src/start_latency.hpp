#pragma once

#include "clock_relation.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpubench {

// One launch as both clocks saw it: the host's clock right before the launch call
// (std::chrono::steady_clock nanoseconds) and the GPU's global timer at the kernel's first
// instruction.
struct StampedLaunch {
  std::int64_t host_ns;
  std::uint64_t gpu_start_ns;
};

// What each launch took from the host's call to the kernel's first instruction, and how far any
// of them may be off: the clock relation's uncertainty (the larger of the two measurements) and
// half a timer step (a stamp is the timer's count, the true time up to one step later).
struct StartLatencies {
  std::vector<double> ns;
  double uncertainty_ns = 0.0;
};

// Each launch's start latency: its stamp (taken as the middle of its step) less the host time of
// its call moved onto the GPU's timer by the offset at that time, interpolated between the
// relation measured `before` the launches and the one measured `after` them. Throws
// std::invalid_argument for a stamp past 2^63 ns or a negative step.
[[nodiscard]] StartLatencies start_latencies(std::span<const StampedLaunch> launches,
                                             const ClockRelation& before,
                                             const ClockRelation& after, double timer_step_ns);

// A launch that started before its call by more than the uncertainty allows, named with its
// index and numbers: only a wrong clock relation gives one. nullopt where none did.
[[nodiscard]] std::optional<std::string> find_impossible_start(const StartLatencies& latencies);

} // namespace gpubench
