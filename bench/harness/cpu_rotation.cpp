#include "cpu_rotation.hpp"

namespace gpubench::bench {

CpuRotation::CpuRotation() {
  CPU_ZERO(&allowed_);
  known_ = sched_getaffinity(0, sizeof(allowed_), &allowed_) == 0;
  if (!known_) {
    return;
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed_)) {
      cpus_.push_back(cpu);
    }
  }
}

CpuRotation::~CpuRotation() {
  if (known_ && cpus_.size() > 1) {
    static_cast<void>(sched_setaffinity(0, sizeof(allowed_), &allowed_));
  }
}

void CpuRotation::move_to(std::size_t step) const {
  if (cpus_.size() < 2) {
    return;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus_[step % cpus_.size()], &one);
  // Linux migrates the thread before sched_setaffinity returns; widening the set again leaves
  // it on that CPU until the scheduler has a reason to move it.
  if (sched_setaffinity(0, sizeof(one), &one) == 0) {
    static_cast<void>(sched_setaffinity(0, sizeof(allowed_), &allowed_));
  }
}

} // namespace gpubench::bench
