#include "peer_access.hpp"

#include "context.hpp"
#include "driver_api.hpp"
#include "session.hpp"

#include <map>
#include <utility>

namespace gpubench::bench {
namespace {
bool can_access(int from, int to) {
  int can = 0;
  GPUBENCH_CU(cuDeviceCanAccessPeer, &can, device_at(from), device_at(to));
  return can != 0;
}

void enable_one_way(Session& from, const Session& to) {
  from.make_current();
  try {
    GPUBENCH_CU(cuCtxEnablePeerAccess, to.context(), 0);
  } catch (const CudaError& error) {
    if (error.code() != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      throw;
    }
  }
}
} // namespace

bool enable_peer_access(Session& a, Session& b) {
  static std::map<std::pair<int, int>, bool> enabled;
  const int ordinal_a = a.device().ordinal;
  const int ordinal_b = b.device().ordinal;
  const auto key = std::minmax(ordinal_a, ordinal_b);
  if (const auto it = enabled.find(key); it != enabled.end()) {
    return it->second;
  }
  const bool access = can_access(ordinal_a, ordinal_b) && can_access(ordinal_b, ordinal_a);
  if (access) {
    enable_one_way(a, b);
    enable_one_way(b, a);
  }
  enabled[key] = access;
  return access;
}

} // namespace gpubench::bench
