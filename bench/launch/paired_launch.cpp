// launch/paired/submit/params:<bytes>: which launch path is cheaper, and by how much, measured
// so that the host's drift cannot decide it. Timing each path in its own window (launch.cpp)
// lets the host's speed move between windows by more than the paths differ. Here every path
// submits a short batch in every round, on the same thread, in an order rotated each round, so a
// slow stretch of the host falls on all of them alike; each round gives one ratio of batch times
// per pair of paths, and the ratio reported is their median with a percentile-bootstrap 95%
// interval over the rounds (src/paired_ratio.hpp).
//
// A round holds one batch per path at the payload, one per path at 0 bytes (for what the
// payload adds), and a second batch of <<<>>> (`same_path`): the ratio of <<<>>> to itself,
// which shows what difference this host lets anyone resolve. A ratio whose interval overlaps 1
// or that band is reported as not resolved.
#include "paired_launch.hpp"

#include "cuda_error.hpp"
#include "harness.hpp"
#include "launch_counts.hpp"
#include "launcher.hpp"
#include "median.hpp"
#include "paired_ratio.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstddef>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench::bench {
namespace {

// A batch is what one path submits in one round: short enough (tens of microseconds) that the
// host's speed barely moves within a round, long enough that the host clock's resolution is
// lost in it. Graph paths replay one graph of this many kernels, reported per kernel.
constexpr std::size_t launches_per_batch = 32;
// Rounds per batch of the harness, which runs one round alone, a warm-up batch, and timed
// batches until --benchmark_min_time: 257 rounds at the default 0.05 s, since one batch of
// rounds (about 1 ms each at params:0, 3 ms at params:32764) outlasts it.
constexpr std::size_t rounds_per_harness_batch = 128;

// One batch in a round: `path` launching the probe of `target`, under a counter name.
struct Slot {
  std::string name;
  const Path* path;
  Launcher launcher;
  std::optional<GraphExec> graph;
};

const Path& path_named(std::string_view name) {
  for (const Path& path : launch_paths) {
    if (name == path.name) {
      return path;
    }
  }
  throw std::logic_error("no launch path of that name");
}

// Every path at `target`'s payload, every path at 0 bytes where the payload is not 0, and the
// second <<<>>> batch placed mid-round, away from the first.
class PairedRounds {
public:
  PairedRounds(const LaunchTarget& target, CUstream stream) : stream_(stream) {
    const std::size_t paths = std::size(launch_paths);
    slots_.reserve(2 * paths + 1);
    for (std::size_t i = 0; i < paths; ++i) {
      const Path& path = launch_paths[i];
      if (i == paths / 2) {
        add_slot("same_path", path_named("runtime"), target);
      }
      add_slot(path.name, path, target);
      if (target.bytes > 0) {
        add_slot(fmt::format("{}_params0", path.name), path, launch_target(0));
      }
    }
    times_.resize(slots_.size());
  }

  // One untimed round, unrecorded: each path's first launches (and the graphs' first replays)
  // happen outside the measurement.
  void warm_up() { static_cast<void>(round()); }

  // One round, each slot's batch time recorded.
  void run_recorded() {
    const std::vector<double> seconds = round();
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
      times_[slot].push_back(seconds[slot]);
    }
  }

  [[nodiscard]] std::size_t launches_per_round() const {
    return slots_.size() * launches_per_batch;
  }
  [[nodiscard]] std::size_t recorded_rounds() const { return times_.front().size(); }

  // Batch seconds of the slot named `name`, one per recorded round.
  [[nodiscard]] const std::vector<double>& times(std::string_view name) const {
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
      if (slots_[slot].name == name) {
        return times_[slot];
      }
    }
    throw std::logic_error("no paired slot of that name");
  }

private:
  void add_slot(std::string name, const Path& path, const LaunchTarget& target) {
    Slot& slot = slots_.emplace_back(Slot{std::move(name), &path, Launcher(target, stream_), {}});
    if (path.graph) {
      slot.graph.emplace(capture_graph(stream_, [&] {
        for (std::size_t i = 0; i < launches_per_batch; ++i) {
          (slot.launcher.*path.launch)();
        }
      }));
    }
  }

  // Each slot's batch once, starting from a slot one further on than the round before, so no
  // path always follows the same one or always comes first after the idle stream.
  std::vector<double> round() {
    std::vector<double> seconds(slots_.size());
    const std::size_t first = rounds_started_++ % slots_.size();
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      const std::size_t index = (first + k) % slots_.size();
      seconds[index] = batch_seconds(slots_[index]);
    }
    return seconds;
  }

  // Submission alone: the batch starts on an idle stream and is drained after its clock stops.
  double batch_seconds(Slot& slot) {
    const double seconds = host_seconds([&] {
      if (slot.graph) {
        slot.graph->launch(stream_);
        return;
      }
      for (std::size_t i = 0; i < launches_per_batch; ++i) {
        (slot.launcher.*slot.path->launch)();
      }
    });
    GPUBENCH_CUDART(cudaGetLastError());
    GPUBENCH_CU(cuStreamSynchronize, stream_);
    return seconds;
  }

  CUstream stream_;
  std::vector<Slot> slots_;
  std::vector<std::vector<double>> times_;
  std::size_t rounds_started_ = 0;
};

void report_ratio(benchmark::State& state, const std::string& key, const RatioInterval& ratio,
                  const RatioInterval& same_path) {
  state.counters[key] = ratio.estimate;
  state.counters[key + "_lo"] = ratio.lo;
  state.counters[key + "_hi"] = ratio.hi;
  state.counters[key + "_resolved"] = difference_resolved(ratio, same_path) ? 1.0 : 0.0;
}

// <path>_us; <path>_vs_<reference>[_lo|_hi|_resolved] against <<<>>> and cuLaunchKernel, the
// graph against every path, and each path against itself at 0 bytes (<path>_vs_params0);
// same_path_vs_runtime[_lo|_hi], the band a difference must clear to count as resolved.
void report(benchmark::State& state, const PairedRounds& rounds, std::size_t bytes) {
  const auto ratio = [&](std::string_view numerator, std::string_view denominator) {
    return paired_ratio(rounds.times(numerator), rounds.times(denominator));
  };
  const RatioInterval same_path = ratio("same_path", "runtime");
  state.counters["same_path_vs_runtime"] = same_path.estimate;
  state.counters["same_path_vs_runtime_lo"] = same_path.lo;
  state.counters["same_path_vs_runtime_hi"] = same_path.hi;
  for (const Path& path : launch_paths) {
    const std::string name = path.name;
    state.counters[name + "_us"] =
        median(rounds.times(name)) * 1e6 / static_cast<double>(launches_per_batch);
    for (const char* reference : {"runtime", "driver"}) {
      if (name != reference) {
        report_ratio(state, fmt::format("{}_vs_{}", name, reference), ratio(name, reference),
                     same_path);
      }
    }
    if (bytes > 0) {
      report_ratio(state, name + "_vs_params0", ratio(name, name + "_params0"), same_path);
    }
  }
  for (const Path& path : launch_paths) {
    const std::string name = path.name;
    if (!path.graph && name != "runtime" && name != "driver") {
      report_ratio(state, "graph_vs_" + name, ratio("graph", name), same_path);
    }
  }
  state.counters["rounds"] = static_cast<double>(rounds.recorded_rounds());
  state.counters["launches_per_batch"] = static_cast<double>(launches_per_batch);
}

void measure_paired(const LaunchTarget& target, Harness& h) {
  const CUstream stream = h.stream();
  GPUBENCH_CU(cuStreamSynchronize, stream);
  reset_launch_counts();
  std::optional<PairedRounds> rounds;
  try {
    rounds.emplace(target, stream);
    rounds->warm_up();
  } catch (const CudaError& error) {
    throw SkipBenchmark(
        fmt::format("this driver refuses a {}-byte parameter block on one of the paths: {}",
                    target.bytes, error.what()));
  }

  // Each round drains the stream after every batch, so the harness waits on nothing more; its
  // real_time is the time per round.
  static_cast<void>(
      h.exec(HostClock{.ops = rounds_per_harness_batch, .wait = HostClock::Wait::none},
             [&] { rounds->run_recorded(); }));

  if (rounds->recorded_rounds() != h.ops_performed()) {
    throw std::logic_error("the paired rounds recorded are not the rounds the harness ran");
  }
  const std::uint64_t launches = rounds->launches_per_round() * (1 + h.ops_performed());
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != launches || counts.intact != launches) {
    throw VerificationFailure(
        fmt::format("{} launches made, {} kernels ran, {} saw their parameters intact", launches,
                    counts.launched, counts.intact));
  }
  h.state().counters["launches"] = static_cast<double>(launches);
  report(h.state(), *rounds, target.bytes);
}

} // namespace

void register_paired_launches(Registry& registry, const std::vector<std::int64_t>& payloads) {
  registry.add("launch/paired/submit",
               [](Harness& h, std::int64_t bytes) { measure_paired(launch_target(bytes), h); },
               {payloads, "params"});
}

} // namespace gpubench::bench
