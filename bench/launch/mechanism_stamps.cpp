#include "mechanism_stamps.hpp"

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
CUdeviceptr mechanism_global(const char* name) {
  return kernel_module_global(reinterpret_cast<const void*>(launch_mechanism_stamp), name);
}

unsigned long long read_counter(CUdeviceptr counter) {
  unsigned long long value = 0;
  GPUBENCH_CU(cuMemcpyDtoH, &value, counter, sizeof(value));
  return value;
}
} // namespace

MechanismStamps::MechanismStamps()
    : launches_(mechanism_global("gpubench_mechanism_launches")),
      blocks_(mechanism_global("gpubench_mechanism_blocks")),
      intact_(mechanism_global("gpubench_mechanism_intact")),
      stamps_(mechanism_global("gpubench_mechanism_stamps")) {}

void MechanismStamps::reset() const {
  GPUBENCH_CU(cuCtxSynchronize);
  const unsigned long long zero = 0;
  for (const CUdeviceptr counter : {launches_, blocks_, intact_}) {
    upload(counter, &zero, sizeof(zero));
  }
  constexpr auto none = std::numeric_limits<std::uint64_t>::max();
  const std::vector<MechanismStamp> clear(mechanism_launch_capacity,
                                          MechanismStamp{none, none, 0, 0, 0});
  upload(stamps_, clear.data(), clear.size() * sizeof(MechanismStamp));
}

void MechanismStamps::expect_ran(std::size_t launches, unsigned int blocks) const {
  GPUBENCH_CU(cuCtxSynchronize);
  const unsigned long long ran = read_counter(launches_);
  const unsigned long long blocks_ran = read_counter(blocks_);
  const unsigned long long intact = read_counter(intact_);
  const unsigned long long expected_blocks = launches * blocks;
  if (ran != launches || blocks_ran != expected_blocks || intact != expected_blocks) {
    throw VerificationFailure(fmt::format(
        "{} launches of {} blocks made, {} kernels ran {} blocks, {} of them as launched "
        "(parameters, cluster and grid)",
        launches, blocks, ran, blocks_ran, intact));
  }
}

std::vector<MechanismStamp> MechanismStamps::read(std::size_t n) const {
  if (n > mechanism_launch_capacity) {
    throw std::logic_error("more mechanism stamps asked for than the kernel keeps");
  }
  GPUBENCH_CU(cuCtxSynchronize);
  std::vector<MechanismStamp> stamps(n);
  GPUBENCH_CU(cuMemcpyDtoH, stamps.data(), stamps_, n * sizeof(MechanismStamp));
  return stamps;
}

} // namespace gpubench::bench
