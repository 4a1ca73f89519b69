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

} // namespace gpubench
