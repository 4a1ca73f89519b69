#include "session.hpp"

#include "module.hpp"
#include "numa.hpp"
#include "runtime_kernels.hpp"

#include <stdexcept>

namespace gpubench::bench {
namespace {
std::unique_ptr<Session> g_session;
} // namespace

Session::Session(int ordinal, L2Mode l2)
    : device_(query_device(ordinal)), l2_(l2),
      numa_placement_(bind_to_numa_node(device_.host_numa_node)), nvml_(Nvml::open()),
      context_(device_at(ordinal)) {
  // CUDA loads kernels lazily, at their first launch, and a load waits for the device: a first
  // launch queued behind a StreamGate would deadlock until the gate's timeout. Load them all now.
  for (const RuntimeKernel& kernel : runtime_kernels()) {
    static_cast<void>(kernel_attributes(driver_function(kernel.symbol)));
  }
}

std::optional<GpuTelemetry> Session::telemetry() const {
  return nvml_ ? nvml_->telemetry(device_.pci_bus_id) : std::nullopt;
}

void open_session(int ordinal, L2Mode l2) { g_session = std::make_unique<Session>(ordinal, l2); }

void close_session() noexcept { g_session.reset(); }

Session& session() {
  if (!g_session) {
    throw std::logic_error("no GPU session is open");
  }
  return *g_session;
}

} // namespace gpubench::bench
