#pragma once

#include <string>
#include <vector>

namespace gpubench::bench {

// The text of `gpubench --info`: the devices the driver sees, each with its health (NVML), and,
// loaded on the first of `devices`, every embedded kernel's resource usage as the driver reports
// it. Throws CudaError.
[[nodiscard]] std::string info_text(const std::vector<int>& devices);

} // namespace gpubench::bench
