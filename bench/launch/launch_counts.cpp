#include "launch_counts.hpp"

#include "driver_api.hpp"
#include "family.hpp"
#include "launch_probe.cuh"
#include "memory.hpp"

namespace gpubench::bench {
namespace {

struct Counters {
  CUdeviceptr launched = 0;
  CUdeviceptr intact = 0;
};

// The counters in the module that holds the probes, as loaded in the current context.
Counters counters() {
  const auto* probe = reinterpret_cast<const void*>(launch_probe_empty);
  return {kernel_module_global(probe, "gpubench_launch_count"),
          kernel_module_global(probe, "gpubench_intact_count")};
}

} // namespace

LaunchCounts read_launch_counts() {
  const Counters at = counters();
  GPUBENCH_CU(cuCtxSynchronize);
  LaunchCounts counts;
  GPUBENCH_CU(cuMemcpyDtoH, &counts.launched, at.launched, sizeof(counts.launched));
  GPUBENCH_CU(cuMemcpyDtoH, &counts.intact, at.intact, sizeof(counts.intact));
  return counts;
}

void reset_launch_counts() {
  const Counters at = counters();
  GPUBENCH_CU(cuCtxSynchronize);
  const unsigned long long zero = 0;
  upload(at.launched, &zero, sizeof(zero));
  upload(at.intact, &zero, sizeof(zero));
}

} // namespace gpubench::bench
