#pragma once

#include "capacity.hpp"
#include "memory.hpp"

#include <cstddef>
#include <optional>

namespace gpubench::bench {

// The batch family's regions, for the largest run so far (smaller layouts use a prefix).
// `expected` holds the random bytes every source region holds: the host region before an HtoD
// batch, `device_source` always. The host region is mapped, so the gather kernel reads or
// writes it across PCIe as the copy engines do.
struct BatchBuffers {
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
