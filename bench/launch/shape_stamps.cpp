#include "shape_stamps.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "memory.hpp"
#include "outcome.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace gpubench::bench {
namespace {
CUdeviceptr shape_global(const char* name) {
  return kernel_module_global(reinterpret_cast<const void*>(launch_shape_stamp), name);
}
} // namespace

ShapeStamps::ShapeStamps()
    : launches_(shape_global("gpubench_shape_launches")),
      stamps_(shape_global("gpubench_shape_stamps")) {}

void ShapeStamps::reset() const {
  GPUBENCH_CU(cuCtxSynchronize);
  const unsigned long long zero = 0;
  upload(launches_, &zero, sizeof(zero));
  constexpr auto none = std::numeric_limits<std::uint64_t>::max();
  const std::vector<ShapeStamp> clear(shape_launch_capacity, ShapeStamp{none, 0, 0, 0});
  upload(stamps_, clear.data(), clear.size() * sizeof(ShapeStamp));
}

void ShapeStamps::expect_ran(std::size_t launches, unsigned int blocks) const {
  GPUBENCH_CU(cuCtxSynchronize);
  unsigned long long ran = 0;
  GPUBENCH_CU(cuMemcpyDtoH, &ran, launches_, sizeof(ran));
  // Launches cycle through the slots, so the slots' sums hold every block since the reset.
  unsigned long long blocks_ran = 0;
  unsigned long long intact = 0;
  for (const ShapeStamp& slot : read(shape_launch_capacity)) {
    blocks_ran += slot.blocks;
    intact += slot.intact;
  }
  const unsigned long long expected_blocks = launches * static_cast<unsigned long long>(blocks);
  if (ran != launches || blocks_ran != expected_blocks || intact != expected_blocks) {
    throw VerificationFailure(fmt::format(
        "{} launches of {} blocks made, {} kernels ran {} blocks, {} of them as launched "
        "(parameters, grid, block and dynamic shared memory)",
        launches, blocks, ran, blocks_ran, intact));
  }
}

std::vector<ShapeStamp> ShapeStamps::read(std::size_t n) const {
  if (n > shape_launch_capacity) {
    throw std::logic_error("more shape stamps asked for than the kernel keeps");
  }
  GPUBENCH_CU(cuCtxSynchronize);
  std::vector<ShapeStamp> stamps(n);
  GPUBENCH_CU(cuMemcpyDtoH, stamps.data(), stamps_, n * sizeof(ShapeStamp));
  return stamps;
}

} // namespace gpubench::bench
