#pragma once

#include <cstddef>
#include <span>

namespace gpubench {

// kernels/saxpy.cu as the build embedded it: a fatbin with SASS for every architecture from
// sm_75 up and PTX for the newest, and, separately, NUL-terminated PTX for compute_75 alone so
// the driver must JIT it (what loading PTX would cost a user who shipped no SASS).
[[nodiscard]] std::span<const unsigned char> saxpy_fatbin();
[[nodiscard]] const char* saxpy_ptx();

} // namespace gpubench
