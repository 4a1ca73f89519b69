#pragma once

#include "memory.hpp"
#include "pin_apis.hpp"

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>

namespace gpubench::bench {

// What a benchmark checks its pinned memory with: the random bytes a copy must carry, the device
// memory it carries them to, and, for write-combined memory (which the CPU must not read), a
// host buffer the bytes are read back into through the device.
struct PinCheckBuffers {
  PinCheckBuffers(std::size_t bytes, bool write_combined);

  std::size_t bytes;
  PageableHostBuffer expected;
  DeviceBuffer device;
  std::optional<PageableHostBuffer> readback;
};

// Why `pinned` is not memory that `api` page-locked, if it is not: the runtime must call it
// host memory (cudaPointerGetAttributes), report the API's flags (cudaHostGetFlags) and, for
// mapped memory, a device address (cudaHostGetDevicePointer).
[[nodiscard]] std::optional<std::string> pinned_mismatch(const PinApi& api, void* pinned);

// Why `address`, unregistered, still reads as page-locked, if it does.
[[nodiscard]] std::optional<std::string> released_mismatch(const void* address);

// A real copy through the pinned memory: its random bytes to the device (cudaMemcpyAsync), the
// memory poisoned, the bytes back from the device; where any byte differs, if one does.
[[nodiscard]] std::optional<std::string> round_trip_mismatch(const PinApi& api, std::byte* pinned,
                                                             PinCheckBuffers& buffers,
                                                             CUstream stream);

} // namespace gpubench::bench
