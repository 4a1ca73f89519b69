// launch/persistent/roundtrip: what no launch can beat. A kernel already running on the GPU
// (kernels/persistent_echo.cuh, one thread on its own stream) spins on a mailbox in pinned,
// device-mapped host memory; the host writes a work item's sequence number there and spins
// until the kernel writes it back. us_per_launch is the host's time per work item, defined as
// launch/<path>/roundtrip's (the host's time from handing the GPU work to seeing it done, the
// median batch of 16 over its items): the same question asked without a launch.
//
// Verified: each answer is the number of the item it answers, and once stopped, the kernel
// counted every item served once, each the last one plus 1, and returned at the host's stop
// request (not at its idle limit). The kernel never outlives the benchmark: it stops at the
// host's request when the benchmark ends, whether it finished, failed or was interrupted, and by
// itself after PersistentEcho::idle_limit without work.
#include "persistent_floor.hpp"

#include "harness.hpp"
#include "persistent_echo.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <stdexcept>

namespace gpubench::bench {
namespace {

// As launch/<path>/roundtrip's batch.
constexpr std::size_t items_per_batch = 16;

void measure_persistent_roundtrip(Harness& h) {
  PersistentEcho echo;
  const LoopTimes times = h.exec(HostClock{.ops = items_per_batch, .wait = HostClock::Wait::none},
                                 [&] { static_cast<void>(echo.serve()); });
  Harness::verify(echo.finish());
  if (echo.sent() != h.ops_performed()) {
    throw std::logic_error("the work items sent are not the operations the harness ran");
  }
  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = times.seconds_per_op * 1e6;
  state.counters["items"] = static_cast<double>(echo.sent());
  state.SetItemsProcessed(state.iterations());
}

} // namespace

void register_persistent_floor(Registry& registry) {
  registry.add("launch/persistent/roundtrip",
               [](Harness& h, std::int64_t) { measure_persistent_roundtrip(h); });
}

} // namespace gpubench::bench
