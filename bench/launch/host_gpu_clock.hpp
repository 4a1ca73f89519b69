#pragma once

#include "clock_relation.hpp"

namespace gpubench::bench {

// How the GPU's global timer stands against the host's clock (host_clock_ns) now, on the
// current context's device: clock_relation() over work items echoed by a persistent kernel
// started for it and stopped before it returns. Throws VerificationFailure where the kernel did
// not answer every item once, in order.
[[nodiscard]] ClockRelation measure_clock_relation(double timer_step_ns);

} // namespace gpubench::bench
