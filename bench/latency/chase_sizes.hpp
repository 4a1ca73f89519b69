#pragma once

#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --latency-sizes=LIST: the sizes of device memory the chase runs through. The default steps
// from inside the L1 (256 KiB per SM on the H200) through the L2 (50 MiB in two partitions:
// 24, 40 and 48 MiB fall between a partition's share and the whole) to 1 GiB, 20 times the L2,
// where every load comes from HBM.
[[nodiscard]] FamilyFlag device_sizes_flag();

// --latency-link-sizes=LIST: the sizes of memory reached over a link (pinned host memory over
// PCIe, another GPU's memory over NVLink). A load there costs about a microsecond, so a few
// sizes: inside the L1, nvbandwidth's 2 MiB, and past the L2.
[[nodiscard]] FamilyFlag link_sizes_flag();

// A flag's value as benchmark arguments (bytes): each size a whole number, at least 2, of
// 128-byte slots and at most ChaseRing::max_slots of them; throws UsageError naming the flag.
[[nodiscard]] std::vector<std::int64_t> chase_size_args(const FamilyFlag& flag,
                                                        std::string_view value);

} // namespace gpubench::bench
