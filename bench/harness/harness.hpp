#pragma once

#include "energy_per.hpp"
#include "energy_window.hpp"
#include "event_pairs.hpp"
#include "gated_batch.hpp"
#include "graph.hpp"
#include "host_clock.hpp"
#include "interrupt.hpp"
#include "l2_flusher.hpp"
#include "outcome.hpp"
#include "session.hpp"
#include "stream_gate.hpp"
#include "timed_loop.hpp"
#include "timing.hpp"
#include "warm_up.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpubench::bench {

// What the run asks of every harness: --energy adds an energy window after the timed loop of
// each benchmark whose body says what its operation is (energy_per).
struct HarnessOptions {
  bool energy = false;
};

// A HostClock batch with nothing to set up before it.
struct NoPrepare {
  void operator()() const noexcept {}
};

// What a benchmark body measures with. The body sets up its work, hands one operation to exec()
// with the timing strategy it needs, verifies, and reports counters; the harness owns the rest:
// the graph capture where the strategy replays one, the warm-up (loop()), the timed loop and
// when it stops (timed_loop), the clock watch, the error check after each batch, and failure
// handling, and the energy window where the run asks for one (energy_per).
class Harness {
public:
  // `sessions`: the sessions of every device the run may use, handed by the registry, for
  // bodies that span devices (session_on); `session` is the benchmark's own.
  Harness(benchmark::State& state, Session& session, std::span<Session* const> sessions = {},
          HarnessOptions options = {})
      : state_(state), session_(session), sessions_(sessions), options_(options) {}

  [[nodiscard]] benchmark::State& state() noexcept { return state_; }
  [[nodiscard]] Session& session() noexcept { return session_; }
  // The handed session on device `ordinal`; std::logic_error when none was handed for it.
  [[nodiscard]] Session& session_on(int ordinal) const;
  [[nodiscard]] CUstream stream() const noexcept { return session_.stream(); }

  // `prepare` runs before each batch, outside the timed region (before a gate holds the lanes),
  // as HostClock's does: for an operation that must start each batch from a state it changes.
  template <typename Op, typename Prepare = NoPrepare>
  LoopTimes exec(const GpuBatches& timing, Op&& op, Prepare&& prepare = {}) {
    std::vector<Lane> lanes;
    if (timing.lanes.empty()) {
      lanes.emplace_back(stream(), nullptr);
    }
    for (const LaneSpec& spec : timing.lanes) {
      lanes.emplace_back(spec.stream, spec.context);
    }
    make_current(lanes.front().context);
    batch_context_ = lanes.front().context;
    for (const Lane& lane : lanes) {
      wait_streams_.push_back(lane.stream);
    }
    StreamGate* gate = timing.gated ? &session_.state<StreamGate>() : nullptr;
    const Clock clock = timing.host_paced ? Clock::host : Clock::gpu;
    // Each lane's seconds of every batch, warm-up included: the timed ones are the last.
    std::vector<std::vector<double>> lane_batches(lanes.size());
    LoopTimes times =
        run(timing.ops, timing.graph_ops, op, clock, timing.label, [&](const auto& call) {
          prepare();
          const double seconds =
              batch_seconds(gate, lanes, calls(timing.ops, timing.graph_ops), call);
          for (std::size_t i = 0; i < lanes.size(); ++i) {
            lane_batches[i].push_back(elapsed_ms(lanes[i].start, lanes[i].stop) * 1e-3);
          }
          return seconds;
        });
    times.lane_seconds_per_op = lane_medians_per_op(lane_batches, times.batches, timing.ops);
    return times;
  }

  template <typename Op> LoopTimes exec(const FlushedOps& timing, Op&& op) {
    wait_streams_.push_back(stream());
    auto& events = session_.state<EventPairs>();
    const auto& flusher = session_.state<L2Flusher>();
    const CUstream s = stream();
    const auto enqueue_flushed = [&](Recording how) {
      for (std::size_t i = 0; i < timing.ops; ++i) {
        flusher.flush(s);
        events.record_start(i, s, how);
        op();
        events.record_stop(i, s, how);
      }
    };
    if (timing.graph_ops != 0) {
      if (energy_wanted()) {
        // The energy window replays the operations alone: a flush's energy is not theirs.
        energy_graph_.emplace(capture_graph(s, [&] {
          for (std::size_t i = 0; i < timing.graph_ops; ++i) {
            op();
          }
        }));
      }
      replay_graph(timing.ops, [&] { enqueue_flushed(Recording::in_capture); });
      return loop(timing.ops, Clock::gpu, timing.label, [&] {
        call_();
        return events.total_seconds(timing.ops);
      });
    }
    call_ = op;
    ops_per_call_ = 1;
    return loop(timing.ops, Clock::gpu, timing.label, [&] {
      enqueue_flushed(Recording::on_stream);
      return events.total_seconds(timing.ops);
    });
  }

  // `prepare` runs before each batch, outside the timed region.
  template <typename Op, typename Prepare = NoPrepare>
  LoopTimes exec(const HostClock& timing, Op&& op, Prepare&& prepare = {}) {
    const CUstream s = stream();
    wait_streams_.push_back(s);
    const std::size_t n = calls(timing.ops, timing.graph_ops);
    const bool wait_each = timing.wait == HostClock::Wait::after_each;
    energy_waits_each_ = wait_each;
    const bool wait_batch = timing.wait == HostClock::Wait::after_batch;
    return run(timing.ops, timing.graph_ops, op, Clock::host, timing.label, [&](const auto& call) {
      prepare();
      const double seconds = host_seconds([&] {
        for (std::size_t i = 0; i < n; ++i) {
          call();
          if (wait_each) {
            synchronize(s);
          }
        }
        if (wait_batch) {
          synchronize(s);
        }
      });
      if (timing.wait == HostClock::Wait::outside) {
        synchronize(s);
      }
      return seconds;
    });
  }

  // Runs one call as the timed loop made it (a graph replay where it replayed one), untimed,
  // and waits for it; returns the operations it performed.
  std::size_t run_once();

  // Where the run measures energy (HarnessOptions::energy), the window after the timed loop runs
  // this benchmark's operation and reports its energy in `per`'s unit, summed over the devices
  // it runs on (runs_on). Call before exec(), for an operation that repeats as it is (not one a
  // HostClock `prepare` sets up each batch). The window runs the operation as the timed loop
  // calls it (a graph replay where it replays one), in batches waited for on the host
  // (EnergyBatching), with no gate and no L2 flush, for at least EnergyWindowLimits; its
  // operations count in ops_performed(). Counters, where every device has an energy counter (the
  // context says why one has none): `per.unit.counter` and `<counter>_above_idle` (the idle power
  // over the window taken off), power_w and idle_power_w (summed over the devices),
  // energy_window_s (between the two updates), energy_steps (updates in it), energy_step_ms (the
  // counter's step used) and energy_ops (the operations between the two updates).
  void energy_per(EnergyPer per);

  // The devices the operation runs on and draws from (default: the benchmark's own), whose
  // clocks the timed loop watches (ClockWatch) and whose energy the window sums: a copy between
  // GPUs runs on both. Call before exec().
  void runs_on(std::vector<Session*> devices);

  // Operations performed through this harness so far: warm-up, timed batches, energy window and
  // run_once().
  [[nodiscard]] std::size_t ops_performed() const noexcept { return ops_performed_; }

  // Fails the benchmark (throws VerificationFailure) with the mismatch, if there is one.
  static void verify(const std::optional<std::string>& mismatch);

private:
  // Each lane's median over its last `timed` batches, over the `ops` operations of a batch.
  static std::vector<double> lane_medians_per_op(const std::vector<std::vector<double>>& lanes,
                                                 std::size_t timed, std::size_t ops);
  static std::size_t calls(std::size_t ops, std::size_t graph_ops) {
    return graph_ops == 0 ? ops : ops / graph_ops;
  }
  static void synchronize(CUstream stream);
  void synchronize_all() const;
  // Whether no waited stream has work left; throws CudaError for one that failed.
  [[nodiscard]] bool streams_idle() const;
  [[nodiscard]] bool energy_wanted() const noexcept { return options_.energy && energy_per_; }
  // The energy window after a timed loop of `ops` operations a batch that took `seconds_per_op`
  // each (energy_per).
  void measure_energy(std::size_t ops, double seconds_per_op);
  // Writes the energy counters of energy_per's unit.
  void report_energy(const EnergyPerOp& energy);
  void check_last_error() const;
  // The devices of runs_on(), or the benchmark's own.
  [[nodiscard]] std::vector<Session*> devices() const;

  // Sets up the call (the op, or a replay of a graph of graph_ops ops) and runs the timed loop
  // over time_batch(call).
  template <typename Op, typename TimeBatch>
  LoopTimes run(std::size_t ops, std::size_t graph_ops, Op& op, Clock clock,
                const std::string& label, TimeBatch&& time_batch) {
    if (graph_ops != 0) {
      replay_graph(graph_ops, [&] {
        for (std::size_t i = 0; i < graph_ops; ++i) {
          op();
        }
      });
      return loop(ops, clock, label, [&] { return time_batch(call_); });
    }
    call_ = op;
    ops_per_call_ = 1;
    return loop(ops, clock, label, [&] { return time_batch(op); });
  }

  // The one graph path: captures what `enqueue` queues on the first waited stream (`ops`
  // operations) into a graph, and makes a replay of it the call the loop times.
  template <typename Enqueue> void replay_graph(std::size_t ops, Enqueue&& enqueue) {
    const CUstream s = wait_streams_.front();
    graph_.emplace(capture_graph(s, std::forward<Enqueue>(enqueue)));
    ops_per_call_ = ops;
    call_ = [this, s] { graph_->launch(s); };
  }

  // The warm-up (warm_up: one call on its own, waited for, then untimed batches), then the
  // timed loop; every batch, warm-up or timed, is checked for a launch error and counted.
  template <typename TimeBatch>
  LoopTimes loop(std::size_t ops, Clock clock, const std::string& label, TimeBatch&& time_batch) {
    const auto timed = [&] {
      const double seconds = time_batch();
      check_last_error();
      ops_performed_ += ops;
      return seconds;
    };
    warm_up([&] { static_cast<void>(run_once()); }, timed);
    const LoopTimes times = timed_loop(state_, devices(), ops, clock, timed, label);
    if (energy_wanted()) {
      measure_energy(ops, times.seconds_per_op);
    }
    return times;
  }

  benchmark::State& state_;
  Session& session_;
  std::span<Session* const> sessions_;
  HarnessOptions options_;
  std::vector<CUstream> wait_streams_;
  CUcontext batch_context_ = nullptr; // made current before a batch is queued; null: as is
  std::optional<EnergyPer> energy_per_;
  std::vector<Session*> devices_;         // runs_on(); empty: the benchmark's own
  std::optional<GraphExec> energy_graph_; // the operations without their flushes, where captured
  bool energy_waits_each_ = false;
  std::optional<GraphExec> graph_;
  std::function<void()> call_;
  std::size_t ops_per_call_ = 1;
  std::size_t ops_performed_ = 0;
};

} // namespace gpubench::bench
