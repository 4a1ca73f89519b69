// launch/threads/<path>/<streams>/host_threads:<n>: how launching scales with the host threads that
// launch at once, to show where the driver serialises them. n threads (--launch-threads, 1 to
// 16 by default) each launch a batch of the family's counting probe (launch_probe_empty,
// params:0) through one API path (runtime: <<<>>>, driver: cuLaunchKernel), each into a stream
// of its own (own_stream) or all into the session's stream (one_stream).
//
// Timing: the threads are a HostThreadTeam made once per benchmark, outside the timed region;
// the calling thread is one of them. The harness's host clock times one call per batch: the
// team's run(), from the opening of a start line at which every thread already waits to the
// last thread's last launch call returning. Before each batch, outside the timed region, the
// streams are drained and the team armed (its workers woken and waiting at the line), so a
// batch holds neither a thread's wake-up nor a queue the GPU has not emptied. us_per_launch is
// the median batch over the launches of all threads (the inverse of launches_per_second): flat
// as threads are added where the driver serialises them, falling where they launch in parallel.
// us_per_thread_launch is what one launch takes its thread (us_per_launch x n).
//
// Each thread launches 32 kernels a batch: at 16 threads one stream then holds 512 launches,
// launch/<path>/throughput's batch, far below a stream's queue depth, so no thread blocks on a
// full queue. The workers inherit the calling thread's CPU and NUMA binding (Session::bind_host)
// and make the session's context current before their first batch; n threads fill a host of n
// cores (host_cpus says how many the host has).
//
// Verified: the GPU counts every probe that runs and every one that saw its parameters intact;
// both must equal the launches of all threads in every batch (warm-up and energy window
// included), or the benchmark fails. A launch error on any thread (the runtime's is per thread,
// read after each thread's batch) fails it too.
#include "launch_threads.hpp"

#include "cuda_error.hpp"
#include "harness.hpp"
#include "host_thread_team.hpp"
#include "launch_counts.hpp"
#include "launch_targets.hpp"
#include "launcher.hpp"
#include "registry.hpp"
#include "stream.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <deque>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace gpubench::bench {
namespace {

constexpr std::size_t launches_per_thread = 32;

struct StreamUse {
  const char* name;
  bool shared;
};

const StreamUse stream_uses[] = {{"own_stream", false}, {"one_stream", true}};

// The API paths measured: <<<>>> and cuLaunchKernel, the runtime's and the driver's plain
// launches. The others differ from these by their argument form, which launch/paired compares.
const char* const thread_paths[] = {"runtime", "driver"};

const Path& path_named(std::string_view name) {
  for (const Path& path : launch_paths) {
    if (name == path.name) {
      return path;
    }
  }
  throw std::logic_error("launch/threads names a path the launch family lacks");
}

void measure_threads(const Path& path, const StreamUse& streams, std::size_t threads, Harness& h) {
  const Session& session = h.session();
  std::deque<Stream> own_streams;
  std::deque<Launcher> launchers;
  for (std::size_t t = 0; t < threads; ++t) {
    CUstream stream = h.stream();
    if (!streams.shared) {
      stream = own_streams.emplace_back().get();
    }
    launchers.emplace_back(launch_target(0), stream);
  }
  const auto drain = [&] {
    for (const Stream& stream : own_streams) {
      stream.synchronize();
    }
    GPUBENCH_CU(cuStreamSynchronize, h.stream());
  };

  HostThreadTeam team(
      threads,
      [&](std::size_t t) {
        Launcher& launcher = launchers[t];
        for (std::size_t i = 0; i < launches_per_thread; ++i) {
          (launcher.*path.launch)();
        }
        GPUBENCH_CUDART(cudaGetLastError());
      },
      [&](std::size_t) { session.make_current(); });

  const std::size_t launches_per_batch = threads * launches_per_thread;
  drain();
  reset_launch_counts();
  h.energy_per(EnergyPer{uj_per_launch, static_cast<double>(launches_per_batch)});
  const LoopTimes times = h.exec(
      HostClock{.ops = 1, .wait = HostClock::Wait::none}, [&] { team.run(); },
      [&] {
        drain();
        team.arm();
      });

  const std::uint64_t launches = team.batches() * launches_per_batch;
  const LaunchCounts counts = read_launch_counts();
  if (counts.launched != launches || counts.intact != launches) {
    throw VerificationFailure(
        fmt::format("{} threads made {} launches, {} kernels ran, {} saw their parameters intact",
                    threads, launches, counts.launched, counts.intact));
  }

  const double seconds_per_launch = times.seconds_per_op / static_cast<double>(launches_per_batch);
  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = seconds_per_launch * 1e6;
  state.counters["launches_per_second"] = 1.0 / seconds_per_launch;
  state.counters["us_per_thread_launch"] = seconds_per_launch * 1e6 * static_cast<double>(threads);
  state.counters["host_threads"] = static_cast<double>(threads);
  state.counters["launches_per_batch"] = static_cast<double>(launches_per_batch);
  state.counters["host_cpus"] = static_cast<double>(std::thread::hardware_concurrency());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(launches_per_batch));
}

} // namespace

void register_launch_threads(Registry& registry, const std::vector<std::int64_t>& thread_counts) {
  for (const char* const name : thread_paths) {
    const Path& path = path_named(name);
    for (const StreamUse& streams : stream_uses) {
      registry.add(fmt::format("launch/threads/{}/{}", path.name, streams.name),
                   [&path, &streams](Harness& h, std::int64_t threads) {
                     measure_threads(path, streams, static_cast<std::size_t>(threads), h);
                   },
                   {thread_counts, "host_threads"});
    }
  }
}

} // namespace gpubench::bench
