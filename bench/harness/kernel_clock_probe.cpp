#include "kernel_clock_probe.hpp"

#include "driver_api.hpp"
#include "family.hpp"
#include "kernel_clock.hpp"
#include "session.hpp"
#include "sm_clock_probe.cuh"

#include <cstdint>

namespace gpubench::bench {
namespace {

// Makes `context` current for its lifetime, then the one current before: the probe runs after
// timed loops whose lanes may have left another device's context current for the body.
class ContextScope {
public:
  explicit ContextScope(CUcontext context) {
    GPUBENCH_CU(cuCtxGetCurrent, &previous_);
    GPUBENCH_CU(cuCtxSetCurrent, context);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  ~ContextScope() { driver_api().cuCtxSetCurrent(previous_); }

private:
  CUcontext previous_ = nullptr;
};

} // namespace

std::optional<double> kernel_sm_clock_mhz(const Session& session) {
  const ContextScope in_session(session.context());
  const auto* probe = reinterpret_cast<const void*>(sm_clock_probe);
  std::uint64_t window_ns = sm_clock_window_ns;
  void* params[] = {&window_ns};
  GPUBENCH_CU(cuLaunchKernel, driver_function(probe), 1, 1, 1, 1, 1, 1, 0, session.stream(), params,
              nullptr);
  GPUBENCH_CU(cuStreamSynchronize, session.stream());
  SmClockSample sample{};
  GPUBENCH_CU(cuMemcpyDtoH, &sample, kernel_module_global(probe, "gpubench_sm_clock_sample"),
              sizeof(sample));
  return kernel_clock_mhz(sample.cycles, sample.ns);
}

} // namespace gpubench::bench
