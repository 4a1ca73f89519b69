#include "gpu_context.hpp"

#include "benchmark_json.hpp"
#include "file_reporter.hpp"
#include "options.hpp"
#include "process.hpp"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace gpubench::bench {
namespace {

TEST(GpuContext, CarriesTheKeysScriptsDependOn) {
  DeviceInfo device;
  device.name = "NVIDIA H200";
  device.uuid = "GPU-01234567-89ab-cdef-0123-456789abcdef";
  device.compute_capability_major = 9;
  device.compute_capability_minor = 0;
  device.sm_count = 132;
  device.memory_bytes = 150754820096;
  device.memory_bus_width_bits = 6144;
  device.memory_clock_khz = 3201000;
  const auto entries = gpu_context(device, "580.159.04", 13000, 13000, "Gen5 x16 (max Gen5 x16)");
  const std::map<std::string, std::string> context(entries.begin(), entries.end());
  const std::map<std::string, std::string> expected{
      {"gpu_name", "NVIDIA H200"},
      {"gpu_uuid", "GPU-01234567-89ab-cdef-0123-456789abcdef"},
      {"compute_capability", "9.0"},
      {"sm_count", "132"},
      {"gpu_memory_bytes", "150754820096"},
      {"memory_bus_width_bits", "6144"},
      {"memory_clock_khz", "3201000"},
      {"pcie_link", "Gen5 x16 (max Gen5 x16)"},
      {"driver_version", "580.159.04"},
      {"cuda_runtime_version", "13.0"},
  };
  for (const auto& [key, value] : expected) {
    ASSERT_TRUE(context.contains(key)) << key;
    EXPECT_EQ(context.at(key), value) << key;
  }
  ASSERT_TRUE(context.contains("gpubench_version"));
  EXPECT_NE(context.at("gpubench_version").find('+'), std::string::npos)
      << "the version names the commit";
  // CMake's configuration: Release unless asked otherwise; a Debug build keeps its assertions.
  ASSERT_TRUE(context.contains("gpubench_build_type"));
#ifdef NDEBUG
  EXPECT_NE(context.at("gpubench_build_type"), "Debug");
  EXPECT_FALSE(context.at("gpubench_build_type").empty());
#else
  EXPECT_EQ(context.at("gpubench_build_type"), "Debug");
#endif
  // --version states the same version and build type, without a GPU.
  EXPECT_EQ(context.at("gpubench_build_type"), build_type());
  EXPECT_EQ(version_line(),
            "gpubench " + context.at("gpubench_version") + " (" + build_type() + " build)\n");
  // A --benchmark_context cannot write any of them a second time.
  for (const auto& [key, value] : entries) {
    EXPECT_TRUE(written_context_key(key)) << key;
  }
}

// Values from the environment reach the JSON context through Google Benchmark's writer, which
// escapes few control characters and passes bytes that are not UTF-8: they are made printable
// first, so the file stays valid JSON.
TEST(SchedulerContext, EnvironmentValuesArePrintableAndTheJsonValid) {
  const std::map<std::string, const char*> environment{{"POD_NAME", "pod\x01\x1b[2J"},
                                                       {"SLURMD_NODENAME", "\xff"},
                                                       {"NODE_NAME", "node\n1"},
                                                       {"SLURM_JOB_ID", "42"}};
  const ContextEntries entries = scheduler_context([&](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second;
  });
  const std::map<std::string, std::string> context(entries.begin(), entries.end());
  EXPECT_EQ(context.at("k8s_pod"), "pod\\x01\\x1b[2J");
  EXPECT_EQ(context.at("slurm_node"), "\\xff");
  EXPECT_EQ(context.at("k8s_node"), "node\\x0a1");
  EXPECT_EQ(context.at("slurm_job_id"), "42");
  for (const auto& [key, value] : entries) {
    EXPECT_TRUE(written_context_key(key)) << key;
    benchmark::AddCustomContext(key, value);
  }
  testing::ScratchDir scratch;
  const std::string out = scratch.path("run.json");
  FileReporter file(out, "json");
  benchmark::BenchmarkReporter::Context run_context;
  run_context.name_field_width = 10;
  file.ReportContext(run_context);
  file.close();
  const testing::BenchmarkJson json = testing::read_benchmark_json(out);
  ASSERT_TRUE(json.valid) << json.problem << "\n" << testing::read_file(out);
  EXPECT_EQ(json.context.at("k8s_pod"), "pod\\x01\\x1b[2J");
  EXPECT_EQ(json.context.at("slurm_node"), "\\xff");
}

TEST(FormatUuid, NvidiaSmiGrouping) {
  CUuuid uuid{};
  for (int i = 0; i < 16; ++i) {
    uuid.bytes[i] = static_cast<char>(i * 17);
  }
  EXPECT_EQ(format_uuid(uuid), "GPU-00112233-4455-6677-8899-aabbccddeeff");
}

TEST(FormatCudaVersion, MajorDotMinor) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
}

} // namespace
} // namespace gpubench::bench
