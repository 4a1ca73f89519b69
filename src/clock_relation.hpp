#pragma once

#include <chrono>
#include <cstdint>
#include <span>

namespace gpubench {

// The host's clock the relation is to: std::chrono::steady_clock (CLOCK_MONOTONIC on Linux),
// in nanoseconds. Linux reads it in the vDSO with an ordered counter read (rdtsc_ordered on
// x86, an isb before the counter on arm64), so the reading is not taken ahead of the loads
// before it.
[[nodiscard]] inline std::int64_t host_clock_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One work item echoed by a persistent kernel (kernels/persistent_echo.cuh): the host's clock
// right before it wrote the request, the GPU's global timer (%globaltimer) when the kernel read
// it, and the host's clock right after it saw the answer. Host times are nanoseconds of
// std::chrono::steady_clock (CLOCK_MONOTONIC on Linux), GPU times nanoseconds of the timer.
struct EchoSample {
  std::int64_t host_sent_ns;
  std::uint64_t gpu_ns;
  std::int64_t host_seen_ns;
};

// How the GPU's global timer stands against the host's clock: gpu = host + offset_ns, the true
// offset within ± uncertainty_ns, measured at host time host_ns.
struct ClockRelation {
  std::int64_t offset_ns = 0;
  double uncertainty_ns = 0.0;
  std::int64_t host_ns = 0;
  double roundtrip_ns = 0.0; // the echo it was taken from
};

// The relation from the echo with the smallest round trip (NTP's choice). The kernel read the
// request after the host wrote it and answered before the host saw the answer, so when the
// timer read g (the true time in [g, g + timer_step_ns): the timer counts in steps) the host's
// clock stood between host_sent_ns and host_seen_ns: the offset lies in
// [g - host_seen_ns, g + timer_step_ns - host_sent_ns], whatever the PCIe delays in each
// direction were. The relation is that interval's middle and half its width. Throws
// std::invalid_argument for no samples, a negative step, a sample seen before it was sent, or
// a GPU time past what a signed 64-bit nanosecond count holds.
[[nodiscard]] ClockRelation clock_relation(std::span<const EchoSample> samples,
                                           double timer_step_ns);

// The offset at host time `host_ns` on the line through `before` and `after` (drift between
// two measurements taken as steady); `before`'s offset where both were measured at one time.
[[nodiscard]] std::int64_t offset_at(const ClockRelation& before, const ClockRelation& after,
                                     std::int64_t host_ns);

// How far the offset moved from `before` to `after`.
[[nodiscard]] std::int64_t clock_drift_ns(const ClockRelation& before, const ClockRelation& after);

} // namespace gpubench
