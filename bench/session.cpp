#include "session.hpp"

#include "cuda_error.hpp"
#include "family.hpp"
#include "module.hpp"
#include "numa.hpp"

#include <map>
#include <stdexcept>

namespace gpubench::bench {
namespace {
// Ordered by ordinal; the first opened is the default session.
std::map<int, std::unique_ptr<Session>> g_sessions;
int g_first = -1;
// The NUMA node the main thread was last bound to; none before the first session.
std::optional<int> g_bound_node;
} // namespace

Session::Session(int ordinal, const std::vector<KernelSymbol>& kernels)
    : device_(query_device(ordinal)),
      numa_placement_(bind_to_numa_node(device_.host_numa_node)), nvml_(Nvml::open()),
      context_(device_at(ordinal)) {
  g_bound_node = device_.host_numa_node;
  make_current();
  for (const KernelSymbol& kernel : kernels) {
    static_cast<void>(kernel_attributes(driver_function(kernel.symbol)));
  }
}

Session::~Session() {
  // Members release their memory, events and streams in this device's context.
  try {
    make_current();
  } catch (const std::exception&) {
    // A faulted context cannot be made current; the releases below then fail quietly.
  }
}

void Session::bind_host() const {
  if (g_bound_node != device_.host_numa_node) {
    static_cast<void>(bind_to_numa_node(device_.host_numa_node));
    g_bound_node = device_.host_numa_node;
  }
}

void Session::make_current() const {
  context_.make_current();
  GPUBENCH_CUDART(cudaSetDevice(device_.ordinal));
}

std::optional<GpuTelemetry> Session::telemetry() const {
  return nvml_ ? nvml_->telemetry(device_.pci_bus_id) : std::nullopt;
}

std::optional<ClockLimits> Session::clock_limits() const {
  return nvml_ ? nvml_->clock_limit_ns(device_.pci_bus_id) : std::nullopt;
}

void open_sessions(const std::vector<int>& ordinals) {
  const std::vector<KernelSymbol> kernels = all_kernels();
  for (const int ordinal : ordinals) {
    g_sessions[ordinal] = std::make_unique<Session>(ordinal, kernels);
    if (g_first < 0) {
      g_first = ordinal;
    }
  }
  session(g_first).bind_host();
  session(g_first).make_current();
}

void close_sessions() noexcept {
  g_sessions.clear();
  g_first = -1;
  g_bound_node.reset();
}

Session& session() { return session(g_first); }

Session& session(int ordinal) {
  const auto it = g_sessions.find(ordinal);
  if (it == g_sessions.end()) {
    throw std::logic_error("no GPU session is open");
  }
  return *it->second;
}

} // namespace gpubench::bench
