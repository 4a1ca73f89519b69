#pragma once

#include <sched.h>

namespace gpubench {

// Keeps the calling thread on the CPU it runs on now, for the scope's lifetime, then gives it
// back the CPUs it had. Host-side launch costs are a few microseconds of driver code: a
// migration to another CPU (cold caches, another core's clock) moves them by several percent.
// Disabled, or where the OS refuses, it does nothing.
class ScopedCpuPin {
public:
  explicit ScopedCpuPin(bool enabled);
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
