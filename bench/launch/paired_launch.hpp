#pragma once

#include <cstdint>
#include <vector>

namespace gpubench::bench {

class Registry;

// launch/paired/submit/params:<bytes>: every launch path at one payload, timed in the same
// rounds, and each path's cost as a ratio to the others with a 95% confidence interval.
void register_paired_launches(Registry& registry, const std::vector<std::int64_t>& payloads);

} // namespace gpubench::bench
