#include "random_fill.hpp"

#include "parallel.hpp"

#include <cstring>

namespace gpubench {

std::uint64_t random_word(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

void fill_random(std::span<float> values, std::uint64_t seed, std::uint64_t first) {
  parallel_chunks(values.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      // 24 random bits give every float in [-1, 1) on a 2^-23 grid; odd numerators exclude 0.
      const auto bits = static_cast<std::int32_t>(random_word(seed, first + i) >> 40U) | 1;
      values[i] = static_cast<float>(bits - (1 << 23)) * 0x1p-23F;
    }
  });
}

void fill_random(std::span<std::byte> bytes, std::uint64_t seed) {
  const std::size_t words = bytes.size() / sizeof(std::uint64_t);
  parallel_chunks(words + 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t w = begin; w < end; ++w) {
      const std::uint64_t word = random_word(seed, w);
      const std::size_t offset = w * sizeof(word);
      if (offset < bytes.size()) {
        std::memcpy(bytes.data() + offset, &word, std::min(sizeof(word), bytes.size() - offset));
      }
    }
  });
}

} // namespace gpubench
