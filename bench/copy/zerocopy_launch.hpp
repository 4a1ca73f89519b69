#pragma once

#include <cuda.h>

#include <cstddef>

namespace gpubench::bench {

// Launches zerocopy_copy over `bytes` with enough blocks to keep many PCIe reads in flight.
void zerocopy_launch(const unsigned char* src, unsigned char* dst, std::size_t bytes, int sm_count,
                     CUstream stream);

} // namespace gpubench::bench
