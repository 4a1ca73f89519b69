// launch/gpu_loop/<driver>/length:<n>: a loop of n iterations, each one launch of a
// one-thread kernel that counts itself and stamps the GPU's timer, driven by the host or by the
// GPU itself (gpu_loop_drivers.hpp):
//
//   host_stream      the host launches the kernel n times with <<<>>>
//   host_graph       the host launches a graph of one kernel node n times
//   while_node       the host launches one graph; its WHILE node runs the kernel until the
//                    kernel sets the condition to 0 (CUDA 12.4+ conditional nodes)
//   if_chain         the host launches one graph of n IF nodes in a chain; each one's body runs
//                    the kernel, which sets the next node's condition to whether iterations remain
//   tail_launch      the host launches one graph, whose node tail-launches a device graph of the
//                    kernel, which tail-launches itself until no iteration is left
//   fire_and_forget  as tail_launch, but the device graph's kernel launches a work graph of the
//                    kernel fire-and-forget and tail-launches itself, which waits for the work
//
// Every loop starts with a cuMemsetD32Async of the iteration count the kernels count down, on
// the same stream, whichever the driver.
//
// Timing: CUDA events around a batch of whole loops, not gated: the host queues each loop as the
// GPU runs the ones before, so a host-driven loop takes as long as the slower of the host issuing
// it and the GPU running it (host_timed where the host drives). The Time column is one loop;
// us_per_iteration that over n, the figure. host_us_per_iteration is the host's own time issuing
// one loop (its thread blocked by a full queue included), over n: the median of
// host_cost_loops loops, each waited for outside the timed region.
//
// Verified: the kernels count the iterations that ran, those that saw their parameters intact,
// those that ran with none left, and device-side launches that failed; after the timed loop the
// counts must be n x the loops run, and the last loop none left. One more loop after it must
// stamp every iteration, each starting at or after the previous one's end. A driver or GPU that
// refuses the driver's graphs, or a device-side launch, at its first untimed loop skips the
// benchmark with its words.
#include "gpu_loop.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "gpu_loop_check.hpp"
#include "gpu_loop_drivers.hpp"
#include "gpu_loop_state.hpp"
#include "harness.hpp"
#include "host_clock.hpp"
#include "median.hpp"
#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace gpubench::bench {
namespace {

// Loops per timed batch: about 4096 iterations, enough that a batch lasts milliseconds at a few
// microseconds an iteration, and at most 64 loops, so a batch of short loops stays quick to queue.
std::size_t loops_per_batch(unsigned int iterations) {
  return std::clamp<std::size_t>(4096 / iterations, 1, 64);
}

// Loops whose issue the host clock times, after the timed loop.
constexpr std::size_t host_cost_loops = 5;

// The first loop, untimed and waited for: builds the driver's graphs and runs them once. A call
// the driver refuses, or a device-side launch the GPU refuses, skips the benchmark.
std::unique_ptr<GpuLoop> first_loop(const GpuLoopDriver& driver, const GpuLoopState& state,
                                    CUstream stream) {
  std::unique_ptr<GpuLoop> loop;
  try {
    loop = driver.make(state, stream);
    loop->run();
    GPUBENCH_CUDART(cudaGetLastError());
    GPUBENCH_CU(cuStreamSynchronize, stream);
  } catch (const CudaError& error) {
    throw SkipBenchmark(
        fmt::format("this driver or GPU refuses the {} loop: {}", driver.name, error.what()));
  }
  const GpuLoopCounters counters = state.read_counters();
  if (counters.launch_failures != 0) {
    throw SkipBenchmark(fmt::format("this GPU refuses a device-side graph launch of the {} loop: "
                                    "{}, with {} of {} iterations left",
                                    driver.name, device_launch_error(counters.first_failure),
                                    counters.failed_at_remaining, state.iterations()));
  }
  Harness::verify(loop_counts_mismatch(counters, state.iterations(), 1));
  return loop;
}

// One more loop with the stamps cleared: every iteration ran whole, one after another.
void verify_order(GpuLoop& loop, const GpuLoopState& state) {
  state.clear();
  loop.run();
  Harness::verify(loop_counts_mismatch(state.read_counters(), state.iterations(), 1));
  const std::vector<GpuLoopStamp> stamps = state.read_stamps();
  Harness::verify(loop_order_mismatch(stamps));
}

// The host's median time issuing one loop, each loop waited for outside the clock.
double host_seconds_per_loop(GpuLoop& loop, const GpuLoopState& state, CUstream stream) {
  state.clear();
  std::vector<double> seconds;
  for (std::size_t i = 0; i < host_cost_loops; ++i) {
    seconds.push_back(host_seconds([&] { loop.run(); }));
    GPUBENCH_CU(cuStreamSynchronize, stream);
  }
  GPUBENCH_CUDART(cudaGetLastError());
  Harness::verify(loop_counts_mismatch(state.read_counters(), state.iterations(), host_cost_loops));
  return median(seconds);
}

void measure_gpu_loop(const GpuLoopDriver& driver, Harness& h, unsigned int iterations) {
  const CUstream stream = h.stream();
  const GpuLoopState state(iterations);
  const std::unique_ptr<GpuLoop> loop = first_loop(driver, state, stream);

  state.clear();
  const LoopTimes times = h.exec(GpuBatches{.ops = loops_per_batch(iterations),
                                            .gated = false,
                                            .host_paced = driver.host_driven},
                                 [&] { loop->run(); });
  Harness::verify(loop_counts_mismatch(state.read_counters(), iterations, h.ops_performed()));

  verify_order(*loop, state);
  const double host_seconds = host_seconds_per_loop(*loop, state, stream);

  benchmark::State& s = h.state();
  const double n = iterations;
  s.counters["us_per_iteration"] = times.seconds_per_op / n * 1e6;
  s.counters["host_us_per_iteration"] = host_seconds / n * 1e6;
  s.counters["loop_iterations"] = n;
}

} // namespace

void register_gpu_loops(Registry& registry, const std::vector<std::int64_t>& iteration_counts) {
  for (const GpuLoopDriver& driver : gpu_loop_drivers()) {
    registry.add(fmt::format("launch/gpu_loop/{}", driver.name),
                 [&driver](Harness& h, std::int64_t iterations) {
                   measure_gpu_loop(driver, h, static_cast<unsigned int>(iterations));
                 },
                 {iteration_counts, "length"});
  }
}

} // namespace gpubench::bench
