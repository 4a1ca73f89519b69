#include "paired_ratio.hpp"

#include "student_t.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

// The middle of `values`, the mean of the two middles for an even count. Taken over logarithms
// of ratios, a block's ratio of b to a is then exactly the reciprocal of its ratio of a to b
// (median.hpp's upper middle would not be).
double centred_median(std::vector<double>& values) {
  const auto half = static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), values.begin() + half, values.end());
  const double upper = values[static_cast<std::size_t>(half)];
  if (values.size() % 2 == 1) {
    return upper;
  }
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + half));
}

double round_ratio(double numerator, double denominator) {
  if (!(std::isfinite(numerator) && numerator > 0.0 && std::isfinite(denominator) &&
        denominator > 0.0)) {
    throw std::invalid_argument("a paired ratio needs finite, positive times");
  }
  return numerator / denominator;
}

// The logarithm of each block's median round ratio.
std::vector<double> block_log_ratios(std::span<const double> numerator,
                                     std::span<const double> denominator,
                                     std::span<const std::size_t> block_sizes) {
  if (numerator.size() != denominator.size()) {
    throw std::invalid_argument("a paired ratio needs the same rounds on both sides");
  }
  if (block_sizes.size() < 2) {
    throw std::invalid_argument("a paired ratio needs at least two blocks of rounds");
  }
  if (std::ranges::find(block_sizes, std::size_t{0}) != block_sizes.end() ||
      std::accumulate(block_sizes.begin(), block_sizes.end(), std::size_t{0}) != numerator.size()) {
    throw std::invalid_argument("a paired ratio's blocks must each hold rounds and cover them all");
  }
  std::vector<double> logs;
  logs.reserve(block_sizes.size());
  std::vector<double> ratios; // logarithms of the block's round ratios
  std::size_t first = 0;
  for (const std::size_t size : block_sizes) {
    ratios.clear();
    for (std::size_t i = first; i < first + size; ++i) {
      ratios.push_back(std::log(round_ratio(numerator[i], denominator[i])));
    }
    logs.push_back(centred_median(ratios));
    first += size;
  }
  return logs;
}

} // namespace

RatioInterval paired_ratio(std::span<const double> numerator, std::span<const double> denominator,
                           std::span<const std::size_t> block_sizes, double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("a confidence interval needs a confidence in (0, 1)");
  }
  const std::vector<double> logs = block_log_ratios(numerator, denominator, block_sizes);
  const auto blocks = static_cast<double>(logs.size());
  const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / blocks;
  double squares = 0.0;
  for (const double value : logs) {
    squares += (value - mean) * (value - mean);
  }
  const double standard_error = std::sqrt(squares / (blocks - 1.0) / blocks);
  const double half_width =
      student_t_critical(confidence, static_cast<int>(logs.size()) - 1) * standard_error;
  return {std::exp(mean), std::exp(mean - half_width), std::exp(mean + half_width)};
}

bool difference_resolved(const RatioInterval& ratio, const RatioInterval& same_path) {
  const double band_lo = std::min(1.0, same_path.lo);
  const double band_hi = std::max(1.0, same_path.hi);
  return ratio.lo > band_hi || ratio.hi < band_lo;
}

} // namespace gpubench
