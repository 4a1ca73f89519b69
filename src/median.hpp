#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace gpubench {

// The middle value (the upper of the two middles for an even count): the figure a rare slow
// sample (an interrupt, a preempted thread) does not move.
[[nodiscard]] inline double median(std::vector<double> values) {
  if (values.empty()) {
    throw std::invalid_argument("median of no values");
  }
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// The q-quantile (0..1) of `values`, by the nearest rank: 0.99 is the 99th percentile.
[[nodiscard]] inline double quantile(std::vector<double> values, double q) {
  if (values.empty()) {
    throw std::invalid_argument("quantile of no values");
  }
  if (!(q >= 0.0 && q <= 1.0)) {
    throw std::invalid_argument("a quantile outside 0..1");
  }
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

} // namespace gpubench
