// The images are byte arrays cmake/embed.cmake generated at build time (see CMakeLists.txt).
#include "embedded_images.hpp"

namespace {
#include "saxpy_fatbin.inc"
#include "saxpy_ptx.inc"
} // namespace

namespace gpubench {

std::span<const unsigned char> saxpy_fatbin() {
  return {reinterpret_cast<const unsigned char*>(saxpy_fatbin_image), sizeof(saxpy_fatbin_image)};
}

const char* saxpy_ptx() { return reinterpret_cast<const char*>(saxpy_ptx_image); }

} // namespace gpubench
