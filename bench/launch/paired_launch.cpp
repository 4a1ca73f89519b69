// launch/paired/submit/params:<bytes>: which launch path is cheaper, and by how much, measured
// so that the host's drift cannot decide it. Timing each path in its own window (launch.cpp)
// lets the host's speed move between windows by more than the paths differ. Here every path
// submits a short batch in every round, on the same thread, in an order rotated each round, so a
// slow stretch of the host falls on all of them alike; each round gives one ratio of batch times
// per pair of paths.
//
// The rounds run in blocks, and each block sets up afresh what a new process would meet: a new
// stream, the parameter blocks at another offset within a page and a cache line, new graph
// instances (uploaded before their first replay), and the thread moved to another of its CPUs.
// Rounds within a block share that state and seconds of the host's drift, so they agree with each
// other more closely than two runs do; blocks differ as far as those choices make runs differ.
// The ratio reported is the geometric mean of the blocks' median round ratios, with the
// Student-t 95% interval over the blocks (src/paired_ratio.hpp). What the host sets per process
// no block of the process sees; scripts/gpubench-tools ratios pools separate processes for that.
//
// A round holds one batch per path at the payload, one per path at 0 bytes (for what the
// payload adds), and a second batch of <<<>>> (`same_path`): the ratio of <<<>>> to itself,
// which shows what difference this host lets anyone resolve. A ratio whose interval overlaps 1
// or that band is reported as not resolved.
//
// A round also times each host reference (host_reference.hpp), work that touches no GPU, so each
// path's cost over a reference's (`<path>_over_host_spin`, ...) is a figure from which the host's
// drift between processes cancels as far as the path and the reference share it.
#include "paired_launch.hpp"

#include "cpu_rotation.hpp"
#include "cuda_error.hpp"
#include "harness.hpp"
#include "host_reference.hpp"
#include "launch_counts.hpp"
#include "launcher.hpp"
#include "median.hpp"
#include "paired_ratio.hpp"
#include "registry.hpp"
#include "stream.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
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

// A batch is what one path submits in one round: short enough (a fraction of a millisecond) that
// the host's speed barely moves within a round, long enough that the host clock's resolution is
// lost in it. Graph paths replay one graph of this many kernels, reported per kernel.
constexpr std::size_t launches_per_batch = 32;
// Rounds per block: enough that a block's median round ratio is steady against the spread of
// one round's ratio, few enough that a run holds a dozen blocks.
constexpr std::size_t rounds_per_block = 24;
// Rounds per batch of the harness, which runs one round alone, a warm-up batch and timed
// batches until its loop has run 0.05 s (three, as one batch of rounds, 0.9-1.3 ms each at
// params:0 and 2.0-3.0 ms at params:32764 on the H200, results/h200/ci_baseline.json, outlasts
// that at every payload): 1 + 4 * 72 = 289 rounds, twelve blocks, about 2.6 s for the five
// payloads. A whole number of blocks per batch, so every block after the first is whole.
constexpr std::size_t rounds_per_harness_batch = 3 * rounds_per_block;

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

// Where block `block`'s parameter blocks start within their storage: a multiple of 16 bytes
// (the allocator's own alignment, which every process gets) that walks through a 4 KiB page,
// so blocks see the payload straddle pages and cache lines at different places.
std::size_t payload_offset(std::size_t block) { return (block * 97 % 256) * 16; }

// Every path at `target`'s payload, every path at 0 bytes where the payload is not 0, and the
// second <<<>>> batch placed mid-round, away from the first; set up afresh for each block.
class PairedRounds {
public:
  explicit PairedRounds(const LaunchTarget& target) : target_(target) {
    for (const HostReference::Kind kind : host_reference_kinds) {
      references_.emplace_back(kind);
    }
    times_.resize(slot_names().size());
    begin_block();
  }

  // One round, each slot's batch time recorded. The first block also holds the round the
  // harness runs alone before its batches; a block after it starts when the last is full.
  void run_recorded() {
    const std::size_t capacity = rounds_per_block + (block_sizes_.size() == 1 ? 1 : 0);
    if (block_sizes_.back() == capacity) {
      begin_block();
    }
    const std::vector<double> seconds = round();
    for (std::size_t slot = 0; slot < seconds.size(); ++slot) {
      times_[slot].push_back(seconds[slot]);
    }
    ++block_sizes_.back();
  }

  // Every round run, recorded or not (each block's warm-up round), and the launches in each.
  [[nodiscard]] std::size_t rounds_run() const { return rounds_started_; }
  [[nodiscard]] std::size_t launches_per_round() const {
    return slots_.size() * launches_per_batch;
  }
  [[nodiscard]] std::size_t recorded_rounds() const { return times_.front().size(); }
  // The recorded rounds of each block, in order.
  [[nodiscard]] const std::vector<std::size_t>& block_sizes() const { return block_sizes_; }

  // Batch seconds of the slot named `name`, one per recorded round.
  [[nodiscard]] const std::vector<double>& times(std::string_view name) const {
    const std::vector<std::string> names = slot_names();
    for (std::size_t slot = 0; slot < names.size(); ++slot) {
      if (names[slot] == name) {
        return times_[slot];
      }
    }
    throw std::logic_error("no paired slot of that name");
  }

private:
  // The slots' names, in the order of their batches within a round, then the references'.
  [[nodiscard]] std::vector<std::string> slot_names() const {
    std::vector<std::string> names;
    const std::size_t paths = std::size(launch_paths);
    for (std::size_t i = 0; i < paths; ++i) {
      if (i == paths / 2) {
        names.emplace_back("same_path");
      }
      names.emplace_back(launch_paths[i].name);
      if (target_.bytes > 0) {
        names.push_back(fmt::format("{}_params0", launch_paths[i].name));
      }
    }
    for (const HostReference& reference : references_) {
      names.emplace_back(reference.name());
    }
    return names;
  }

  // A new stream, new launchers with their payloads at this block's offset, new graph
  // instances uploaded to the stream, the thread moved to another CPU; then one untimed round, so
  // each path's first launches (and the graphs' first replays) happen outside the measurement.
  void begin_block() {
    const std::size_t block = block_sizes_.size();
    slots_.clear();
    stream_.emplace();
    cpus_.move_to(block * cpu_rotation_stride);
    const std::vector<std::string> names = slot_names();
    slots_.reserve(names.size() - references_.size());
    const std::size_t paths = std::size(launch_paths);
    std::size_t name = 0;
    for (std::size_t i = 0; i < paths; ++i) {
      const Path& path = launch_paths[i];
      if (i == paths / 2) {
        add_slot(names[name++], path_named("runtime"), target_, block);
      }
      add_slot(names[name++], path, target_, block);
      if (target_.bytes > 0) {
        add_slot(names[name++], path, launch_target(0), block);
      }
    }
    stream_->synchronize();
    static_cast<void>(round());
    block_sizes_.push_back(0);
  }

  void add_slot(const std::string& name, const Path& path, const LaunchTarget& target,
                std::size_t block) {
    const CUstream stream = stream_->get();
    Slot& slot =
        slots_.emplace_back(Slot{name, &path, Launcher(target, stream, payload_offset(block)), {}});
    if (path.graph) {
      slot.graph.emplace(capture_graph(stream, [&] {
        for (std::size_t i = 0; i < launches_per_batch; ++i) {
          (slot.launcher.*path.launch)();
        }
      }));
      slot.graph->upload(stream);
    }
  }

  // Each slot's batch and each reference once, starting from one further on than the round
  // before, so no path always follows the same one or always comes first after the idle stream.
  std::vector<double> round() {
    const std::size_t count = slots_.size() + references_.size();
    std::vector<double> seconds(count);
    const std::size_t first = rounds_started_++ % count;
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t index = (first + k) % count;
      seconds[index] = index < slots_.size()
                           ? batch_seconds(slots_[index])
                           : host_seconds([&] { references_[index - slots_.size()].run(); });
    }
    return seconds;
  }

  // Submission alone: the batch starts on an idle stream and is drained after its clock stops.
  double batch_seconds(Slot& slot) {
    const CUstream stream = stream_->get();
    const double seconds = host_seconds([&] {
      if (slot.graph) {
        slot.graph->launch(stream);
        return;
      }
      for (std::size_t i = 0; i < launches_per_batch; ++i) {
        (slot.launcher.*slot.path->launch)();
      }
    });
    GPUBENCH_CUDART(cudaGetLastError());
    GPUBENCH_CU(cuStreamSynchronize, stream);
    return seconds;
  }

  const LaunchTarget& target_;
  CpuRotation cpus_;
  // Declared before the slots, so the slots (graphs captured on it) go first.
  std::optional<Stream> stream_;
  std::vector<Slot> slots_;
  std::vector<HostReference> references_;
  std::vector<std::vector<double>> times_;
  std::vector<std::size_t> block_sizes_;
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
// same_path_vs_runtime[_lo|_hi], the band a difference must clear to count as resolved; each
// host reference's time (<reference>_us, its whole work) and each path's cost over it,
// <path>_over_<reference>[_lo|_hi]: not a comparison of paths, so not a _vs_ counter, which
// gpubench-tools ratios ranks; syscalls_per_launch and host_referenced.
void report(benchmark::State& state, const PairedRounds& rounds, std::size_t bytes) {
  const auto ratio = [&](std::string_view numerator, std::string_view denominator) {
    return paired_ratio(rounds.times(numerator), rounds.times(denominator), rounds.block_sizes());
  };
  const RatioInterval same_path = ratio("same_path", "runtime");
  std::vector<std::string> references;
  for (const HostReference::Kind kind : host_reference_kinds) {
    references.emplace_back(HostReference::name_of(kind));
  }
  // The benchmark's figure (the launch family's facts): a launch through the API paths counted
  // in getppid calls timed in the same rounds, the geometric mean over the paths of each one's
  // cost per launch over host_syscall. The host's drift between processes and minutes moves a
  // launch and a system call alike, and cancels from their ratio (host_referenced).
  const std::string syscall{HostReference::name_of(HostReference::Kind::syscall)};
  double log_syscalls = 0.0;
  std::size_t api_paths = 0;
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
    for (const std::string& reference : references) {
      const RatioInterval over = ratio(name, reference);
      const std::string key = fmt::format("{}_over_{}", name, reference);
      state.counters[key] = over.estimate;
      state.counters[key + "_lo"] = over.lo;
      state.counters[key + "_hi"] = over.hi;
      if (!path.graph && reference == syscall) {
        log_syscalls += std::log(over.estimate * static_cast<double>(host_reference_syscalls) /
                                 static_cast<double>(launches_per_batch));
        ++api_paths;
      }
    }
  }
  state.counters["syscalls_per_launch"] = std::exp(log_syscalls / static_cast<double>(api_paths));
  state.counters["host_referenced"] = 1.0;
  for (const std::string& reference : references) {
    state.counters[reference + "_us"] = median(rounds.times(reference)) * 1e6;
  }
  for (const Path& path : launch_paths) {
    const std::string name = path.name;
    if (!path.graph && name != "runtime" && name != "driver") {
      report_ratio(state, "graph_vs_" + name, ratio("graph", name), same_path);
    }
  }
  state.counters["rounds"] = static_cast<double>(rounds.recorded_rounds());
  state.counters["blocks"] = static_cast<double>(rounds.block_sizes().size());
  state.counters["launches_per_batch"] = static_cast<double>(launches_per_batch);
}

void measure_paired(const LaunchTarget& target, Harness& h) {
  GPUBENCH_CU(cuStreamSynchronize, h.stream());
  reset_launch_counts();
  std::optional<PairedRounds> rounds;
  try {
    rounds.emplace(target);
  } catch (const CudaError& error) {
    throw SkipBenchmark(
        fmt::format("this driver refuses a {}-byte parameter block on one of the paths: {}",
                    target.bytes, error.what()));
  }

  // Each round drains its block's stream after every batch, so the harness waits on nothing
  // more; its real_time is the time per round.
  static_cast<void>(
      h.exec(HostClock{.ops = rounds_per_harness_batch, .wait = HostClock::Wait::none},
             [&] { rounds->run_recorded(); }));

  if (rounds->recorded_rounds() != h.ops_performed()) {
    throw std::logic_error("the paired rounds recorded are not the rounds the harness ran");
  }
  const std::uint64_t launches = rounds->launches_per_round() * rounds->rounds_run();
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
