#include "harness.hpp"

#include "cuda_error.hpp"
#include "device_energy.hpp"
#include "driver_api.hpp"
#include "energy_poller.hpp"
#include "energy_window.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace gpubench::bench {

std::size_t Harness::run_once() {
  call_();
  synchronize_all();
  check_last_error();
  ops_performed_ += ops_per_call_;
  return ops_per_call_;
}

std::vector<double> Harness::lane_medians_per_op(const std::vector<std::vector<double>>& lanes,
                                                 std::size_t timed, std::size_t ops) {
  std::vector<double> medians;
  for (const std::vector<double>& batches : lanes) {
    const std::size_t first = batches.size() - std::min(timed, batches.size());
    const std::vector<double> timed_batches(batches.begin() + static_cast<std::ptrdiff_t>(first),
                                            batches.end());
    medians.push_back(batch_spread(timed_batches).median_seconds / static_cast<double>(ops));
  }
  return medians;
}

Session& Harness::session_on(int ordinal) const {
  for (Session* session : sessions_) {
    if (session->device().ordinal == ordinal) {
      return *session;
    }
  }
  throw std::logic_error("a benchmark reached for a device it was not handed");
}

void Harness::energy_per(EnergyPer per) { energy_per_ = per; }

void Harness::runs_on(std::vector<Session*> devices) { devices_ = std::move(devices); }

std::vector<Session*> Harness::devices() const {
  return devices_.empty() ? std::vector<Session*>{&session_} : devices_;
}

void Harness::measure_energy(std::size_t ops, double seconds_per_op) {
  const std::vector<Session*> devices = this->devices();
  // Each window's poll reads what the poller last read of its device's counter.
  std::optional<EnergyPoller> poller;
  std::vector<EnergyPoller::Read> reads;
  std::vector<EnergyCounterSource> sources;
  std::vector<double> idle_watts;
  for (Session* device : devices) {
    const DeviceEnergy& energy = device->state<DeviceEnergy>();
    if (!energy.idle()) {
      return; // no figure without every device's counter; the context says why
    }
    const std::size_t d = reads.size();
    reads.emplace_back([&energy] { return energy.read_mj(); });
    sources.push_back({fmt::format("GPU{}", device->device().ordinal),
                       [&poller, d] { return poller->latest(d); }, energy.idle()->step_ms * 1e-3});
    idle_watts.push_back(energy.idle()->power_w);
  }
  poller.emplace(std::move(reads));
  const std::function<void()> call =
      energy_graph_
          ? std::function<void()>([this] { energy_graph_->launch(wait_streams_.front()); })
          : call_;
  const EnergyBatching batching =
      energy_batching(std::max<std::size_t>(1, ops / ops_per_call_),
                      seconds_per_op * static_cast<double>(ops_per_call_));
  const std::size_t batch_ops = batching.calls * ops_per_call_;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<EnergyWindow> windows = measure_energy_windows(
      sources,
      [start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      },
      batch_ops,
      [&](const std::function<void()>& poll) {
        throw_if_interrupted();
        make_current(batch_context_);
        for (std::size_t i = 1; i <= batching.calls; ++i) {
          call();
          if (energy_waits_each_) {
            synchronize_all();
          }
          if (i % batching.calls_per_poll == 0) {
            poll();
          }
        }
        while (!streams_idle()) {
          poll();
        }
        check_last_error();
        ops_performed_ += batch_ops;
      });

  std::vector<double> steps;
  for (const EnergyCounterSource& source : sources) {
    steps.push_back(source.step_seconds);
  }
  report_energy(energy_per_op(windows, idle_watts, steps));
}

void Harness::report_energy(const EnergyPerOp& energy) {
  const EnergyPer& per = *energy_per_;
  const double scale = per.unit.per_joule / per.units_per_op;
  const std::string counter(per.unit.counter);
  state_.counters[counter] = energy.joules * scale;
  state_.counters[counter + "_above_idle"] = energy.joules_above_idle * scale;
  state_.counters["power_w"] = energy.watts;
  state_.counters["idle_power_w"] = energy.idle_watts;
  state_.counters["energy_window_s"] = energy.window_seconds;
  state_.counters["energy_steps"] = energy.steps;
  state_.counters["energy_step_ms"] = energy.step_seconds * 1e3;
  state_.counters["energy_ops"] = energy.window_ops;
}

bool Harness::streams_idle() const {
  for (const CUstream stream : wait_streams_) {
    const CUresult result =
        require_driver_function(driver_api().cuStreamQuery, "cuStreamQuery")(stream);
    if (result == CUDA_ERROR_NOT_READY) {
      return false;
    }
    check(result, "cuStreamQuery(stream)");
  }
  return true;
}

void Harness::verify(const std::optional<std::string>& mismatch) {
  if (mismatch) {
    throw VerificationFailure(*mismatch);
  }
}

void Harness::synchronize(CUstream stream) { GPUBENCH_CU(cuStreamSynchronize, stream); }

void Harness::synchronize_all() const {
  for (const CUstream stream : wait_streams_) {
    synchronize(stream);
  }
}

// <<<>>> and library launches report errors through the runtime's last-error slot.
void Harness::check_last_error() const { GPUBENCH_CUDART(cudaGetLastError()); }

} // namespace gpubench::bench
