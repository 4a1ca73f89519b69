#include "cpu_pin.hpp"

namespace gpubench {

int quiet_cpu() {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    return -1;
  }
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu) {
    if (CPU_ISSET(cpu, &allowed)) {
      return cpu;
    }
  }
  return -1;
}

ScopedCpuPin::ScopedCpuPin(int cpu) {
  if (cpu < 0 || sched_getaffinity(0, sizeof(previous_), &previous_) != 0) {
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
