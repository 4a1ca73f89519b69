#include "host_bytes.hpp"

#include "parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

std::optional<std::size_t> first_byte_not(const std::byte* data, std::size_t bytes,
                                          unsigned char value) {
  // memcmp against a block of the value runs at memory speed, where a byte loop would not.
  constexpr std::size_t block_bytes = std::size_t{1} << 16;
  static thread_local std::array<std::byte, block_bytes> values{};
  static thread_local int filled_with = -1;
  if (filled_with != value) {
    values.fill(static_cast<std::byte>(value));
    filled_with = value;
  }
  for (std::size_t begin = 0; begin < bytes; begin += block_bytes) {
    const std::size_t n = std::min(block_bytes, bytes - begin);
    if (std::memcmp(data + begin, values.data(), n) != 0) {
      for (std::size_t i = begin; i < begin + n; ++i) {
        if (data[i] != static_cast<std::byte>(value)) {
          return i;
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace gpubench
