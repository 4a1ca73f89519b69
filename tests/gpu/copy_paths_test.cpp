// Every copy case delivers its random bytes intact (the benchmark's own verification), at a
// size below a page, a page, and sizes where the copy engines' bulk path takes over.
#include "benchmark_json.hpp"
#include "device_info.hpp"
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "host_memory.hpp"
#include "memory.hpp"
#include "numa.hpp"
#include "process.hpp"
#include "random_fill.hpp"

#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(CopyPaths, EveryCaseDeliversItsBytes) {
  GPUBENCH_REQUIRE_GPU();
  // (HtoD + DtoH) x (4 kinds x 2 apis + zerocopy) + 4 bidir + 2 DtoD + HtoH = 25 cases, and
  // registered_far's async HtoD and DtoH where a second NUMA node holds memory; 4 sizes each
  // (sync_paired, in rounds beside host references, has its own test: paired_copy_test.cpp).
  const std::size_t cases = 25U + (memory_nodes().size() > 1 ? 2U : 0U);
  expect_all_verified(run_benchmarks("^copy/[^/]+/[^/]+/(sync|async|zerocopy)/"), cases * 4U,
                      "us_per_copy");
}

// The context names the far node the run would copy from, or why there is none, as the host's
// own tables give it.
TEST(CopyPaths, TheContextNamesTheFarNode) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("far.json");
  const Finished run =
      run_process({GPUBENCH_BINARY, "--benchmark_filter=^copy/HtoD/pinned/async/", "--sizes=4K",
                   "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  ASSERT_EQ(json.context.count("host_numa_far_node"), 1U);
  EXPECT_EQ(json.context.at("host_numa_far_node"),
            describe_far_node(query_device(0).host_numa_node));
}

// async_all_devices copies to or from every GPU of the run at once, each GPU's bytes checked
// by the benchmark; a run on one GPU has no such benchmark.
TEST(CopyPaths, AllDevicesAtOnceDeliverEveryGpusBytes) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("all.json");
  const Finished run = run_process(
      {GPUBENCH_BINARY, "--device=all", "--benchmark_filter=^copy/(HtoD|DtoH)/pinned/async",
       "--sizes=4,64M", "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BenchmarkJson json = read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem;
  std::vector<std::string> all_devices;
  for (const JsonBenchmark& benchmark : json.benchmarks) {
    if (benchmark.name.find("/async_all_devices/") != std::string::npos) {
      all_devices.push_back(benchmark.name);
      EXPECT_TRUE(benchmark.complete && !benchmark.error)
          << benchmark.name << ": " << benchmark.message;
    }
  }
  EXPECT_GT(json.benchmarks.size(), all_devices.size()) << "each GPU's own copies ran too";
  // HtoD and DtoH, at 4 bytes and 64 MiB.
  EXPECT_EQ(all_devices.size(), device_count() > 1 ? 4U : 0U) << json.benchmarks.size();
}

// registered_far's buffer: memory bound to a node, every page checked there, then registered.
// A host of one node has no far node, so this binds it to the first node holding memory: the
// same mapping, binding and registration a far node gets.
using FarNodeMemory = GpuTest;

TEST_F(FarNodeMemory, IsBoundRegisteredAndCarriesBytesBothWays) {
  const std::vector<int> nodes = memory_nodes();
  const int node = nodes.empty() ? 0 : nodes.front();
  constexpr std::size_t bytes = (std::size_t{4} << 20U) + 5;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto host = bench::host_memory_kind("registered_far").allocate(bytes, node);
  EXPECT_EQ(pages_on_node(host->data(), bytes, node), (bytes + page - 1) / page);
  // Registered memory is mapped for the device under unified addressing; memory that is not
  // registered has no device address.
  CUdeviceptr mapped = 0;
  GPUBENCH_CU(cuMemHostGetDevicePointer, &mapped, host->data(), 0);
  EXPECT_NE(mapped, CUdeviceptr{0});

  std::vector<std::byte> expected(bytes);
  fill_random(expected, 24);
  const DeviceBuffer device_buffer(bytes);
  std::memcpy(host->data(), expected.data(), bytes);
  GPUBENCH_CU(cuMemcpyHtoDAsync, device_buffer.ptr(), host->data(), bytes, stream());
  GPUBENCH_CU(cuStreamSynchronize, stream());
  std::memset(host->data(), 0, bytes);
  GPUBENCH_CU(cuMemcpyDtoHAsync, host->data(), device_buffer.ptr(), bytes, stream());
  GPUBENCH_CU(cuStreamSynchronize, stream());
  EXPECT_EQ(std::memcmp(host->data(), expected.data(), bytes), 0);
}

} // namespace
} // namespace gpubench::testing
