#include "page_order.hpp"

#include "random_fill.hpp"

#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

namespace gpubench::bench {

const char* page_order_name(PageOrder order) noexcept {
  return order == PageOrder::sequential ? "sequential" : "random";
}

std::optional<std::size_t> granule_count(std::size_t bytes, std::size_t granule_bytes) noexcept {
  if (bytes == 0 || granule_bytes == 0) {
    return std::nullopt;
  }
  const std::size_t count = bytes / granule_bytes + (bytes % granule_bytes == 0 ? 0 : 1);
  if (count > std::numeric_limits<std::uint32_t>::max()) {
    return std::nullopt;
  }
  return count;
}

std::vector<std::uint32_t> page_walk(std::size_t count, PageOrder order, std::uint64_t seed) {
  std::vector<std::uint32_t> walk(count);
  std::iota(walk.begin(), walk.end(), std::uint32_t{0});
  if (order == PageOrder::random) {
    for (std::size_t i = count; i > 1; --i) {
      const std::size_t j = random_word(seed, i) % i;
      std::swap(walk[i - 1], walk[j]);
    }
  }
  return walk;
}

} // namespace gpubench::bench
