#pragma once

#include "capacity.hpp"
#include "memory.hpp"

#include <cstddef>
#include <optional>

namespace gpubench::bench {

class Session;

// The random bytes every peer copy must deliver, and where destinations are read back to check
// them; kept in the first device's session, for the largest size run so far.
struct PeerExpected {
  explicit PeerExpected(Session&) {}
  void ensure_capacity(std::size_t bytes);
  Capacity capacity;
  std::optional<PageableHostBuffer> expected;
  std::optional<PinnedHostBuffer> readback;
};

// One device's side of peer copies: a source holding the expected bytes and a destination; kept
// in that device's session (whose context must be current to grow them).
struct PeerBuffers {
  explicit PeerBuffers(Session&) {}
  void ensure_capacity(std::size_t bytes, const PeerExpected& expected);
  Capacity capacity;
  std::optional<DeviceBuffer> source;
  std::optional<DeviceBuffer> destination;
};

} // namespace gpubench::bench
