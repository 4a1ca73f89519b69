#include "cpu_pin.hpp"

namespace gpubench {

ScopedCpuPin::ScopedCpuPin(bool enabled) {
  if (!enabled || sched_getaffinity(0, sizeof(previous_), &previous_) != 0) {
    return;
  }
  const int cpu = sched_getcpu();
  if (cpu < 0) {
    return;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof(one), &one) == 0) {
    cpu_ = cpu;
  }
}

ScopedCpuPin::~ScopedCpuPin() {
  if (cpu_ >= 0) {
    sched_setaffinity(0, sizeof(previous_), &previous_);
  }
}

} // namespace gpubench
