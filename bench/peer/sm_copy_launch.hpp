#pragma once

#include <cuda.h>

#include <cstddef>

namespace gpubench::bench {

// Launches sm_copy on `stream` (whose device must be current) over `bytes`, with a grid that
// keeps every SM busy and no more blocks than the work needs.
void sm_copy_launch(CUdeviceptr src, CUdeviceptr dst, std::size_t bytes, int sm_count,
                    CUstream stream);

} // namespace gpubench::bench
