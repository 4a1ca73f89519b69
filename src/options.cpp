#include "options.hpp"

#include "name_filter.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>

namespace gpubench {
namespace {

int parse_device(std::string_view flag, std::string_view value) {
  int device = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), device);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size()) {
    throw UsageError(fmt::format("{}: not a device number", flag));
  }
  if (device < 0) {
    throw UsageError(fmt::format("{}: a device number cannot be negative", flag));
  }
  return device;
}

std::optional<std::vector<int>> parse_devices(std::string_view flag, std::string_view value) {
  if (value == "all") {
    return std::nullopt;
  }
  std::vector<int> devices;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = value.find(',', begin);
    if (devices.size() == max_devices) {
      throw UsageError(
          fmt::format("--device: more than the {} devices gpubench measures at once", max_devices));
    }
    const int device = parse_device(flag, value.substr(begin, comma - begin));
    if (std::find(devices.begin(), devices.end(), device) != devices.end()) {
      throw UsageError(fmt::format("{}: device {} is named twice", flag, device));
    }
    devices.push_back(device);
    if (comma == std::string_view::npos) {
      return devices;
    }
    begin = comma + 1;
  }
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The spellings of true and false gpubench takes for Google Benchmark's booleans (any case),
// each one Google Benchmark reads the same way; nullopt for anything else.
std::optional<bool> parse_bool_flag(std::string_view value) {
  const std::string v = lower(value);
  if (v.empty() || v == "true" || v == "t" || v == "yes" || v == "y" || v == "on" || v == "1") {
    return true;
  }
  if (v == "false" || v == "f" || v == "no" || v == "n" || v == "off" || v == "0") {
    return false;
  }
  return std::nullopt;
}

bool parse_bool(std::string_view flag, std::string_view value) {
  if (const auto parsed = parse_bool_flag(value)) {
    return *parsed;
  }
  throw UsageError(fmt::format("{}: expected true or false", flag));
}

void require_one_of(std::string_view flag, std::string_view value,
                    std::initializer_list<std::string_view> allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    throw UsageError(fmt::format("{}: expected {}", flag, fmt::join(allowed, ", ")));
  }
}

void require_int(std::string_view flag, std::string_view value, int minimum) {
  int number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() ||
      number < minimum) {
    throw UsageError(fmt::format("{}: expected a whole number of at least {}", flag, minimum));
  }
}

// Seconds, "0.5" or "0.5s": the number without its unit.
std::string_view require_seconds(std::string_view flag, std::string_view value,
                                 std::string_view expected) {
  std::string_view number = value;
  if (number.ends_with('s')) {
    number.remove_suffix(1);
  }
  double seconds = 0.0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), seconds);
  if (number.empty() || error != std::errc{} || end != number.data() + number.size() ||
      !std::isfinite(seconds) || seconds < 0.0) {
    throw UsageError(fmt::format("{}: expected {}", flag, expected));
  }
  return number;
}

// --benchmark_min_time as the linked Google Benchmark reads it.
std::string min_time_arg(std::string_view flag, std::string_view value, MinTimeSyntax syntax) {
  if (syntax == MinTimeSyntax::bare_seconds) {
    if (value.ends_with('x')) {
      throw UsageError(fmt::format("{}: iterations (100x) need Google Benchmark 1.8 or later; "
                                   "this gpubench links 1.7, which takes seconds (e.g. 0.5)",
                                   flag));
    }
    return fmt::format("--benchmark_min_time={}",
                       require_seconds(flag, value, "seconds (e.g. 0.5)"));
  }
  if (value.ends_with('x')) {
    require_int(flag, value.substr(0, value.size() - 1), 1);
    return std::string(flag);
  }
  return fmt::format("--benchmark_min_time={}s",
                     require_seconds(flag, value, "seconds (e.g. 0.5s) or iterations (e.g. 100x)"));
}

void require_filter(std::string_view value) {
  try {
    static_cast<void>(NameFilter(value));
  } catch (const std::invalid_argument& error) {
    // A filter too long to take is too long to repeat in the line.
    throw UsageError(value.size() > NameFilter::max_chars
                         ? fmt::format("--benchmark_filter: {}", error.what())
                         : fmt::format("--benchmark_filter={}: not a regular expression: {}", value,
                                       error.what()));
  }
}

// The output file must be writable, checked without changing it: an existing file is opened for
// writing, not truncated, and written nothing; a new name is created and removed again (`probe`).
// Without the probe, the permission bits alone decide, which root passes everywhere (/proc, /sys).
void require_writable_file(std::string_view flag, const std::string& path, bool probe) {
  if (path.empty()) {
    throw UsageError(fmt::format("{}: empty file name", flag));
  }
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) {
      throw UsageError(fmt::format("{}: is a directory", flag));
    }
    const int fd = probe ? open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                         : (access(path.c_str(), W_OK) == 0 ? -2 : -1);
    if (fd == -1) {
      throw UsageError(fmt::format("{}: cannot be written: {}", flag, std::strerror(errno)));
    }
    if (fd >= 0) {
      // Writing nothing changes nothing, but fails where no write can succeed: /proc files
      // open for writing even when they take no writes, /dev/full refuses every one.
      const bool takes_writes = write(fd, "", 0) == 0;
      const int write_error = errno;
      close(fd);
      if (!takes_writes) {
        throw UsageError(
            fmt::format("{}: cannot be written: {}", flag, std::strerror(write_error)));
      }
    }
    return;
  }
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) {
    parent = ".";
  }
  if (!fs::is_directory(parent, error)) {
    throw UsageError(fmt::format("{}: directory {} does not exist", flag, parent.string()));
  }
  if (access(parent.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{}: directory {} cannot be written: {}", flag, parent.string(),
                                 std::strerror(errno)));
  }
  if (probe) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw UsageError(fmt::format("{}: cannot be created: {}", flag, std::strerror(errno)));
    }
    close(fd);
    unlink(path.c_str());
  }
}

// Google Benchmark reads its flags itself (bench/benchmark_args.cpp): an unknown one, one without
// its value, a number or key=value list it cannot read stays in its argv and is reported then.
// These checks are for what it takes without a clear failure, before any GPU work:
// - its booleans read every value but its spellings of false as true ("flase" turns one on);
// - --benchmark_format or --benchmark_time_unit it does not know, or an empty --benchmark_color:
//   it prints its usage and exits 0;
// - --benchmark_repetitions=0 runs nothing and succeeds; a negative count throws length_error;
// - --benchmark_min_time: 1.8 aborts on a value it cannot read, 1.7 takes seconds only; either
//   measures for ever with inf, as --benchmark_min_warmup_time does;
// - --benchmark_perf_counters aborts where its library has no libpfm (Debian's has none).
// Returns the flag as Google Benchmark is to see it.
std::string check_benchmark_flag(std::string_view arg, Options& options, MinTimeSyntax syntax) {
  const std::size_t equals = arg.find('=');
  const std::string_view name = arg.substr(0, equals);
  const std::string_view value =
      equals == std::string_view::npos ? std::string_view{} : arg.substr(equals + 1);
  const std::string flag(arg);
  static constexpr std::string_view booleans[] = {
      "--benchmark_list_tests", "--benchmark_enable_random_interleaving",
      "--benchmark_report_aggregates_only", "--benchmark_display_aggregates_only",
      "--benchmark_counters_tabular"};
  if (std::find(std::begin(booleans), std::end(booleans), name) != std::end(booleans)) {
    const bool on = parse_bool(flag, value);
    if (name == "--benchmark_list_tests") {
      options.list_only = on;
    }
  } else if (equals == std::string_view::npos) {
    return flag;
  } else if (name == "--benchmark_repetitions") {
    require_int(flag, value, 1);
  } else if (name == "--benchmark_min_time") {
    return min_time_arg(flag, value, syntax);
  } else if (name == "--benchmark_min_warmup_time") {
    // A number of seconds in every version (1.8 added units to --benchmark_min_time only).
    return fmt::format("{}={}", name, require_seconds(flag, value, "seconds (e.g. 0.5)"));
  } else if (name == "--benchmark_format") {
    require_one_of(flag, value, {"console", "json", "csv"});
  } else if (name == "--benchmark_color" &&
             (value.empty() || (lower(value) != "auto" && !parse_bool_flag(value)))) {
    throw UsageError(fmt::format("{}: expected auto, true or false", flag));
  } else if (name == "--benchmark_time_unit") {
    require_one_of(flag, value, {"ns", "us", "ms", "s"});
  } else if (name == "--benchmark_perf_counters") {
    throw UsageError(fmt::format("{}: hardware performance counters are not supported", flag));
  }
  return flag;
}

} // namespace

Options parse_options(const std::vector<std::string>& args,
                      const std::vector<ExtraFlag>& extra_flags, MinTimeSyntax min_time) {
  Options options;
  options.benchmark_args.push_back(args.empty() ? "gpubench" : args.front());
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const auto value_of = [arg](std::string_view flag) { return arg.substr(flag.size()); };
    if (arg.starts_with("--benchmark_filter=")) {
      options.filter = value_of("--benchmark_filter=");
      require_filter(options.filter);
    } else if (arg.starts_with("--benchmark_out=")) {
      options.out_file = value_of("--benchmark_out=");
      options.out_given = true;
    } else if (arg.starts_with("--benchmark_out_format=")) {
      options.out_format = value_of("--benchmark_out_format=");
      require_one_of(arg, options.out_format, {"console", "json", "csv"});
    } else if (arg.starts_with("--benchmark_") || arg == "--v" || arg.starts_with("--v=")) {
      options.benchmark_args.push_back(check_benchmark_flag(arg, options, min_time));
    } else if (arg.starts_with("--device=")) {
      options.devices = parse_devices(arg, value_of("--device="));
    } else if (arg == "--info") {
      options.info = true;
    } else if (arg == "--describe") {
      options.describe = true;
    } else if (arg == "--energy") {
      options.energy = true;
    } else if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else {
      const auto extra =
          std::find_if(extra_flags.begin(), extra_flags.end(),
                       [&](const ExtraFlag& f) { return arg.starts_with(f.name + "="); });
      if (extra == extra_flags.end()) {
        const bool known =
            arg == "--device" || std::any_of(extra_flags.begin(), extra_flags.end(),
                                             [&](const ExtraFlag& f) { return arg == f.name; });
        throw UsageError(known ? fmt::format("{}: needs a value ({}=...)", arg, arg)
                               : fmt::format("unknown flag '{}' (see --help)", arg));
      }
      const std::string_view value = value_of(extra->name + "=");
      extra->check(value);
      options.family_flags[extra->name] = value;
    }
  }
  if (options.out_given) {
    require_writable_file("--benchmark_out=" + options.out_file, options.out_file,
                          !options.list_only);
  }
  return options;
}

std::string usage(const std::vector<ExtraFlag>& extra_flags) {
  std::string text =
      "usage: gpubench [--device=N|N,M,...|all] [--info] [--describe] [--energy] [FAMILY FLAGS] "
      "[--benchmark_...]\n"
      "  --device=LIST  the CUDA devices to measure (default 0); with several, each benchmark\n"
      "                 runs on each, named .../device:N\n"
      "  --info         list the devices, their links and the embedded kernels' resource usage\n"
      "  --describe     print each family's name grammar, figures and flags as JSON (no GPU\n"
      "                 needed; docs/family-facts.md)\n"
      "  --energy       after each timed loop of saxpy, copy, peer and launch, about a second of\n"
      "                 the same operation read by NVML's energy counter: joules_per_gb or\n"
      "                 uj_per_launch, and each above the device's idle power\n";
  for (const ExtraFlag& flag : extra_flags) {
    text += fmt::format("  {:<14} {}\n", flag.name + "=...", flag.help);
  }
  text += "All --benchmark_* flags are Google Benchmark's (filter, repetitions, out, out_format, "
          "...).\n";
  text += fmt::format(
      "--benchmark_filter is matched by gpubench, in time linear in each name: at most {} "
      "characters,\n{} states ({{m,n}} with m, n <= {} copies what it repeats). --device names "
      "at most {} devices.\n",
      NameFilter::max_chars, NameFilter::max_states, NameFilter::max_repeat, max_devices);
  return text;
}

} // namespace gpubench
