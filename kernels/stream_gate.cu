#include "global_timer.cuh"
#include "stream_gate.cuh"

__global__ void stream_gate(const volatile int* release, unsigned long long timeout_ns,
                            int* timed_out) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}
