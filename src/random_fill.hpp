#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpubench {

// Counter-based random numbers (splitmix64 of seed and index): element i is the same whatever
// the chunking, so fills run in parallel and stay reproducible for a given seed.
[[nodiscard]] std::uint64_t random_word(std::uint64_t seed, std::uint64_t index) noexcept;

// Uniform in [-1, 1), never exactly zero, so an unwritten output or a dropped term shows.
void fill_random(std::span<float> values, std::uint64_t seed);

void fill_random(std::span<std::byte> bytes, std::uint64_t seed);

} // namespace gpubench
