#include "chase_sizes.hpp"

#include "chase_ring.hpp"
#include "options.hpp"
#include "sizes.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gpubench::bench {
namespace {

FamilyFlag chase_sizes_flag(const char* name, const char* default_value, const char* help) {
  FamilyFlag flag{name, default_value, help, {}};
  flag.check = [flag](std::string_view value) { static_cast<void>(chase_size_args(flag, value)); };
  return flag;
}

} // namespace

FamilyFlag device_sizes_flag() {
  return chase_sizes_flag("--latency-sizes", "4K..16M:x2,24M,32M,40M,48M,64M..1G:x2",
                          "latency/chase/device sizes: a list or ranges of whole 128-byte "
                          "slots, e.g. 4K,1M,256M or 4K..1G:x2");
}

// Links start past the L1: a plain load caches host and peer memory in the SM's L1, so a cycle
// that fits there is chased from it after its first lap, not over the link (on the H200 a load
// from the L1 takes 16 ns, one from 2 MiB of pinned host memory 1190 ns:
// results/h200/suite/suite.json).
FamilyFlag link_sizes_flag() {
  return chase_sizes_flag("--latency-link-sizes", "2M,64M",
                          "latency/chase/host_pinned and peer sizes: a list or ranges of whole "
                          "128-byte slots, e.g. 4K,2M");
}

std::vector<std::int64_t> chase_size_args(const FamilyFlag& flag, std::string_view value) {
  try {
    std::vector<std::int64_t> args;
    for (const std::size_t bytes : parse_size_list(value)) {
      if (bytes % chase_slot_bytes != 0) {
        throw std::invalid_argument(fmt::format("{} is not a whole number of {}-byte slots",
                                                format_size(bytes), chase_slot_bytes));
      }
      const std::size_t slots = bytes / chase_slot_bytes;
      if (slots < ChaseRing::min_slots || slots > ChaseRing::max_slots) {
        throw std::invalid_argument(
            fmt::format("{} is outside what a chase takes, {} to {}", format_size(bytes),
                        format_size(ChaseRing::min_slots * chase_slot_bytes),
                        format_size(ChaseRing::max_slots * chase_slot_bytes)));
      }
      args.push_back(static_cast<std::int64_t>(bytes));
    }
    return args;
  } catch (const std::invalid_argument& error) {
    throw UsageError(fmt::format("{}={}: {}", flag.name, value, error.what()));
  }
}

} // namespace gpubench::bench
