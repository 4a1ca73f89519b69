#include "memory_ceiling.hpp"

#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "session.hpp"
#include "stream_gate.hpp"
#include "timed_loop.hpp"
#include "warm_up.hpp"

#include <span>

namespace gpubench::bench {
namespace {

struct MemoryCeiling {
  explicit MemoryCeiling(Session& session) {
    constexpr std::size_t bytes = std::size_t{1} << 30;
    constexpr std::size_t copies_per_batch = 8;
    const DeviceBuffer source(bytes);
    const DeviceBuffer destination(bytes);
    GPUBENCH_CU(cuMemsetD32Async, source.ptr(), 0x3F800000U, bytes / 4, session.stream());
    Lane lane(session.stream(), nullptr);
    const auto copy = [&] {
      GPUBENCH_CU(cuMemcpyDtoDAsync, destination.ptr(), source.ptr(), bytes, session.stream());
    };
    // The harness's warm-up and stopping rule, as every benchmark's batches have them.
    const auto batch = [&] {
      return batch_seconds(&session.state<StreamGate>(), std::span(&lane, 1), copies_per_batch,
                           copy);
    };
    warm_up(
        [&] {
          copy();
          GPUBENCH_CU(cuStreamSynchronize, session.stream());
        },
        batch);
    const double seconds = batch_spread(time_batches(0, batch)).median_seconds;
    bytes_per_second = 2.0 * bytes * copies_per_batch / seconds;
  }
  double bytes_per_second = 0.0;
};

} // namespace

double memory_ceiling_bytes_per_second(Session& session) {
  return session.state<MemoryCeiling>().bytes_per_second;
}

} // namespace gpubench::bench
