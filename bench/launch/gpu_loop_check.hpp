#pragma once

#include "gpu_loop.cuh"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace gpubench::bench {

// Whether `counters` show exactly `loops` whole loops of `iterations` since they were cleared:
// every iteration ran once (none with no iteration left), saw its parameters intact, no
// device-side launch failed and no loop left iterations unrun. The first difference as a
// sentence, or nullopt.
[[nodiscard]] std::optional<std::string>
loop_counts_mismatch(const GpuLoopCounters& counters, unsigned int iterations, std::uint64_t loops);

// Whether one loop's `stamps` show every iteration ran, one after another: each stamped, its
// start at or before its end, and at or after the end of the iteration before it. The first
// that is not as a sentence, or nullopt.
[[nodiscard]] std::optional<std::string> loop_order_mismatch(std::span<const GpuLoopStamp> stamps);

// A device-side launch's error as its name and number, e.g. "cudaErrorInvalidValue (1)".
[[nodiscard]] std::string device_launch_error(unsigned int code);

} // namespace gpubench::bench
