#include "host_bytes.hpp"

#include "parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace gpubench {

void parallel_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
  parallel_chunks(bytes, [=](std::size_t begin, std::size_t end) {
    std::memcpy(dst + begin, src + begin, end - begin);
  });
}

void parallel_fill(std::byte* dst, unsigned char value, std::size_t bytes) {
  parallel_chunks(bytes, [=](std::size_t begin, std::size_t end) {
    std::memset(dst + begin, value, end - begin);
  });
}

std::optional<std::string> compare_bytes(const std::byte* data, const std::byte* expected,
                                         std::size_t bytes, const char* where) {
  std::atomic<bool> equal{true};
  parallel_chunks(bytes, [&](std::size_t begin, std::size_t end) {
    if (std::memcmp(data + begin, expected + begin, end - begin) != 0) {
      equal = false;
    }
  });
  if (equal) {
    return std::nullopt;
  }
  const auto mismatch = std::mismatch(data, data + bytes, expected);
  return fmt::format("{} destination differs at byte {} of {}: expected {:#04x}, got {:#04x}",
                     where, mismatch.first - data, bytes, static_cast<unsigned>(*mismatch.second),
                     static_cast<unsigned>(*mismatch.first));
}

} // namespace gpubench
