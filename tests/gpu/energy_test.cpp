// --energy through the binary as a user runs it: the energy figures of a copy, a saxpy and a
// launch, each from a window of NVML's energy counter of at least its least steps; none on a
// benchmark whose body does not say what its operation is, nor on a GPU without the counter; a
// benchmark on several GPUs adds up their windows.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::testing {
namespace {

// Per benchmark: its name, then every numeric counter as key=value.
constexpr const char* counters = R"py(import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    numbers = [f"{k}={v!r}" for k, v in b.items() if isinstance(v, (int, float))]
    print(b["name"], *numbers, "error=" + str(int(b.get("error_occurred", False))))
)py";

struct EnergyRun {
  std::map<std::string, std::string> context;
  std::map<std::string, std::map<std::string, double>> benchmarks;

  // The context's device_<ordinal>_energy: its step and idle power, or `absent: ` and why.
  [[nodiscard]] std::string energy(int ordinal) const {
    const auto found = context.find("device_" + std::to_string(ordinal) + "_energy");
    return found == context.end() ? "(none)" : found->second;
  }
  // device_<ordinal>_<key> as a number; 0 where the context has none.
  [[nodiscard]] double number(int ordinal, const std::string& key) const {
    const auto found = context.find("device_" + std::to_string(ordinal) + "_" + key);
    return found == context.end() ? 0.0 : std::stod(found->second);
  }
};

EnergyRun run_energy(const std::string& filter, const std::vector<std::string>& flags = {}) {
  ScratchDir scratch;
  const std::string out = scratch.path("energy.json");
  std::vector<std::string> command{GPUBENCH_BINARY, "--energy", "--benchmark_filter=" + filter,
                                   "--sizes=64M", "--benchmark_out=" + out};
  command.insert(command.end(), flags.begin(), flags.end());
  const Finished run = run_process(command);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EnergyRun found;
  const BenchmarkJson json = read_benchmark_json(out);
  if (!json.valid) {
    ADD_FAILURE() << "unreadable " << out << ": " << json.problem;
    return found;
  }
  found.context = json.context;
  const Finished python = run_process({"/usr/bin/env", "python3", "-c", counters, out});
  EXPECT_EQ(python.exit_code, 0) << python.err;
  for (const std::string& line : lines_of(python.out)) {
    std::istringstream fields(line);
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

// Expects benchmark `name` to report `figure`, its twin above idle and the window they came
// from: at least 10 updates of a counter stepping every `step_ms` and a second long. Returns
// the window's energy (its power over its time) and its operations.
std::pair<double, double> expect_window(const EnergyRun& run, const std::string& name,
                                        const std::string& figure, double step_ms) {
  const auto& v = run.benchmarks.at(name);
  for (const std::string& key :
       {figure, figure + "_above_idle", std::string("power_w"), std::string("idle_power_w"),
        std::string("energy_step_ms"), std::string("energy_steps"), std::string("energy_window_s"),
        std::string("energy_ops")}) {
    if (v.count(key) == 0) {
      ADD_FAILURE() << name << " has no " << key;
      return {0.0, 1.0};
    }
  }
  EXPECT_GT(v.at(figure), 0.0) << name;
  EXPECT_LT(v.at(figure + "_above_idle"), v.at(figure)) << name;
  EXPECT_GT(v.at("power_w"), 0.0) << name;
  EXPECT_GT(v.at("idle_power_w"), 0.0) << name;
  EXPECT_NEAR(v.at("energy_step_ms"), step_ms, 0.05)
      << name << ": the context's step is the one used";
  EXPECT_GE(v.at("energy_steps"), 10.0) << name;
  EXPECT_GE(v.at("energy_window_s"), std::max(1.0, 10.0 * step_ms * 1e-3) * 0.99) << name;
  EXPECT_GT(v.at("energy_ops"), 0.0) << name;
  return {v.at("power_w") * v.at("energy_window_s"), v.at("energy_ops")};
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
  const std::string device_energy = run.energy(0);
  if (device_energy.starts_with("absent: ")) {
    // No counter: no figure, and the context says why.
    for (const auto& [name, values] : run.benchmarks) {
      EXPECT_EQ(values.count("joules_per_gb") + values.count("uj_per_launch"), 0U) << name;
    }
    GTEST_SKIP() << "device 0 has no energy counter: " << device_energy;
  }
  const double step_ms = run.number(0, "energy_step_ms");
  ASSERT_GT(step_ms, 0.0) << device_energy;

  const std::string copy = "copy/HtoD/pinned/async/67108864/manual_time";
  const auto [copy_joules, copies] = expect_window(run, copy, "joules_per_gb", step_ms);
  const double gb_per_copy = 67108864 * 1e-9;
  EXPECT_NEAR(run.benchmarks.at(copy).at("joules_per_gb"), copy_joules / copies / gb_per_copy,
              1e-6 * copy_joules / copies / gb_per_copy);
  // The window ran copies at the pace the timed loop measured (no gate, one wait a batch).
  const double copies_per_s_timed = 1e6 / run.benchmarks.at(copy).at("us_per_copy");
  const double copies_per_s_window = copies / run.benchmarks.at(copy).at("energy_window_s");
  EXPECT_NEAR(copies_per_s_window, copies_per_s_timed, 0.2 * copies_per_s_timed);

  static_cast<void>(
      expect_window(run, "saxpy/driver/16777216/manual_time", "joules_per_gb", step_ms));
  const std::string launch = "launch/driver/throughput/params:0/manual_time";
  const auto [launch_joules, launches] = expect_window(run, launch, "uj_per_launch", step_ms);
  EXPECT_NEAR(run.benchmarks.at(launch).at("uj_per_launch"), launch_joules / launches * 1e6,
              1e-6 * launch_joules / launches * 1e6);
}

// A benchmark on several GPUs adds up their windows, each between its own counter's updates:
// the idle power it takes off is the sum of what the context measured on each of its GPUs, its
// step the coarsest of theirs, and its figure every GPU's energy over its own operations. A peer
// copy runs on its pair, a traffic pattern and async_all_devices on every GPU.
TEST(Energy, ABenchmarkOnSeveralGpusAddsUpTheirWindows) {
  GPUBENCH_REQUIRE_GPU();
  const int gpus = device_count();
  if (gpus < 2) {
    GTEST_SKIP() << "a benchmark on several GPUs needs two: " << gpus << " found";
  }
  const EnergyRun run =
      run_energy("^(peer/ce/write/(0to1|bisect)|copy/HtoD/pinned/async_all_devices)/67108864/",
                 {"--device=all"});
  std::vector<int> all(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    all[static_cast<std::size_t>(d)] = d;
  }
  // Each benchmark's GPUs and the 64 MiB copies of one operation: one for the pair, one from
  // each GPU for bisect, one to each GPU from the host.
  struct Spread {
    std::vector<int> devices;
    std::size_t copies;
  };
  const std::map<std::string, Spread> runs_on{
      {"peer/ce/write/0to1/67108864/manual_time", {{0, 1}, 1}},
      {"peer/ce/write/bisect/67108864/manual_time", {all, all.size()}},
      {"copy/HtoD/pinned/async_all_devices/67108864/manual_time", {all, all.size()}}};
  ASSERT_EQ(run.benchmarks.size(), runs_on.size());
  for (const auto& [name, values] : run.benchmarks) {
    EXPECT_EQ(values.at("error"), 0.0) << name;
  }
  for (int d = 0; d < gpus; ++d) {
    if (run.energy(d).starts_with("absent: ")) {
      // A GPU without a counter: no benchmark on it has a figure.
      for (const auto& [name, values] : run.benchmarks) {
        EXPECT_EQ(values.count("joules_per_gb"), 0U) << name;
      }
      GTEST_SKIP() << "device " << d << " has no energy counter: " << run.energy(d);
    }
  }

  for (const auto& [name, spread] : runs_on) {
    double idle_watts = 0.0;
    double step_ms = 0.0;
    for (const int d : spread.devices) {
      idle_watts += run.number(d, "idle_power_w");
      step_ms = std::max(step_ms, run.number(d, "energy_step_ms"));
    }
    const auto [joules, ops] = expect_window(run, name, "joules_per_gb", step_ms);
    const auto& v = run.benchmarks.at(name);
    // The context gives each idle power to 0.01 W.
    EXPECT_NEAR(v.at("idle_power_w"), idle_watts,
                0.006 * static_cast<double>(spread.devices.size()))
        << name << ": every GPU's idle power is taken off";
    // Each GPU's window holds about as many operations a second, so the sums over the GPUs
    // agree with the summed power over the shortest window's operations.
    const double gb_per_op = 67108864e-9 * static_cast<double>(spread.copies);
    const double seconds_per_op = v.at("energy_window_s") / ops;
    EXPECT_NEAR(v.at("joules_per_gb"), joules / ops / gb_per_op, 0.1 * joules / ops / gb_per_op)
        << name;
    const double idle_per_gb = idle_watts * seconds_per_op / gb_per_op;
    EXPECT_NEAR(v.at("joules_per_gb") - v.at("joules_per_gb_above_idle"), idle_per_gb,
                0.1 * idle_per_gb)
        << name;
  }
}

} // namespace
} // namespace gpubench::testing
