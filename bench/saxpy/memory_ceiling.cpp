#include "memory_ceiling.hpp"

#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "median.hpp"
#include "session.hpp"
#include "stream_gate.hpp"

#include <utility>
#include <vector>

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
    copy(); // warm-up
    std::vector<double> rates(5);
    for (double& rate : rates) {
      const double seconds =
          batch_seconds(&session.state<StreamGate>(), std::span(&lane, 1), copies_per_batch, copy);
      rate = 2.0 * bytes * copies_per_batch / seconds;
    }
    bytes_per_second = median(std::move(rates));
  }
  double bytes_per_second = 0.0;
};

} // namespace

double memory_ceiling_bytes_per_second(Session& session) {
  return session.state<MemoryCeiling>().bytes_per_second;
}

} // namespace gpubench::bench
