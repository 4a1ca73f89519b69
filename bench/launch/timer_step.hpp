#pragma once

#include <cstdint>

namespace gpubench::bench {

class Session;

// The smallest step of the session's GPU's global timer (%globaltimer), measured once per
// session (Session::state<TimerStep>()): the resolution of every stamp the launch family reads
// from it.
struct TimerStep {
  explicit TimerStep(Session& session);
  std::uint64_t ns = 0;
};

} // namespace gpubench::bench
