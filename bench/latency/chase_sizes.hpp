#pragma once

#include "family.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpubench::bench {

// --latency-sizes=LIST: the sizes of device memory the chase runs through. The default steps
// from inside the L1 (256 KiB per SM with shared memory, by NVIDIA's Hopper whitepaper) through
// the L2 (60 MiB on the H200, its context's l2_bytes, in two partitions: a load takes 139 ns at
// 24 MiB, as in the near partition, and 190-245 ns at 32, 40 and 48 MiB, spilling into the far
// one: results/h200/latency/latency.json) to 1 GiB, 17 times the L2, where every load comes
// from HBM.
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
