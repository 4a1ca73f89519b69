#pragma once

#include <cstddef>

namespace gpubench::bench {

// How long a benchmark warms up before its timed loop. The warm-up is one call on its own,
// waited for (lazy loading happens outside any gate), then untimed batches until the warm-up
// has run `least_seconds` of wall time, with at least one batch. A first call of
// `call_alone_seconds` or more is the whole warm-up: its length already settles clocks, and
// more would only add to the run.
//
// Why by time, not a count: a batch of tiny operations (a 3 µs launch submit, a 5 µs library
// load) lasts a fraction of a millisecond. After one call and a single untimed batch, the H200
// measured the driver's launch submit 8% above a bare loop warmed up by 1280 launches, and
// launch/module/library_load at 5.35 µs against 3.73 µs after thousands of loads.
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

} // namespace gpubench::bench
