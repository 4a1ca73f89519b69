// launch/host_func/roundtrip: what a host function costs as a stream's work, a round trip from
// the host through the driver and back. One call enqueues a host function (cudaLaunchHostFunc)
// on the session's idle stream and spins until the function, run by the driver's own thread,
// has counted itself; the host clock times batches of 16 such calls, and us_per_launch is the
// median batch per round trip. The function only counts: the time is the driver's hand-off to
// its thread and back, not work.
//
// Verified: the functions counted themselves as often as they were enqueued (the untimed first
// call, the warm-up, every batch), or the benchmark fails. A function that has not run 1 s after
// it was enqueued fails the benchmark rather than leaving it waiting. A driver that refuses the
// call skips the benchmark with its words.
#include "host_func.hpp"

#include "cuda_error.hpp"
#include "harness.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace gpubench::bench {
namespace {

constexpr std::size_t roundtrips_per_batch = 16;
constexpr std::chrono::seconds longest_wait{1};

// Where the host functions count themselves: a session's state, so a function the driver still
// holds when a benchmark fails finds it alive.
struct HostFuncCalls {
  std::atomic<std::uint64_t> calls{0};
};

void CUDART_CB count_call(void* calls) {
  static_cast<HostFuncCalls*>(calls)->calls.fetch_add(1, std::memory_order_release);
}

class HostFuncRoundtrip {
public:
  HostFuncRoundtrip(HostFuncCalls& calls, CUstream stream) : calls_(calls), stream_(stream) {
    calls_.calls.store(0);
  }

  void operator()() {
    GPUBENCH_CUDART(cudaLaunchHostFunc(stream_, count_call, &calls_));
    ++enqueued_;
    const auto start = std::chrono::steady_clock::now();
    while (calls_.calls.load(std::memory_order_acquire) != enqueued_) {
      if (std::chrono::steady_clock::now() - start > longest_wait) {
        throw VerificationFailure(
            fmt::format("host function {} had not run {} s after it was enqueued", enqueued_,
                        longest_wait.count()));
      }
      std::this_thread::yield();
    }
  }

  [[nodiscard]] std::uint64_t enqueued() const noexcept { return enqueued_; }
  [[nodiscard]] std::uint64_t calls() const noexcept { return calls_.calls.load(); }

private:
  HostFuncCalls& calls_;
  CUstream stream_;
  std::uint64_t enqueued_ = 0;
};

void measure_roundtrip(Harness& h) {
  GPUBENCH_CU(cuStreamSynchronize, h.stream());
  HostFuncRoundtrip roundtrip(h.session().state<HostFuncCalls>(), h.stream());
  try {
    roundtrip();
  } catch (const CudaError& error) {
    throw SkipBenchmark(fmt::format("this driver refuses a host function: {}", error.what()));
  }

  const LoopTimes times = h.exec(
      HostClock{.ops = roundtrips_per_batch, .wait = HostClock::Wait::none}, [&] { roundtrip(); });

  GPUBENCH_CU(cuStreamSynchronize, h.stream());
  const std::uint64_t expected = 1 + h.ops_performed();
  if (roundtrip.enqueued() != expected || roundtrip.calls() != expected) {
    throw VerificationFailure(
        fmt::format("{} host functions enqueued, {} ran", roundtrip.enqueued(), roundtrip.calls()));
  }
  benchmark::State& state = h.state();
  state.counters["us_per_launch"] = times.seconds_per_op * 1e6;
  state.counters["calls"] = static_cast<double>(roundtrip.calls());
  state.SetItemsProcessed(state.iterations());
}

} // namespace

void register_host_func(Registry& registry) {
  registry.add("launch/host_func/roundtrip",
               [](Harness& h, std::int64_t) { measure_roundtrip(h); });
}

} // namespace gpubench::bench
