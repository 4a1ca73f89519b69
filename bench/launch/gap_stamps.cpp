#include "gap_stamps.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "launch_targets.hpp"
#include "memory.hpp"
#include "outcome.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gpubench::bench {

GapStamps::GapStamps()
    : count_(kernel_module_global(gap_target().symbol, "gpubench_gap_count")),
      stamps_(kernel_module_global(gap_target().symbol, "gpubench_gap_stamps")) {}

unsigned int GapStamps::count() const {
  GPUBENCH_CU(cuCtxSynchronize);
  unsigned int count = 0;
  GPUBENCH_CU(cuMemcpyDtoH, &count, count_, sizeof(count));
  return count;
}

void GapStamps::expect_ran(std::size_t made, std::string_view what) const {
  if (const unsigned int ran = count(); ran != made) {
    throw VerificationFailure(fmt::format("{} {} made, {} kernels ran", made, what, ran));
  }
}

void GapStamps::reset() const {
  GPUBENCH_CU(cuCtxSynchronize);
  const unsigned int zero = 0;
  upload(count_, &zero, sizeof(zero));
}

std::vector<GapStamp> GapStamps::read(std::size_t n) const {
  if (n > gap_stamp_capacity) {
    throw std::logic_error("more gap stamps asked for than the kernel keeps");
  }
  GPUBENCH_CU(cuCtxSynchronize);
  std::vector<GapStamp> stamps(n);
  GPUBENCH_CU(cuMemcpyDtoH, stamps.data(), stamps_, n * sizeof(GapStamp));
  return stamps;
}

} // namespace gpubench::bench
