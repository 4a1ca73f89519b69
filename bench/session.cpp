#include "session.hpp"

#include "numa.hpp"

#include <stdexcept>

namespace gpubench::bench {
namespace {
std::unique_ptr<Session> g_session;
} // namespace

Session::Session(int ordinal, L2Mode l2)
    : device_(query_device(ordinal)), l2_(l2),
      numa_placement_(bind_to_numa_node(device_.host_numa_node)), nvml_(Nvml::open()),
      context_(device_at(ordinal)) {}

void open_session(int ordinal, L2Mode l2) { g_session = std::make_unique<Session>(ordinal, l2); }

void close_session() noexcept { g_session.reset(); }

Session &session() {
  if (!g_session) {
    throw std::logic_error("no GPU session is open");
  }
  return *g_session;
}

} // namespace gpubench::bench
