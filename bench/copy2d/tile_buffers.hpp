#pragma once

#include "capacity.hpp"
#include "memory.hpp"

#include <cstddef>
#include <optional>

namespace gpubench::bench {

// The copy2d family's regions, for the largest run so far (smaller tiles use a prefix).
// `expected` holds the random bytes every source region holds: the host region before an HtoD
// copy, `device_source` always.
struct TileBuffers {
  // Grows every region to `bytes` when it is smaller.
  void ensure_capacity(std::size_t bytes);

  Capacity capacity;
  std::optional<PageableHostBuffer> expected;
  std::optional<DeviceBuffer> device_source;      // DtoH's source: the expected bytes
  std::optional<DeviceBuffer> device_destination; // HtoD's destination
  std::optional<PinnedHostBuffer> host;           // HtoD's source, DtoH's destination
  std::optional<PinnedHostBuffer> readback;       // HtoD's destination, read back to check it
};

} // namespace gpubench::bench
