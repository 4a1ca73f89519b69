#include "gpu_context.hpp"

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
