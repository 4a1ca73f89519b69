#pragma once

#include <cstdint>
#include <optional>

namespace gpubench {

// The window a kernel reads the SM clock over (kernels/sm_clock_probe.cuh): long enough that the
// global timer's step (32 ns on the H200) is under 0.2% of it even where a tick were missed,
// short enough that the probe adds far less than a millisecond to a benchmark.
inline constexpr std::uint64_t sm_clock_window_ns = 20'000;

// The SM clock in MHz from `cycles` SM cycles (clock64) counted across `ns` nanoseconds of the
// global timer: cycles per microsecond. nullopt where either span is empty: no reading.
[[nodiscard]] std::optional<double> kernel_clock_mhz(std::uint64_t cycles, std::uint64_t ns);

} // namespace gpubench
