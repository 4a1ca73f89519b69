#include "saxpy_reference.hpp"

#include "parallel.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>

namespace gpubench {

void saxpy_reference(float alpha, std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = std::fmaf(alpha, x[i], y[i]);
  }
}

std::optional<SaxpyMismatch> find_saxpy_mismatch(float alpha, std::span<const float> x,
                                                 std::span<const float> y_before,
                                                 std::span<const float> y_after,
                                                 std::size_t applications) {
  std::mutex mutex;
  std::optional<SaxpyMismatch> first;
  parallel_chunks(y_after.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      float expected = y_before[i];
      for (std::size_t k = 0; k < applications; ++k) {
        expected = std::fmaf(alpha, x[i], expected);
      }
      if (!(y_after[i] == expected)) {
        const std::scoped_lock lock(mutex);
        if (!first || i < first->index) {
          first = SaxpyMismatch{i, expected, y_after[i]};
        }
        return;
      }
    }
  });
  return first;
}

std::string describe(const SaxpyMismatch& mismatch, std::size_t n) {
  return fmt::format("saxpy result wrong at element {} of {}: expected {:.9g}, got {:.9g}",
                     mismatch.index, n, mismatch.expected, mismatch.actual);
}

} // namespace gpubench
