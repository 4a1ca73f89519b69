#pragma once

#include "memory.hpp"

#include <cuda.h>

#include <cstddef>

namespace gpubench::bench {

class Session;

// Evicts the L2 before a timed launch by writing a device buffer the L2's size, so a small
// working set is read from memory, not from a cache the previous iteration warmed. One L2's
// worth of writes, as nvbench flushes: it displaces what the timed work left in the L2 at half
// the cost of writing twice the L2 (the flush is most of a small benchmark's time).
class L2Flusher {
public:
  explicit L2Flusher(std::size_t l2_bytes);
  // One L2 of the session's device.
  explicit L2Flusher(Session& session);
  void flush(CUstream stream) const;

private:
  DeviceBuffer buffer_;
};

} // namespace gpubench::bench
