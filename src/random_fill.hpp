#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpubench {

// Counter-based random numbers (splitmix64 of seed and index): element i is the same whatever
// the chunking, so fills run in parallel and stay reproducible for a given seed.
[[nodiscard]] std::uint64_t random_word(std::uint64_t seed, std::uint64_t index) noexcept;

// Uniform in [-1, 1), never exactly zero, so an unwritten output or a dropped term shows.
// values[k] is element first + k of the seed's sequence, so a long sequence can be filled, or
// one of its elements found again, a piece at a time.
void fill_random(std::span<float> values, std::uint64_t seed, std::uint64_t first = 0);

void fill_random(std::span<std::byte> bytes, std::uint64_t seed);

} // namespace gpubench
