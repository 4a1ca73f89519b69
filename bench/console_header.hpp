#pragma once

#include <string>
#include <vector>

namespace gpubench::bench {

// What a run measures, printed before it starts: per device its name, ordinal and UUID, the
// driver and CUDA versions, the SM and memory clocks now and the PCIe link (sessions open).
[[nodiscard]] std::string console_header(const std::vector<int>& devices);

// Why Google Benchmark's "Library was built as DEBUG" warning does not apply to gpubench's
// figures, for where the warning appears.
[[nodiscard]] const char* debug_library_note();

} // namespace gpubench::bench
