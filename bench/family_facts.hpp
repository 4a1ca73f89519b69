#pragma once

#include "family.hpp"

#include <string>
#include <vector>

namespace gpubench::bench {

// The facts `families` declare, as the JSON object of docs/family-facts.md: what
// `gpubench --describe` prints and every result file's context holds under gpubench_families.
// Flags shared by several families (--sizes) are listed with each of them.
[[nodiscard]] std::string family_facts_json(const std::vector<Family>& families);

} // namespace gpubench::bench
