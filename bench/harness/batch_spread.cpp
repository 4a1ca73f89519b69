#include "batch_spread.hpp"

#include "median.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace gpubench::bench {
namespace {
// The median absolute deviation times this estimates the standard deviation of normal noise.
constexpr double mad_to_sigma = 1.4826;
} // namespace

BatchSpread batch_spread(const std::vector<double>& batch_seconds) {
  BatchSpread spread;
  spread.median_seconds = median(batch_seconds);
  spread.mean_seconds = std::accumulate(batch_seconds.begin(), batch_seconds.end(), 0.0) /
                        static_cast<double>(batch_seconds.size());
  std::vector<double> deviations;
  deviations.reserve(batch_seconds.size());
  for (const double seconds : batch_seconds) {
    deviations.push_back(std::abs(seconds - spread.median_seconds));
  }
  const double mad = median(std::move(deviations));
  if (mad == 0.0) {
    spread.relative_spread = 0.0;
  } else if (spread.median_seconds <= 0.0) {
    spread.relative_spread = std::numeric_limits<double>::infinity();
  } else {
    spread.relative_spread = mad_to_sigma * mad / spread.median_seconds;
  }
  return spread;
}

double median_relative_error(double relative_spread, std::size_t batches) {
  if (batches == 0) {
    return std::numeric_limits<double>::infinity();
  }
  return std::sqrt(std::numbers::pi / 2.0) * relative_spread /
         std::sqrt(static_cast<double>(batches));
}

} // namespace gpubench::bench
