#pragma once

namespace gpubench::bench {

class Session;

// Enables peer access both ways between two devices' contexts (sessions open on both), once;
// returns whether the driver supports it both ways. Without it, a copy engine copy between them
// is staged by CUDA, and neither an SM copy (peer family) nor a load (latency family) can reach
// the peer's memory.
[[nodiscard]] bool enable_peer_access(Session& a, Session& b);

} // namespace gpubench::bench
