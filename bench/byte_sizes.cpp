#include "byte_sizes.hpp"

#include "options.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace gpubench::bench {

FamilyFlag sizes_flag() {
  return {"--sizes", "4B..1GiB:x4",
          "copy and peer sizes: a list or ranges, e.g. 4K,1M,256M or 1K..1G:x2",
          [](std::string_view value) { static_cast<void>(byte_size_args(value)); }};
}

std::vector<std::int64_t> byte_size_args(std::string_view value, std::string_view flag) {
  try {
    std::vector<std::int64_t> args;
    for (const std::size_t bytes : parse_size_list(value)) {
      if (bytes > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
        throw std::invalid_argument(fmt::format("{} bytes is too large", bytes));
      }
      args.push_back(static_cast<std::int64_t>(bytes));
    }
    return args;
  } catch (const std::invalid_argument& error) {
    throw UsageError(fmt::format("{}={}: {}", flag, value, error.what()));
  }
}

} // namespace gpubench::bench
