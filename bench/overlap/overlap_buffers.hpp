#pragma once

#include "capacity.hpp"
#include "memory.hpp"
#include "stream.hpp"
#include "stream_combos.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <span>

namespace gpubench::bench {

// The overlap family's streams and regions on one device, for the largest size so far (smaller
// sizes use a prefix). Each of the max_streams copy slots has a pinned host region and a device
// region; `expected` holds a slot's random bytes in its slot_bytes() stretch (every slot's
// differ, so a copy from the wrong slot shows). The saxpy's x and y start from random floats
// kept on the host, y's also on the device (y0) to restore y before its check.
struct OverlapBuffers {
  // Grows every region to `bytes` a slot (bytes / 4 floats for the saxpy) when it is smaller.
  void ensure_capacity(std::size_t bytes);

  // Slot `slot`'s random bytes, the first `bytes` of them.
  [[nodiscard]] const std::byte* expected_slot(std::size_t slot) const;
  [[nodiscard]] std::span<const float> x_host(std::size_t n) const;
  [[nodiscard]] std::span<const float> y0_host(std::size_t n) const;

  // One non-blocking stream a slot: a round runs each work on its own.
  std::array<Stream, max_streams> streams;
  Capacity capacity; // bytes a slot
  std::optional<PageableHostBuffer> expected;
  std::array<std::optional<PinnedHostBuffer>, max_streams> host;
  std::array<std::optional<DeviceBuffer>, max_streams> device;
  std::optional<PinnedHostBuffer> readback; // a device region read back to be checked
  std::optional<PageableHostBuffer> x;      // the saxpy's inputs on the host, as floats
  std::optional<PageableHostBuffer> y0;
  std::optional<DeviceBuffer> dx;
  std::optional<DeviceBuffer> dy;
  std::optional<DeviceBuffer> dy0;
  std::optional<PinnedHostBuffer> result; // the saxpy's y read back to be checked
};

} // namespace gpubench::bench
