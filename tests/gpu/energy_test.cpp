// --energy through the binary as a user runs it: the energy figures of a copy, a saxpy and a
// launch, each from a window of NVML's energy counter of at least its least steps; none on a
// benchmark whose body does not say what its operation is, nor on a GPU without the counter.
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace gpubench::testing {
namespace {

// The context's device_0_energy on the first line, then per benchmark: its name, then every
// numeric counter as key=value.
constexpr const char* counters = R"py(import json, sys
d = json.load(open(sys.argv[1]))
print(d["context"].get("device_0_energy", "(none)"))
print(d["context"].get("device_0_energy_step_ms", "0"))
for b in d["benchmarks"]:
    numbers = [f"{k}={v!r}" for k, v in b.items() if isinstance(v, (int, float))]
    print(b["name"], *numbers, "error=" + str(int(b.get("error_occurred", False))))
)py";

struct EnergyRun {
  std::string device_energy;
  double step_ms = 0.0;
  std::map<std::string, std::map<std::string, double>> benchmarks;
};

EnergyRun run_energy(const std::string& filter) {
  ScratchDir scratch;
  const std::string out = scratch.path("energy.json");
  const Finished run = run_process({GPUBENCH_BINARY, "--energy", "--benchmark_filter=" + filter,
                                    "--sizes=64M", "--benchmark_out=" + out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const Finished python = run_process({"/usr/bin/env", "python3", "-c", counters, out});
  EXPECT_EQ(python.exit_code, 0) << python.err;
  const std::vector<std::string> lines = lines_of(python.out);
  EnergyRun found;
  if (lines.size() < 2) {
    ADD_FAILURE() << "no context in " << python.out;
    return found;
  }
  found.device_energy = lines[0];
  found.step_ms = std::stod(lines[1]);
  for (std::size_t i = 2; i < lines.size(); ++i) {
    std::istringstream fields(lines[i]);
    std::string name;
    fields >> name;
    auto& values = found.benchmarks[name];
    for (std::string field; fields >> field;) {
      const std::size_t equals = field.find('=');
      values[field.substr(0, equals)] = std::stod(field.substr(equals + 1));
    }
  }
  return found;
}

TEST(Energy, CopySaxpyAndLaunchGetTheirFiguresFromWindowsOfTheLeastSteps) {
  GPUBENCH_REQUIRE_GPU();
  const EnergyRun run = run_energy("^(copy/HtoD/pinned/async/67108864|saxpy/driver/16777216|"
                                   "launch/driver/throughput/params:0|latency/chase/device/4096)/");
  ASSERT_EQ(run.benchmarks.size(), 4U);
  for (const auto& [name, values] : run.benchmarks) {
    EXPECT_EQ(values.at("error"), 0.0) << name;
  }
  const auto& chase = run.benchmarks.at("latency/chase/device/4096/manual_time");
  EXPECT_EQ(chase.count("power_w"), 0U) << "the chase says nothing of its operation's energy";
  if (run.device_energy.starts_with("absent: ")) {
    // No counter: no figure, and the context says why.
    for (const auto& [name, values] : run.benchmarks) {
      EXPECT_EQ(values.count("joules_per_gb") + values.count("uj_per_launch"), 0U) << name;
    }
    GTEST_SKIP() << "device 0 has no energy counter: " << run.device_energy;
  }
  ASSERT_GT(run.step_ms, 0.0) << run.device_energy;

  const auto expect_window = [&](const std::string& name,
                                 const std::string& figure) -> std::pair<double, double> {
    const auto& v = run.benchmarks.at(name);
    for (const std::string& key :
         {figure, figure + "_above_idle", std::string("power_w"), std::string("idle_power_w"),
          std::string("energy_step_ms"), std::string("energy_steps"),
          std::string("energy_window_s"), std::string("energy_ops")}) {
      if (v.count(key) == 0) {
        ADD_FAILURE() << name << " has no " << key;
        return {0.0, 1.0};
      }
    }
    EXPECT_GT(v.at(figure), 0.0) << name;
    EXPECT_LT(v.at(figure + "_above_idle"), v.at(figure)) << name;
    EXPECT_GT(v.at("power_w"), 0.0) << name;
    EXPECT_GT(v.at("idle_power_w"), 0.0) << name;
    EXPECT_NEAR(v.at("energy_step_ms"), run.step_ms, 0.05)
        << name << ": the context's step is the one used";
    EXPECT_GE(v.at("energy_steps"), 10.0) << name;
    EXPECT_GE(v.at("energy_window_s"), std::max(1.0, 10.0 * run.step_ms * 1e-3) * 0.99) << name;
    EXPECT_GT(v.at("energy_ops"), 0.0) << name;
    // The window's energy over its operations is the figure.
    return {v.at("power_w") * v.at("energy_window_s"), v.at("energy_ops")};
  };

  const std::string copy = "copy/HtoD/pinned/async/67108864/manual_time";
  const auto [copy_joules, copies] = expect_window(copy, "joules_per_gb");
  const double gb_per_copy = 67108864 * 1e-9;
  EXPECT_NEAR(run.benchmarks.at(copy).at("joules_per_gb"), copy_joules / copies / gb_per_copy,
              1e-6 * copy_joules / copies / gb_per_copy);
  // The window ran copies at the pace the timed loop measured (no gate, one wait a batch).
  const double copies_per_s_timed = 1e6 / run.benchmarks.at(copy).at("us_per_copy");
  const double copies_per_s_window = copies / run.benchmarks.at(copy).at("energy_window_s");
  EXPECT_NEAR(copies_per_s_window, copies_per_s_timed, 0.2 * copies_per_s_timed);

  static_cast<void>(expect_window("saxpy/driver/16777216/manual_time", "joules_per_gb"));
  const std::string launch = "launch/driver/throughput/params:0/manual_time";
  const auto [launch_joules, launches] = expect_window(launch, "uj_per_launch");
  EXPECT_NEAR(run.benchmarks.at(launch).at("uj_per_launch"), launch_joules / launches * 1e6,
              1e-6 * launch_joules / launches * 1e6);
}

} // namespace
} // namespace gpubench::testing
