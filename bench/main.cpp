#include "benchmark_args.hpp"
#include "console_header.hpp"
#include "context.hpp"
#include "cuda_error.hpp"
#include "device_energy.hpp"
#include "display_reporter.hpp"
#include "family.hpp"
#include "family_facts.hpp"
#include "file_reporter.hpp"
#include "gpu_context.hpp"
#include "info.hpp"
#include "interrupt.hpp"
#include "name_filter.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "registry.hpp"
#include "run_health.hpp"
#include "say.hpp"
#include "session.hpp"
#include "standard_streams.hpp"
#include "status_record.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace bench = gpubench::bench;

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

[[noreturn]] void die(int status, const std::string& message) {
  bench::say(message);
  std::exit(status);
}

// A run's end before its last line: its exit status, and the one line that says why.
struct RunFailure {
  int status;
  std::string message;
};

[[noreturn]] void fail(int status, std::string message) {
  throw RunFailure{status, std::move(message)};
}

// Google Benchmark's flags as the linked version reads --benchmark_min_time.
constexpr gpubench::MinTimeSyntax min_time_syntax = std::string_view(GPUBENCH_MIN_TIME_UNIT).empty()
                                                        ? gpubench::MinTimeSyntax::bare_seconds
                                                        : gpubench::MinTimeSyntax::with_unit;

// Every family's flags, each once: a flag several families declare (--sizes) is one flag.
std::vector<gpubench::ExtraFlag> family_flags() {
  std::vector<gpubench::ExtraFlag> flags;
  for (const bench::Family& family : bench::families()) {
    for (const bench::FamilyFlag& flag : family.flags) {
      if (std::none_of(flags.begin(), flags.end(),
                       [&](const gpubench::ExtraFlag& f) { return f.name == flag.name; })) {
        flags.push_back(
            {flag.name, fmt::format("{} (default {})", flag.help, flag.default_value), flag.check});
      }
    }
  }
  return flags;
}

// How many devices the driver sees, or the one line why none can be used.
int require_devices() {
  int count = 0;
  try {
    count = gpubench::device_count();
  } catch (const gpubench::CudaError& error) {
    fail(exit_failure, fmt::format("no CUDA device: {}", error.what()));
  }
  if (count == 0) {
    fail(exit_failure, "no CUDA device: the driver reports none");
  }
  return count;
}

// The devices present without asking for a GPU: nullopt where there is no usable driver.
std::optional<int> devices_present() {
  try {
    return gpubench::device_count();
  } catch (const gpubench::CudaError&) {
    return std::nullopt;
  }
}

std::vector<int> first_n(int n) {
  std::vector<int> ordinals(static_cast<std::size_t>(n));
  std::iota(ordinals.begin(), ordinals.end(), 0);
  return ordinals;
}

void check_stdout() {
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    fail(exit_failure, "standard output could not be written");
  }
}

int run(const gpubench::Options& options, const std::vector<gpubench::ExtraFlag>& flags,
        const std::vector<bench::FamilyBenchmarks>& configured, bench::StatusRecord* record) {
  const std::string families_json = bench::family_facts_json(bench::families());
  if (options.help) {
    static_cast<void>(std::fputs(gpubench::usage(flags).c_str(), stdout));
    check_stdout();
    return 0;
  }
  if (options.version) {
    static_cast<void>(std::fputs(bench::version_line().c_str(), stdout));
    check_stdout();
    return 0;
  }
  if (options.describe) {
    static_cast<void>(std::fputs(families_json.c_str(), stdout));
    static_cast<void>(std::fputc('\n', stdout));
    check_stdout();
    return 0;
  }
  // The PTX-load benchmark must measure the driver's JIT, not a hit in its on-disk cache.
  setenv("CUDA_CACHE_DISABLE", "1", 1);

  // Names never depend on a device being present: without a driver a listing shows one device
  // (or the ones named) and the peer pairs of two.
  const std::optional<int> present = options.list_only ? devices_present() : require_devices();
  const std::vector<int> devices = options.devices.value_or(first_n(present.value_or(1)));
  if (present) {
    for (const int ordinal : devices) {
      static_cast<void>(gpubench::device_at(ordinal)); // throws out_of_range with the count
    }
  }
  if (options.info) {
    // The devices, whatever a filter would select of the benchmarks.
    static_cast<void>(std::fputs(bench::info_text(devices).c_str(), stdout));
    check_stdout();
    return 0;
  }
  const std::vector<int> peer_devices = devices.size() > 1 ? devices : first_n(present.value_or(2));
  const gpubench::NameFilter name_filter(options.filter);
  const auto selects = [&](const std::string& name) {
    try {
      return name_filter.selects(name);
    } catch (const std::length_error& error) {
      throw gpubench::UsageError(
          fmt::format("--benchmark_filter={}: {}", options.filter, error.what()));
    }
  };
  bench::Registry registry(devices, peer_devices, selects,
                           bench::HarnessOptions{.energy = options.energy});
  bench::register_families(registry, configured);
  std::vector<std::string> notes;
  for (const bench::Registry::Note& note : registry.notes()) {
    if (selects(note.example)) {
      notes.push_back(note.text);
    }
  }
  if (registry.registered() == 0) {
    // Why nothing is selected, where a family says ("peer copies need two GPUs: 1 found").
    fail(exit_failure,
         !notes.empty() && !options.list_only
             ? notes.front()
             : fmt::format("--benchmark_filter={}: matches no benchmark", options.filter));
  }
  bench::DisplayReporter display;
  // Every benchmark registered is selected: "^", not "." (Google Benchmark's reading of no
  // filter), for which it reserves its list anew for each registration, quadratic in them.
  const std::string every_benchmark = "^";
  if (options.list_only) {
    const std::size_t listed = benchmark::RunSpecifiedBenchmarks(&display, every_benchmark);
    check_stdout();
    return listed > 0 ? 0 : exit_failure;
  }

  for (const std::string& note : notes) {
    bench::say(note);
  }
  // From here on a signal stops the run at the next check, which writes what was completed.
  bench::install_interrupt_handlers();
  bench::open_sessions(registry.reachable_devices());
  // Holds NVML event sets of the sessions' NVML: it must go before the sessions close.
  std::optional<bench::RunHealth> health(std::in_place, devices);
  bench::add_gpu_context(devices);
  for (const auto& [key, value] : gpubench::run_settings(options)) {
    benchmark::AddCustomContext(key, value);
  }
  for (const auto& [key, value] : health->before()) {
    benchmark::AddCustomContext(key, value);
  }
  static_cast<void>(std::fputs(bench::console_header(devices).c_str(), stderr));
  if (options.energy) {
    // Each device's idle power, before any benchmark has warmed it.
    for (const auto& [key, value] : bench::energy_context(registry.reachable_devices())) {
      benchmark::AddCustomContext(key, value);
    }
  }
  for (const bench::FamilyBenchmarks& family : configured) {
    if (family.context) {
      for (const auto& [key, value] : family.context(registry)) {
        benchmark::AddCustomContext(key, value);
      }
    }
  }

  std::optional<bench::FileReporter> file;
  if (options.out_given) {
    file.emplace(options.out_file, options.out_format);
    // "running" until the end: a file left by a killed run says so.
    file->set_context("run_status", "running");
    file->set_context_json("gpubench_families", families_json);
  }
  // What is known only once the run ends, however it ends.
  const auto close_file = [&](const std::string& status) {
    file->set_context("run_status", status);
    file->set_context("gpu_state_after", bench::gpu_state());
    for (const auto& [key, value] : health->after()) {
      file->set_context(key, value);
    }
    file->close();
  };
  bench::on_interrupt([&](int signal) {
    std::cout.flush();
    std::string where;
    if (file) {
      file->set_context("interrupted", bench::signal_name(signal));
      close_file("interrupted");
      where = fmt::format("; the {} completed are in {}", file->reported(), options.out_file);
    }
    bench::say(fmt::format("interrupted by {}{}", bench::signal_name(signal), where));
    if (record != nullptr && !record->finish(128 + signal)) {
      bench::say(fmt::format("--status-out={}: could not be written", record->path()));
    }
  });

  const std::size_t matched =
      benchmark::RunSpecifiedBenchmarks(&display, file ? &*file : nullptr, every_benchmark);
  if (bench::interrupt_signal() != 0) {
    bench::finish_interrupted(); // a signal after the last benchmark's last check
  }
  if (file) {
    // After a fault the run went on with every later benchmark skipped: no complete run.
    close_file(bench::device_fault() ? "faulted" : "complete");
  }
  health.reset();
  bench::close_sessions();
  benchmark::Shutdown();
  check_stdout();
  if (file && !file->written()) {
    fail(exit_failure, fmt::format("--benchmark_out={}: could not be written", options.out_file));
  }
  if (const auto fault = bench::device_fault()) {
    fail(exit_failure,
         fmt::format("the GPU faulted and the rest of the run was skipped: {}", *fault));
  }
  // Running nothing is no success, nor is a run whose every benchmark was skipped (a size that
  // does not fit, a second NUMA node the host lacks): it measured nothing.
  if (matched > 0 && bench::failure_count() == 0 && bench::completed_count() == 0) {
    if (const auto why = bench::first_skip()) {
      fail(exit_failure,
           fmt::format("every benchmark selected was skipped, so nothing was measured: {}", *why));
    }
  }
  return matched > 0 && bench::failure_count() == 0 ? 0 : exit_failure;
}

std::string device_flag(const gpubench::Options& options) {
  return options.devices ? fmt::format("--device={}", fmt::join(*options.devices, ","))
                         : "--device=all";
}

// The run's exit status, a failure said in one line.
int exit_status_of_run(const gpubench::Options& options,
                       const std::vector<gpubench::ExtraFlag>& flags,
                       const std::vector<bench::FamilyBenchmarks>& configured,
                       bench::StatusRecord* record) {
  try {
    return run(options, flags, configured, record);
  } catch (const RunFailure& failure) {
    bench::say(failure.message);
    return failure.status;
  } catch (const gpubench::UsageError& error) {
    bench::say(error.what());
    return exit_usage;
  } catch (const std::out_of_range& error) {
    bench::say(fmt::format("{}: {}", device_flag(options), error.what()));
  } catch (const std::exception& error) {
    bench::say(error.what());
  }
  return exit_failure;
}

} // namespace

int main(int argc, char** argv) {
  bench::reserve_standard_streams();
  gpubench::Options options;
  std::vector<gpubench::ExtraFlag> flags;
  std::vector<bench::FamilyBenchmarks> configured;
  // Written once every flag is read: a flag gpubench cannot read ends it with no record.
  std::optional<bench::StatusRecord> record;
  try {
    flags = family_flags();
    options = gpubench::parse_options(std::vector<std::string>(argv, argv + argc), flags,
                                      min_time_syntax, bench::benchmark_flags_from_environment());
    bench::initialize_benchmark(options);
    configured = bench::configure_families(bench::FlagValues(options.family_flags));
    if (!options.status_out.empty()) {
      record.emplace(options.status_out, options.status_fields);
    }
  } catch (const gpubench::UsageError& error) {
    die(exit_usage, error.what());
  } catch (const std::exception& error) {
    die(exit_failure, error.what()); // the record's directory unreadable, memory exhausted
  }
  const int status = exit_status_of_run(options, flags, configured, record ? &*record : nullptr);
  if (record && !record->finish(status)) {
    die(status != 0 ? status : exit_failure,
        fmt::format("--status-out={}: could not be written", options.status_out));
  }
  return status;
}
