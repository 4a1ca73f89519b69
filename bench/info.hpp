#pragma once

#include <cstdio>
#include <vector>

namespace gpubench::bench {

// `gpubench --info`: the devices the driver sees, each with its health (NVML), and, loaded on
// the first of `devices`, every embedded kernel's resource usage as the driver reports it.
// Throws CudaError.
void print_info(std::FILE* out, const std::vector<int>& devices);

} // namespace gpubench::bench
