#pragma once

#include "host_clock.hpp"
#include "interrupt.hpp"

#include <chrono>
#include <cstddef>

namespace gpubench::bench {

// How long a benchmark warms up before its timed loop. The warm-up is one call on its own,
// waited for (lazy loading happens outside any gate), then untimed batches until the warm-up
// has run `least_seconds` of wall time, with at least one batch. A first call of
// `call_alone_seconds` or more is the whole warm-up: its length already settles clocks, and
// more would only add to the run.
//
// Why by time, not a count: a batch of tiny operations (a 4 µs launch submit, a 5 µs library
// load) lasts a fraction of a millisecond. After one call and a single untimed batch, the first
// 10 timed batches on the H200 read 4.7% (launch submit) and 6.3% (library load) above the
// same process's settled median; after 10 ms of batches, 3.4% and 1.6%
// (results/h200/warm_up/).
struct WarmUpLimits {
  double least_seconds = 0.01;
  double call_alone_seconds = 0.01;
};

class WarmUp {
public:
  explicit WarmUp(WarmUpLimits limits = {}) : limits_(limits) {}

  // Whether the warm-up is over, after the first call took `first_call_seconds`, `batches`
  // untimed batches followed it, and the warm-up has run `elapsed_seconds` in all (that call
  // included).
  [[nodiscard]] bool done(double first_call_seconds, std::size_t batches,
                          double elapsed_seconds) const noexcept {
    if (first_call_seconds >= limits_.call_alone_seconds) {
      return true;
    }
    return batches >= 1 && elapsed_seconds >= limits_.least_seconds;
  }

private:
  WarmUpLimits limits_;
};

// Warms up as WarmUp says: `once()` runs one call and waits for it, then untimed `batch()`
// calls follow until the warm-up is done.
template <typename Once, typename Batch> void warm_up(Once&& once, Batch&& batch) {
  const WarmUp limits;
  const auto start = std::chrono::steady_clock::now();
  const double call_seconds = host_seconds(once);
  for (std::size_t batches = 0;
       !limits.done(call_seconds, batches,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                        .count());
       ++batches) {
    throw_if_interrupted();
    static_cast<void>(batch());
  }
}

} // namespace gpubench::bench
