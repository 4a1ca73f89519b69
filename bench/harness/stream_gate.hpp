#pragma once

#include "memory.hpp"

#include <cuda.h>

namespace gpubench::bench {

// Holds one or more streams behind a kernel that spins until the host releases it, so a batch
// of queued work starts back to back on the GPU instead of trickling in as the host enqueues
// it: event times then measure the GPU, not the host's enqueue rate (nvbench's blocking
// kernel, nvbandwidth's spin kernel). Only for work the driver queues without waiting on the
// stream: a pageable copy would wait for the gate and deadlock until the timeout. The flags are
// portable mapped memory, so one gate holds streams of several devices (each stream's device
// must be current when hold() is called for it).
class StreamGate {
public:
  StreamGate();
  void hold(CUstream stream);
  void release();
  // After the held work finished: throws if a gate gave up waiting before release().
  void throw_if_timed_out() const;

private:
  PinnedHostBuffer flags_;
  int held_ = 0;
};

} // namespace gpubench::bench
