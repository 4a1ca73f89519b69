#pragma once

#include <optional>

namespace gpubench::bench {

class Session;

// The SM clock of `session`'s device as a kernel sees it, in MHz: one thread of sm_clock_probe
// counts SM cycles across sm_clock_window_ns of the global timer (kernels/sm_clock_probe.cuh).
// Runs on the session's stream in its context, waits for it, and leaves the thread's current
// context as it found it; nullopt where the probe read no span. Throws CudaError.
[[nodiscard]] std::optional<double> kernel_sm_clock_mhz(const Session& session);

} // namespace gpubench::bench
