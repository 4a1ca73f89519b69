#include "alone_round.hpp"

#include "batch_spread.hpp"
#include "driver_api.hpp"
#include "gated_batch.hpp"
#include "session.hpp"
#include "stream_gate.hpp"
#include "timed_loop.hpp"
#include "warm_up.hpp"

#include <span>
#include <vector>

namespace gpubench::bench {
namespace {
double gated_round(Session& session, Lane& lane, std::size_t ops,
                   const std::function<void()>& enqueue) {
  return batch_seconds(&session.state<StreamGate>(), std::span(&lane, 1), ops, enqueue);
}
} // namespace

double one_op_seconds(Session& session, CUstream stream, const std::function<void()>& enqueue) {
  enqueue();
  GPUBENCH_CU(cuStreamSynchronize, stream);
  Lane lane(stream, nullptr);
  std::vector<double> seconds;
  for (int i = 0; i < 3; ++i) {
    seconds.push_back(gated_round(session, lane, 1, enqueue));
  }
  return batch_spread(seconds).median_seconds;
}

double alone_round_seconds(Session& session, CUstream stream, std::size_t ops,
                           const std::function<void()>& enqueue) {
  Lane lane(stream, nullptr);
  const auto round = [&] { return gated_round(session, lane, ops, enqueue); };
  warm_up(
      [&] {
        for (std::size_t i = 0; i < ops; ++i) {
          enqueue();
        }
        GPUBENCH_CU(cuStreamSynchronize, stream);
      },
      round);
  const double seconds = batch_spread(time_batches(0, round)).median_seconds;
  GPUBENCH_CU(cuStreamSynchronize, stream);
  return seconds;
}

} // namespace gpubench::bench
