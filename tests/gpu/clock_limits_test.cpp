// The clock limits gpubench reads around every timed loop (the causes) and in each health
// record (every named policy) are NVML's live violation times: read between two reads of
// nvmlDeviceGetViolationStatus, each lies between them. NVML's field values of the same
// policies lag the live counter by tens of milliseconds and fail this.
#include "device_info.hpp"
#include "gpu_health.hpp"
#include "gpu_test.hpp"
#include "nvml.hpp"

#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace gpubench::testing {
namespace {

struct ViolationTime {
  unsigned long long reference_time;
  unsigned long long violation_time; // ns
};

// Every named policy's violation time, one nvmlDeviceGetViolationStatus each.
class ViolationStatus {
public:
  ViolationStatus() : library_(dlopen("libnvidia-ml.so.1", RTLD_NOW)) {
    if (library_ != nullptr) {
      by_bus_id_ = reinterpret_cast<decltype(by_bus_id_)>(
          dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
      status_ = reinterpret_cast<decltype(status_)>(
          dlsym(library_, "nvmlDeviceGetViolationStatus"));
    }
  }
  ~ViolationStatus() {
    if (library_ != nullptr) {
      dlclose(library_);
    }
  }
  ViolationStatus(const ViolationStatus&) = delete;
  ViolationStatus& operator=(const ViolationStatus&) = delete;

  [[nodiscard]] bool usable() const { return by_bus_id_ != nullptr && status_ != nullptr; }

  // Needs NVML initialised (an open Nvml).
  [[nodiscard]] std::map<std::string, std::uint64_t> read(const std::string& bus_id) const {
    void* device = nullptr;
    std::map<std::string, std::uint64_t> times;
    if (by_bus_id_(bus_id.c_str(), &device) != 0) {
      return times;
    }
    for (int policy = 0; policy < 12; ++policy) {
      ViolationTime time{};
      if (const auto name = clock_limit_policy_name(policy);
          name && status_(device, policy, &time) == 0) {
        times[*name] = time.violation_time;
      }
    }
    return times;
  }

private:
  void* library_;
  int (*by_bus_id_)(const char*, void**) = nullptr;
  int (*status_)(void*, int, ViolationTime*) = nullptr;
};

std::map<std::string, std::uint64_t> as_map(const ClockLimits& limits) {
  return {limits.begin(), limits.end()};
}

TEST(ClockLimits, AreTheViolationTimesOfEachPolicy) {
  GPUBENCH_REQUIRE_GPU();
  const std::unique_ptr<Nvml> nvml = Nvml::open();
  const ViolationStatus status;
  if (!nvml || !status.usable()) {
    GTEST_SKIP() << "no NVML with nvmlDeviceGetViolationStatus";
  }
  const std::string bus_id = query_device(0).pci_bus_id;
  const auto before = status.read(bus_id);
  const auto health = nvml->health(bus_id);
  const auto loop = nvml->clock_limit_ns(bus_id);
  const auto after = status.read(bus_id);
  ASSERT_TRUE(health.has_value());
  ASSERT_TRUE(loop.has_value());
  const auto all = as_map(health->clock_limit_ns);
  const auto causes = as_map(*loop);
  ASSERT_EQ(all.size(), before.size()) << "a policy one read gives and the other does not";
  for (const auto& [name, was] : before) {
    ASSERT_TRUE(all.contains(name)) << name;
    // Never less than the first read, never more than the second. NVML's totals grow while
    // the GPU idles, so a lagging sample or a unit other than nanoseconds shows here.
    EXPECT_GE(all.at(name), was) << name;
    EXPECT_LE(all.at(name), after.at(name)) << name;
    if (is_clock_limit_total(name)) {
      EXPECT_FALSE(causes.contains(name)) << name << " is a total, not a cause";
    } else {
      ASSERT_TRUE(causes.contains(name)) << name;
      EXPECT_GE(causes.at(name), was) << name;
      EXPECT_LE(causes.at(name), after.at(name)) << name;
    }
  }
}

} // namespace
} // namespace gpubench::testing
