#include "contiguous_rate.hpp"

#include "batch_spread.hpp"
#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "harness.hpp"
#include "host_bytes.hpp"
#include "session.hpp"
#include "stream_gate.hpp"
#include "timed_loop.hpp"
#include "warm_up.hpp"

#include <algorithm>
#include <span>

namespace gpubench::bench {

double ContiguousRates::bytes_per_second(bool to_device, std::size_t bytes, TileBuffers& buffers) {
  const auto key = std::make_pair(to_device, bytes);
  if (const auto known = rates_.find(key); known != rates_.end()) {
    return known->second;
  }
  const CUstream stream = session_.stream();
  const auto copy = [&] {
    if (to_device) {
      GPUBENCH_CU(cuMemcpyHtoDAsync, buffers.device_destination->ptr(), buffers.host->data(), bytes,
                  stream);
    } else {
      GPUBENCH_CU(cuMemcpyDtoHAsync, buffers.host->data(), buffers.device_source->ptr(), bytes,
                  stream);
    }
  };
  // As many copies a batch as the tiles' own batches hold.
  const std::size_t copies = std::clamp<std::size_t>((std::size_t{64} << 20) / bytes, 1, 64);
  Lane lane(stream, nullptr);
  const auto batch = [&] {
    return batch_seconds(&session_.state<StreamGate>(), std::span(&lane, 1), copies, copy);
  };
  warm_up(
      [&] {
        copy();
        GPUBENCH_CU(cuStreamSynchronize, stream);
      },
      batch);
  const double seconds = batch_spread(time_batches(0, batch)).median_seconds;
  GPUBENCH_CU(cuStreamSynchronize, stream);

  const std::byte* destination = buffers.host->data();
  if (to_device) {
    GPUBENCH_CU(cuMemcpyDtoH, buffers.readback->data(), buffers.device_destination->ptr(), bytes);
    destination = buffers.readback->data();
  }
  Harness::verify(
      compare_bytes(destination, buffers.expected->data(), bytes,
                    to_device ? "contiguous reference's device" : "contiguous reference's host"));
  const double rate = static_cast<double>(bytes * copies) / seconds;
  rates_.emplace(key, rate);
  return rate;
}

} // namespace gpubench::bench
