#pragma once

#include "capacity.hpp"
#include "memory.hpp"

#include <cstddef>
#include <optional>

namespace gpubench::bench {

// The managed family's buffers beside each benchmark's managed one, for the largest size so far
// (smaller sizes use a prefix): the random bytes every managed buffer is written with, a device
// buffer the kernel's reads are copied into, a pinned readback of it, and a host buffer the
// host's reads are copied into.
struct ManagedBytes {
  // Grows every buffer to `bytes` when it is smaller.
  void ensure_capacity(std::size_t bytes);

  Capacity capacity;
  std::optional<PageableHostBuffer> expected;
  std::optional<DeviceBuffer> device_copy;
  std::optional<PinnedHostBuffer> readback;
  std::optional<PageableHostBuffer> host_copy;
};

} // namespace gpubench::bench
