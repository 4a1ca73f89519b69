// What the NVML reads gpubench makes around each timed loop cost on the host: the handle by PCI
// bus id, the SM and memory clocks, temperature and power (ClockWatch's telemetry), each
// policy's violation status, the seven named ones in turn (its clock limits, `clock_limits()`),
// the same times as field values in one call, and
// five statuses on five threads at once; the medians of 200 calls. Then three rounds of each
// policy's field value beside its live violation status, read right after: whether the field is
// the live counter. No CUDA needed:
//   g++ -O2 -std=c++20 -o /tmp/nvml_cost_probe tools/probes/nvml_cost_probe.cpp -ldl
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

namespace {

// nvml.h's types, as far as the probe reads them.
using Ret = int;
using Dev = void*;
struct PciInfo {
  char legacy_bus_id[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct Violation {
  unsigned long long reference_time, violation_time;
};
union Value {
  double d;
  unsigned ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};
struct Field {
  unsigned id, scope;
  long long timestamp, latency;
  int type;
  Ret ret;
  Value value;
};

// The named policies gpubench reads (nvmlPerfPolicyType_t) and their fields
// (NVML_FI_DEV_PERF_POLICY_POWER, 74, ...): power, thermal, sync boost, board limit,
// reliability, then the two totals.
constexpr std::array<int, 7> policies{0, 1, 2, 3, 5, 10, 11};
constexpr unsigned field_of(int policy) { return 74 + (policy < 6 ? policy : policy - 4); }

double median_us(const std::function<void()>& call, int reps = 200) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count());
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

template <typename F> F bound(void* lib, const char* name) {
  auto f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr) {
    std::fprintf(stderr, "nvml_cost_probe: NVML has no %s\n", name);
  }
  return f;
}

} // namespace

int main() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (lib == nullptr) {
    std::fprintf(stderr, "nvml_cost_probe: no libnvidia-ml.so.1: %s\n", dlerror());
    return 1;
  }
  auto init = bound<Ret (*)()>(lib, "nvmlInit_v2");
  auto by_index = bound<Ret (*)(unsigned, Dev*)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto pci = bound<Ret (*)(Dev, PciInfo*)>(lib, "nvmlDeviceGetPciInfo_v3");
  auto by_bus = bound<Ret (*)(const char*, Dev*)>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  auto clock = bound<Ret (*)(Dev, int, unsigned*)>(lib, "nvmlDeviceGetClockInfo");
  auto temperature = bound<Ret (*)(Dev, int, unsigned*)>(lib, "nvmlDeviceGetTemperature");
  auto power = bound<Ret (*)(Dev, unsigned*)>(lib, "nvmlDeviceGetPowerUsage");
  auto violation = bound<Ret (*)(Dev, int, Violation*)>(lib, "nvmlDeviceGetViolationStatus");
  auto fields = bound<Ret (*)(Dev, int, Field*)>(lib, "nvmlDeviceGetFieldValues");
  if (!init || !by_index || !pci || !by_bus || !clock || !temperature || !power || !violation ||
      !fields) {
    return 1;
  }
  Dev d = nullptr;
  PciInfo info{};
  if (init() != 0 || by_index(0, &d) != 0 || pci(d, &info) != 0) {
    std::fprintf(stderr, "nvml_cost_probe: NVML finds no GPU 0\n");
    return 1;
  }
  std::printf("bus id %s\n", info.bus_id);
  unsigned v = 0;
  Violation vt{};
  const auto telemetry = [&] {
    Dev h = nullptr;
    by_bus(info.bus_id, &h);
    clock(h, 1, &v);
    clock(h, 2, &v);
    temperature(h, 0, &v);
    power(h, &v);
  };
  const auto named_statuses = [&] {
    Dev h = nullptr;
    by_bus(info.bus_id, &h);
    for (const int p : policies) {
      violation(h, p, &vt);
    }
  };
  std::printf("handle by bus id   %8.2f us\n", median_us([&] {
                Dev h = nullptr;
                by_bus(info.bus_id, &h);
              }));
  std::printf("SM clock           %8.2f us\n", median_us([&] { clock(d, 1, &v); }));
  std::printf("memory clock       %8.2f us\n", median_us([&] { clock(d, 2, &v); }));
  std::printf("temperature        %8.2f us\n", median_us([&] { temperature(d, 0, &v); }));
  std::printf("power              %8.2f us\n", median_us([&] { power(d, &v); }));
  for (int p = 0; p < 12; ++p) {
    std::printf("violation %2d       %8.2f us\n", p, median_us([&] { violation(d, p, &vt); }));
  }
  const double telemetry_us = median_us(telemetry);
  const double clock_limits_us = median_us(named_statuses);
  std::printf("telemetry()        %8.2f us\n", telemetry_us);
  std::printf("clock_limits()     %8.2f us\n", clock_limits_us);
  std::array<Field, policies.size()> f{};
  const auto read_fields = [&](int n) {
    for (int i = 0; i < n; ++i) {
      f[i] = Field{};
      f[i].id = field_of(policies[i]);
    }
    return fields(d, n, f.data());
  };
  std::printf("field values, 1 field   %8.2f us\n", median_us([&] { read_fields(1); }));
  std::printf("field values, 5 causes  %8.2f us\n", median_us([&] { read_fields(5); }));
  std::printf("field values, 7 fields  %8.2f us\n", median_us([&] { read_fields(7); }));
  std::printf("5 statuses, 5 threads   %8.2f us\n", median_us([&] {
                std::vector<std::jthread> threads;
                for (int i = 0; i < 5; ++i) {
                  threads.emplace_back([&, i] {
                    Violation w{};
                    violation(d, policies[i], &w);
                  });
                }
              }));
  std::printf("5 violation statuses    %8.2f us\n", median_us([&] {
                for (int i = 0; i < 5; ++i) {
                  violation(d, policies[i], &vt);
                }
              }));
  for (int round = 0; round < 3; ++round) {
    const Ret all = read_fields(7);
    for (std::size_t i = 0; i < policies.size(); ++i) {
      Violation w{};
      const Ret r = violation(d, policies[i], &w);
      std::printf("policy %2d: violation rc %d time %llu ref %llu | field %u call rc %d rc %d "
                  "type %d value %llu ts %lld\n",
                  policies[i], r, w.violation_time, w.reference_time, f[i].id, all, f[i].ret,
                  f[i].type, f[i].value.ull, f[i].timestamp);
    }
  }
  std::printf("per benchmark (2x both) %8.2f us\n", 2 * (telemetry_us + clock_limits_us));
  return 0;
}
