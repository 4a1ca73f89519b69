#pragma once

#include <sched.h>

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// Consecutive blocks run on allowed CPUs this many places apart: coprime to the usual CPU
// counts, so a dozen blocks visit a dozen CPUs, not neighbouring hyperthreads in turn.
inline constexpr std::size_t cpu_rotation_stride = 7;

// Moves the calling thread from one of the CPUs it may run on to another. A new process lands
// on whichever CPU the scheduler picks, and what it measures depends on that CPU (its caches,
// its neighbours' load); starting each block of a measurement on another CPU lets that
// variation show within one process. The thread is moved, not held: once there it may run on
// any of its CPUs again, as a new process's thread may, so a block never waits on a CPU the
// scheduler would have left. Destroying the rotation gives back the CPU set it found.
class CpuRotation {
public:
  CpuRotation();
  ~CpuRotation();
  CpuRotation(const CpuRotation&) = delete;
  CpuRotation& operator=(const CpuRotation&) = delete;

  // Moves the thread to the allowed CPU `step` places on (steps beyond the last wrap around).
  // Where the thread may run on only one CPU, or the system refuses, the thread stays put:
  // the measurement stands, with less of that variation in it.
  void move_to(std::size_t step) const;

  [[nodiscard]] std::size_t cpus() const noexcept { return cpus_.size(); }

private:
  cpu_set_t allowed_{};
  bool known_ = false;
  std::vector<int> cpus_;
};

} // namespace gpubench::bench
