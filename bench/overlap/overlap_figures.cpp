#include "overlap_figures.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gpubench::bench {
namespace {
void require_positive(const std::vector<double>& seconds, const char* what) {
  if (seconds.empty()) {
    throw std::invalid_argument(std::string(what) + ": no streams");
  }
  if (!std::ranges::all_of(seconds, [](double s) { return s > 0.0 && std::isfinite(s); })) {
    throw std::invalid_argument(std::string(what) + ": a time that is not positive");
  }
}
} // namespace

std::vector<std::size_t> ops_per_round(const std::vector<double>& op_seconds) {
  require_positive(op_seconds, "ops_per_round");
  const double round = std::max(least_round_seconds, std::ranges::max(op_seconds));
  std::vector<std::size_t> ops;
  for (const double seconds : op_seconds) {
    const double wanted = std::round(round / seconds);
    ops.push_back(
        static_cast<std::size_t>(std::clamp(wanted, 1.0, static_cast<double>(most_ops_per_round))));
  }
  return ops;
}

OverlapFigures overlap_figures(const std::vector<double>& alone_seconds,
                               const std::vector<double>& together_seconds, double wall_seconds) {
  require_positive(alone_seconds, "overlap_figures");
  require_positive(together_seconds, "overlap_figures");
  require_positive({wall_seconds}, "overlap_figures");
  if (alone_seconds.size() != together_seconds.size()) {
    throw std::invalid_argument("overlap_figures: alone and together list other streams");
  }
  const double alone_sum = std::accumulate(alone_seconds.begin(), alone_seconds.end(), 0.0);
  OverlapFigures figures;
  figures.overlap = alone_sum / wall_seconds;
  figures.overlap_ideal = alone_sum / std::ranges::max(alone_seconds);
  for (std::size_t i = 0; i < alone_seconds.size(); ++i) {
    figures.pct_of_alone.push_back(100.0 * alone_seconds[i] / together_seconds[i]);
  }
  figures.slowest_pct_of_alone = std::ranges::min(figures.pct_of_alone);
  return figures;
}

} // namespace gpubench::bench
