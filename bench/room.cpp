#include "room.hpp"

#include "memory.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

namespace gpubench::bench {

std::optional<std::string> room_for(std::string_view what, std::size_t bytes,
                                    std::size_t held_bytes, Regions regions) {
  if (bytes <= held_bytes) {
    return std::nullopt;
  }
  const std::size_t free_bytes = free_device_bytes() + regions.device * held_bytes;
  if (bytes > free_bytes / regions.device) {
    return fmt::format("{}: {} x {} of device memory needed, {} is free", what, regions.device,
                       format_size(bytes), format_size(free_bytes));
  }
  const std::size_t host_bytes = host_memory_bytes();
  if (bytes > host_bytes / 2 / regions.host) {
    return fmt::format("{}: {} x {} of host memory needed, at most half the machine's {}", what,
                       regions.host, format_size(bytes), format_size(host_bytes));
  }
  return std::nullopt;
}

} // namespace gpubench::bench
