#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench::bench {

// A window whose energy cannot be read: its counter went back (or wrapped), could no longer be
// read, or stopped updating. What the window would have given is no figure, so none is made.
class EnergyWindowError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// How long a window lasts. NVML's energy counter steps (every ~100 ms on the H200,
// results/h200/info.txt), so a window runs from one update of the counter to another: at least
// `least_steps` updates, and at least `least_steps` times the device's step and `least_seconds`
// (a second holds many batches of any operation, whatever the step). An update that has not
// come `stall_steps` steps after the last one (or after the window began) ends the window as
// an error.
struct EnergyWindowLimits {
  int least_steps = 10;
  double least_seconds = 1.0;
  double stall_steps = 10.0;
};

// One device's energy between two updates of its counter.
struct EnergyWindow {
  double joules = 0.0;  // the counter's rise from the first update to the last
  double seconds = 0.0; // host time between them
  double ops = 0.0;     // operations run between them
  int steps = 0;        // updates after the first, the last included
  [[nodiscard]] double watts() const { return joules / seconds; }
};

// One device's counter through a window. Each update (a reading that differs from the last)
// comes with its host time and the operations run by then; the first one opens the window and
// the first one that closes least_steps and the least time after it ends it.
class EnergyWindowTracker {
public:
  // `device` names it in errors ("GPU0"); `first_mj` is the counter before the operations;
  // `step_seconds` the device's measured step; `begin_seconds` when the reading was taken.
  EnergyWindowTracker(std::string device, std::uint64_t first_mj, double step_seconds,
                      double begin_seconds, EnergyWindowLimits limits = {});

  // An update to `mj` seen at `seconds`, when `ops` operations had run. Throws
  // EnergyWindowError for a counter below its last reading.
  void update(double seconds, std::uint64_t mj, double ops);
  // Throws EnergyWindowError where no update has come for stall_steps steps by `seconds`.
  void check_stall(double seconds) const;

  [[nodiscard]] bool done() const noexcept { return end_.has_value(); }
  // The window, once done().
  [[nodiscard]] EnergyWindow window() const;
  // The least time between the window's two updates.
  [[nodiscard]] double least_seconds() const noexcept { return least_seconds_; }

private:
  struct Edge {
    double seconds;
    std::uint64_t mj;
    double ops;
  };
  std::string device_;
  std::uint64_t last_mj_;
  double last_update_seconds_;
  double step_seconds_;
  double least_seconds_;
  EnergyWindowLimits limits_;
  std::optional<Edge> start_;
  std::optional<Edge> end_;
  int steps_ = 0;
};

// What one operation drew over the windows of the devices it ran on: each device's energy over
// its own window's operations, added up, and the same with the device's idle power over its
// window taken off; the mean power and idle power summed; the shortest window, its fewest
// steps and operations, and the longest step of the devices.
struct EnergyPerOp {
  double joules = 0.0;
  double joules_above_idle = 0.0;
  double watts = 0.0;
  double idle_watts = 0.0;
  double window_seconds = 0.0;
  double window_ops = 0.0;
  int steps = 0;
  double step_seconds = 0.0;
};

// `windows[d]` is device d's window, `idle_watts[d]` its idle power and `step_seconds[d]` its
// step. Throws EnergyWindowError for a window without an operation in it.
[[nodiscard]] EnergyPerOp energy_per_op(const std::vector<EnergyWindow>& windows,
                                        const std::vector<double>& idle_watts,
                                        const std::vector<double>& step_seconds);

// How a window's operations are queued: `calls` a batch, waited for on the host, and a poll of
// the counters after every `calls_per_poll` of them while they are queued. A batch lasts about
// `batch_seconds` (the timed loop's batch where that is longer), so the wait and the poll that
// end each one, the GPU idle meanwhile, are a small part of the window; a poll while a
// host-paced batch is queued (launches) sees an update within `poll_seconds` of it.
struct EnergyBatching {
  static constexpr double batch_seconds = 0.01;
  static constexpr double poll_seconds = 0.001;
  std::size_t calls = 1;
  std::size_t calls_per_poll = 1;
};

// The batching for a timed loop's batch of `loop_calls` calls, each taking `seconds_per_call`.
[[nodiscard]] EnergyBatching energy_batching(std::size_t loop_calls, double seconds_per_call);

// A device whose energy a window reads: its name in errors, its counter in mJ (nullopt where it
// cannot be read) and its measured step.
struct EnergyCounterSource {
  std::string device;
  std::function<std::optional<std::uint64_t>()> read_mj;
  double step_seconds = 0.0;
};

// Runs `run_batch` (one batch of `ops_per_batch` operations, calling its argument, a poll of
// every counter, until the batch has finished) until every device's window is done, and
// returns the windows, one per device. An update seen during a batch is credited with the
// batch's operations in proportion to the time into it (they run at an even pace within a
// batch), so the operations between two updates are counted to a fraction of one. `now` is the
// host clock in seconds. Throws EnergyWindowError.
[[nodiscard]] std::vector<EnergyWindow>
measure_energy_windows(const std::vector<EnergyCounterSource>& devices,
                       const std::function<double()>& now, std::size_t ops_per_batch,
                       const std::function<void(const std::function<void()>& poll)>& run_batch,
                       EnergyWindowLimits limits = {});

} // namespace gpubench::bench
