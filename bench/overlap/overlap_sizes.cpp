#include "overlap_sizes.hpp"

#include "byte_sizes.hpp"
#include "options.hpp"

#include <fmt/format.h>

#include <string>

namespace gpubench::bench {
namespace {
constexpr std::string_view sizes_name = "--overlap-sizes";
} // namespace

std::vector<std::int64_t> overlap_size_args(std::string_view value) {
  std::vector<std::int64_t> sizes = byte_size_args(value, sizes_name);
  for (const std::int64_t size : sizes) {
    if (size % static_cast<std::int64_t>(sizeof(float)) != 0) {
      throw UsageError(fmt::format("{}={}: {} bytes is not a whole number of 4-byte floats",
                                   sizes_name, value, size));
    }
  }
  return sizes;
}

FamilyFlag overlap_sizes_flag() {
  return {std::string(sizes_name), "1M,64M",
          "overlap bytes a stream, each a multiple of 4: a list or ranges, e.g. 1M,64M or "
          "1M..256M:x4",
          [](std::string_view value) { static_cast<void>(overlap_size_args(value)); }};
}

} // namespace gpubench::bench
