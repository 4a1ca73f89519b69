#include "copy_sizes.hpp"

#include "options.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>
#include <stdexcept>

namespace gpubench::bench {
namespace {
std::optional<std::vector<std::size_t>>& chosen_sizes() {
  static std::optional<std::vector<std::size_t>> sizes;
  return sizes;
}
} // namespace

std::vector<std::size_t> default_copy_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 4; bytes <= std::size_t{1} << 30; bytes *= 4) {
    sizes.push_back(bytes);
  }
  return sizes;
}

const std::vector<std::size_t>& copy_sizes() {
  static const std::vector<std::size_t> defaults = default_copy_sizes();
  return chosen_sizes() ? *chosen_sizes() : defaults;
}

FamilyFlag copy_sizes_flag() {
  return {"--sizes", "4B..1GiB:x4", "copy and peer sizes: a list or ranges, e.g. 4K,1M,256M or 1K..1G:x2",
          [](std::string_view value) {
            try {
              std::vector<std::size_t> sizes = parse_size_list(value);
              for (const std::size_t bytes : sizes) {
                if (bytes > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
                  throw std::invalid_argument(fmt::format("{} bytes is too large", bytes));
                }
              }
              chosen_sizes() = std::move(sizes);
            } catch (const std::invalid_argument& error) {
              throw UsageError(fmt::format("--sizes={}: {}", value, error.what()));
            }
          }};
}

std::vector<std::int64_t> copy_size_args() {
  std::vector<std::int64_t> args;
  for (const std::size_t bytes : copy_sizes()) {
    args.push_back(static_cast<std::int64_t>(bytes));
  }
  return args;
}

} // namespace gpubench::bench
