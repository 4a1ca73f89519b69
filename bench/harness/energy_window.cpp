#include "energy_window.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpubench::bench {

EnergyWindowTracker::EnergyWindowTracker(std::string device, std::uint64_t first_mj,
                                         double step_seconds, double begin_seconds,
                                         EnergyWindowLimits limits)
    : device_(std::move(device)), last_mj_(first_mj), last_update_seconds_(begin_seconds),
      step_seconds_(step_seconds),
      least_seconds_(std::max(limits.least_seconds, limits.least_steps * step_seconds)),
      limits_(limits) {}

void EnergyWindowTracker::update(double seconds, std::uint64_t mj, double ops) {
  if (mj < last_mj_) {
    throw EnergyWindowError(fmt::format("the energy counter of {} went back from {} mJ to {} mJ",
                                        device_, last_mj_, mj));
  }
  last_mj_ = mj;
  last_update_seconds_ = seconds;
  if (done()) {
    return;
  }
  if (!start_) {
    start_ = Edge{seconds, mj, ops};
    return;
  }
  ++steps_;
  if (steps_ >= limits_.least_steps && seconds - start_->seconds >= least_seconds_) {
    end_ = Edge{seconds, mj, ops};
  }
}

void EnergyWindowTracker::check_stall(double seconds) const {
  const double waited = seconds - last_update_seconds_;
  if (!done() && waited > limits_.stall_steps * step_seconds_) {
    throw EnergyWindowError(
        fmt::format("the energy counter of {} did not update for {:.2f} s (its step is {:.1f} ms)",
                    device_, waited, step_seconds_ * 1e3));
  }
}

EnergyWindow EnergyWindowTracker::window() const {
  if (!done()) {
    throw std::logic_error("an energy window was read before it ended");
  }
  return {.joules = static_cast<double>(end_->mj - start_->mj) * 1e-3,
          .seconds = end_->seconds - start_->seconds,
          .ops = end_->ops - start_->ops,
          .steps = steps_};
}

EnergyPerOp energy_per_op(const std::vector<EnergyWindow>& windows,
                          const std::vector<double>& idle_watts,
                          const std::vector<double>& step_seconds) {
  if (windows.empty() || idle_watts.size() != windows.size() ||
      step_seconds.size() != windows.size()) {
    throw std::logic_error("energy_per_op needs one idle power and one step per window");
  }
  EnergyPerOp sum{.window_seconds = windows.front().seconds,
                  .window_ops = windows.front().ops,
                  .steps = windows.front().steps};
  for (std::size_t d = 0; d < windows.size(); ++d) {
    const EnergyWindow& w = windows[d];
    if (!(w.ops > 0.0)) {
      throw EnergyWindowError(fmt::format("no operation ran in the energy window of device {}", d));
    }
    sum.joules += w.joules / w.ops;
    sum.joules_above_idle += (w.joules - idle_watts[d] * w.seconds) / w.ops;
    sum.watts += w.watts();
    sum.idle_watts += idle_watts[d];
    sum.window_seconds = std::min(sum.window_seconds, w.seconds);
    sum.window_ops = std::min(sum.window_ops, w.ops);
    sum.steps = std::min(sum.steps, w.steps);
    sum.step_seconds = std::max(sum.step_seconds, step_seconds[d]);
  }
  return sum;
}

EnergyBatching energy_batching(std::size_t loop_calls, double seconds_per_call) {
  const auto calls_in = [seconds_per_call](double seconds) {
    if (!(seconds_per_call > 0.0)) {
      return std::size_t{1};
    }
    return static_cast<std::size_t>(std::llround(seconds / seconds_per_call));
  };
  return {.calls = std::max({loop_calls, calls_in(EnergyBatching::batch_seconds), std::size_t{1}}),
          .calls_per_poll = std::max(calls_in(EnergyBatching::poll_seconds), std::size_t{1})};
}

std::vector<EnergyWindow>
measure_energy_windows(const std::vector<EnergyCounterSource>& devices,
                       const std::function<double()>& now, std::size_t ops_per_batch,
                       const std::function<void(const std::function<void()>& poll)>& run_batch,
                       EnergyWindowLimits limits) {
  const auto read = [](const EnergyCounterSource& source) {
    const std::optional<std::uint64_t> mj = source.read_mj();
    if (!mj) {
      throw EnergyWindowError(
          fmt::format("the energy counter of {} could no longer be read", source.device));
    }
    return *mj;
  };
  std::vector<EnergyWindowTracker> trackers;
  std::vector<std::uint64_t> last_mj;
  for (const EnergyCounterSource& source : devices) {
    const std::uint64_t mj = read(source);
    trackers.emplace_back(source.device, mj, source.step_seconds, now(), limits);
    last_mj.push_back(mj);
  }
  struct Seen {
    std::size_t device;
    double seconds;
    std::uint64_t mj;
  };
  std::vector<Seen> seen;
  const auto poll = [&] {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const std::uint64_t mj = read(devices[d]);
      if (mj != last_mj[d]) {
        seen.push_back({d, now(), mj});
        last_mj[d] = mj;
      }
    }
  };
  const auto all_done = [&] {
    return std::all_of(trackers.begin(), trackers.end(),
                       [](const EnergyWindowTracker& t) { return t.done(); });
  };
  double ops_before = 0.0;
  while (!all_done()) {
    seen.clear();
    const double begin = now();
    run_batch(poll);
    poll();
    const double end = now();
    const auto batch_ops = static_cast<double>(ops_per_batch);
    for (const Seen& s : seen) {
      const double into =
          end > begin ? std::clamp((s.seconds - begin) / (end - begin), 0.0, 1.0) : 1.0;
      trackers[s.device].update(s.seconds, s.mj, ops_before + into * batch_ops);
    }
    ops_before += batch_ops;
    for (const EnergyWindowTracker& tracker : trackers) {
      tracker.check_stall(end);
    }
  }
  std::vector<EnergyWindow> windows;
  for (const EnergyWindowTracker& tracker : trackers) {
    windows.push_back(tracker.window());
  }
  return windows;
}

} // namespace gpubench::bench
