#pragma once

#include <cstdio>

namespace gpubench::bench {

// `gpubench --info`: the devices the driver sees and, loaded on device `ordinal`, every
// embedded kernel's resource usage as the driver reports it. Throws CudaError.
void print_info(std::FILE* out, int ordinal);

} // namespace gpubench::bench
