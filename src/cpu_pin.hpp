#pragma once

#include <sched.h>

namespace gpubench {

// The CPU gpubench times host-side work on: the highest-numbered one the thread may run on now
// (Linux steers most interrupts to the low-numbered CPUs), or -1 if the OS says none.
[[nodiscard]] int quiet_cpu();

// Holds the calling thread on `cpu` for the scope's lifetime, then gives it back the CPUs it
// had. Host-side launch and pageable-copy costs are driver code on one thread: run on a
// different CPU from one run to the next (another core's clock, cold caches, a busy sibling),
// they differ by several percent. With cpu < 0, or where the OS refuses, it does nothing.
class ScopedCpuPin {
public:
  explicit ScopedCpuPin(int cpu);
  ScopedCpuPin(const ScopedCpuPin&) = delete;
  ScopedCpuPin& operator=(const ScopedCpuPin&) = delete;
  ScopedCpuPin(ScopedCpuPin&&) = delete;
  ScopedCpuPin& operator=(ScopedCpuPin&&) = delete;
  ~ScopedCpuPin();

  // The CPU the thread is held on, or -1 where it is not pinned.
  [[nodiscard]] int cpu() const noexcept { return cpu_; }

private:
  cpu_set_t previous_{};
  int cpu_ = -1;
};

} // namespace gpubench
