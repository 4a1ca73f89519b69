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
#include <utility>

namespace gpubench {
namespace {

int parse_device(std::string_view flag, std::string_view value) {
  int device = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), device);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size()) {
    throw UsageError(fmt::format("{}: not a device number", flag));
  }
  if (device < 0 || value.starts_with('-')) { // "-0" too
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

void require_count(std::string_view flag, std::string_view value, std::int64_t minimum,
                   std::int64_t maximum, std::string_view what = "a whole number") {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() ||
      number < minimum || number > maximum) {
    throw UsageError(fmt::format("{}: expected {} from {} to {}", flag, what, minimum, maximum));
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
  if (seconds > max_seconds) {
    throw UsageError(fmt::format("{}: at most {:g} seconds (a day)", flag, max_seconds));
  }
  if (seconds != 0.0 && seconds < min_seconds) {
    throw UsageError(fmt::format("{}: expected 0 or at least {:g} seconds (a nanosecond)", flag,
                                 min_seconds));
  }
  return number;
}

// A count of iterations, "100x", as Google Benchmark 1.8 reads it.
void require_iterations(std::string_view flag, std::string_view value) {
  const std::string_view count = value.substr(0, value.size() - 1);
  if (count.starts_with('-')) {
    throw UsageError(fmt::format("{}: a number of iterations cannot be negative", flag));
  }
  require_count(flag, count, 1, max_iterations, "a whole number of iterations");
}

// --benchmark_min_time as the linked Google Benchmark reads it.
std::string min_time_arg(std::string_view flag, std::string_view value, MinTimeSyntax syntax) {
  if (value.ends_with('x')) {
    require_iterations(flag, value);
    if (syntax == MinTimeSyntax::bare_seconds) {
      throw UsageError(fmt::format("{}: iterations (100x) need Google Benchmark 1.8 or later; "
                                   "this gpubench links 1.7, which takes seconds (e.g. 0.5)",
                                   flag));
    }
    return std::string(flag);
  }
  if (syntax == MinTimeSyntax::bare_seconds) {
    return fmt::format("--benchmark_min_time={}",
                       require_seconds(flag, value, "seconds (e.g. 0.5)"));
  }
  return fmt::format("--benchmark_min_time={}s",
                     require_seconds(flag, value, "seconds (e.g. 0.5s) or iterations (e.g. 100x)"));
}

// A checked run length as Google Benchmark 1.8 spells it: "100x" and "0.5s" as they are, a bare
// number of seconds ("0.5", what 1.7 reads) with its unit.
std::string with_unit(std::string_view length) {
  return length.ends_with('x') || length.ends_with('s') ? std::string(length)
                                                        : fmt::format("{}s", length);
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

// The name a symbolic link leads to: its target, relative to the link's directory.
std::string link_target(const std::string& link, std::error_code& error) {
  namespace fs = std::filesystem;
  const fs::path target = fs::read_symlink(link, error);
  return target.is_absolute() ? target.string() : (fs::path(link).parent_path() / target).string();
}

// Throws UsageError where `path`, a new name, cannot be created: its directory is missing, not
// one, or not writable. With `probe`, it is created and removed again.
void require_creatable_file(std::string_view flag, const std::string& path, bool probe) {
  namespace fs = std::filesystem;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) {
    parent = ".";
  }
  struct stat status {};
  if (stat(parent.c_str(), &status) != 0) {
    throw UsageError(errno == ENOENT
                         ? fmt::format("{}: directory {} does not exist", flag, parent.string())
                         : fmt::format("{}: directory {}: {}", flag, parent.string(),
                                       std::strerror(errno)));
  }
  if (!S_ISDIR(status.st_mode)) {
    throw UsageError(fmt::format("{}: {} is not a directory", flag, parent.string()));
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

// The output file must be writable, checked without changing it: an existing file is opened for
// writing, not truncated, and written nothing (a FIFO is not opened); a new name is created and
// removed again (`probe`). Neither the file standard output goes to nor standard error's.
// Without the probe, the permission bits alone decide, which root passes everywhere (/proc, /sys).
// A dangling symbolic link is followed to the name it leads to, which is what gets written; the
// kernel follows the others (/dev/stdout's to a pipe too).
void require_writable_file(std::string_view flag, const std::string& path, bool probe) {
  if (path.empty()) {
    throw UsageError(fmt::format("{}: empty file name", flag));
  }
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) {
    if (errno != ENOENT) {
      throw UsageError(fmt::format("{}: cannot be written: {}", flag, std::strerror(errno)));
    }
    std::error_code error;
    const std::string target = followed_links(path, error);
    if (error) {
      throw UsageError(fmt::format("{}: cannot be written: {}", flag, error.message()));
    }
    require_creatable_file(flag, target, probe);
    return;
  }
  if (S_ISDIR(status.st_mode)) {
    throw UsageError(fmt::format("{}: is a directory", flag));
  }
  // The file the console table goes to: the JSON, written at the end, would take its place (or
  // land in the middle of it).
  for (const auto& [fd, stream] : {std::pair{STDOUT_FILENO, "standard output"},
                                   std::pair{STDERR_FILENO, "standard error"}}) {
    if (S_ISREG(status.st_mode) && is_open_on(fd, status)) {
      throw UsageError(fmt::format("{}: is the file {} goes to; name another for the JSON", flag,
                                   stream));
    }
  }
  // A FIFO is not opened: opening and closing it would end its reader's input before the JSON.
  const bool opened = probe && !S_ISFIFO(status.st_mode);
  const int fd = opened ? open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
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
      throw UsageError(fmt::format("{}: cannot be written: {}", flag, std::strerror(write_error)));
    }
  }
}

// Google Benchmark's syntax for --benchmark_context (key=value pairs separated by commas, or
// nothing), with a key, and keys and values that are text: its JSON writer escapes only \b \f
// \n \r \t \\ and ", so a control character or a byte that is not UTF-8 would leave the file
// invalid JSON. A key gpubench or Google Benchmark writes would be written twice. Each pair goes
// into `context`, replacing an earlier occurrence's value of its key; a key twice in one value
// is refused.
void add_context(std::string_view flag, std::string_view value,
                 std::map<std::string, std::string, std::less<>>& context) {
  if (value.empty()) {
    return;
  }
  std::vector<std::string_view> keys;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = value.find(',', begin);
    const std::string_view pair = value.substr(begin, comma - begin);
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos || pair.find('=', equals + 1) != std::string_view::npos) {
      throw UsageError(fmt::format(
          "{}: expected key=value pairs separated by commas (e.g. rack=7,run=nightly)", flag));
    }
    const std::string_view key = pair.substr(0, equals);
    const std::string_view text = pair.substr(equals + 1);
    if (key.empty()) {
      throw UsageError(fmt::format("{}: a key is empty", flag));
    }
    if (printable(key) != key || printable(text) != text) {
      throw UsageError(fmt::format(
          "{}: a key or value holds a control character or bytes that are not UTF-8", flag));
    }
    if (written_context_key(key)) {
      throw UsageError(fmt::format("{}: the context holds {} already", flag, key));
    }
    // The scripts read merged_runs as the count of separate runs a result holds: a run stating
    // it is taken for a merged recording (its text a count no script reads).
    if (key == "merged_runs") {
      throw UsageError(fmt::format(
          "{}: merged_runs is the count of runs scripts/gpubench-tools merge writes", flag));
    }
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      throw UsageError(fmt::format("{}: key {} is given twice", flag, key));
    }
    keys.push_back(key);
    context.insert_or_assign(std::string(key), std::string(text));
    if (comma == std::string_view::npos) {
      return;
    }
    begin = comma + 1;
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
// Records the settings that change what Google Benchmark measures in `options`; returns the flag
// as Google Benchmark is to see it.
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
    } else if (name == "--benchmark_enable_random_interleaving") {
      options.random_interleaving = on;
    }
  } else if (equals == std::string_view::npos) {
    return flag;
  } else if (name == "--benchmark_repetitions") {
    require_count(flag, value, 1, max_repetitions);
  } else if (name == "--benchmark_min_time") {
    std::string checked = min_time_arg(flag, value, syntax);
    options.min_time = with_unit(std::string_view(checked).substr(name.size() + 1));
    return checked;
  } else if (name == "--benchmark_min_warmup_time") {
    // A number of seconds in every version (1.8 added units to --benchmark_min_time only).
    const std::string_view seconds = require_seconds(flag, value, "seconds (e.g. 0.5)");
    options.min_warmup_time = with_unit(seconds);
    return fmt::format("{}={}", name, seconds);
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

// One argument, checked, into `options`.
void parse_arg(std::string_view arg, Options& options, const std::vector<ExtraFlag>& extra_flags,
               MinTimeSyntax min_time) {
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
  } else if (arg.starts_with("--status-out=")) {
    options.status_out = value_of("--status-out=");
    if (options.status_out.empty()) {
      throw UsageError("--status-out=: empty file name");
    }
  } else if (arg.starts_with("--status-field=")) {
    const std::string_view pair = value_of("--status-field=");
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      throw UsageError(fmt::format("{}: expected --status-field=KEY=VALUE", arg));
    }
    options.status_fields.insert_or_assign(std::string(pair.substr(0, equals)),
                                           std::string(pair.substr(equals + 1)));
  } else if (arg.starts_with("--benchmark_context=")) {
    add_context(arg, value_of("--benchmark_context="), options.context);
  } else if (arg.starts_with("--benchmark_") || arg == "--v" || arg.starts_with("--v=")) {
    options.benchmark_args.push_back(check_benchmark_flag(arg, options, min_time));
  } else if (arg.starts_with("--device=")) {
    options.devices = parse_devices(arg, value_of("--device="));
  } else if (arg == "--info") {
    options.info = true;
  } else if (arg == "--describe") {
    options.describe = true;
  } else if (arg == "--version") {
    options.version = true;
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

// An argument and, for one from the environment, what its messages add to say so.
struct Argument {
  std::string text;
  std::string origin;
};

std::vector<Argument> arguments(const std::vector<std::string>& args,
                                const std::vector<FlagFromEnvironment>& environment) {
  std::vector<Argument> all;
  for (const FlagFromEnvironment& variable : environment) {
    all.push_back({fmt::format("--{}={}", lower(variable.variable), variable.value),
                   fmt::format(" (from the environment variable {})", variable.variable)});
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    all.push_back({args[i], ""});
  }
  return all;
}

// --describe, --info, --version and a listing each print something in place of a run, and write
// no --benchmark_out: given together, all but one would be ignored. --help answers whatever else
// is given.
void require_one_mode(const Options& options) {
  if (options.help) {
    return;
  }
  std::vector<std::string_view> modes;
  for (const auto& [given, flag] :
       {std::pair{options.describe, "--describe"}, std::pair{options.info, "--info"},
        std::pair{options.version, "--version"},
        std::pair{options.list_only, "--benchmark_list_tests"}}) {
    if (given) {
      modes.push_back(flag);
    }
  }
  if (modes.size() > 1) {
    throw UsageError(fmt::format("{}: each prints something in place of a run; give one",
                                 fmt::join(modes, " and ")));
  }
  if (options.out_given && (options.describe || options.info || options.version)) {
    throw UsageError(fmt::format("--benchmark_out={}: {} prints on standard output and writes no "
                                 "file; a run writes it",
                                 options.out_file, modes.front()));
  }
}

} // namespace

Options parse_options(const std::vector<std::string>& args,
                      const std::vector<ExtraFlag>& extra_flags, MinTimeSyntax min_time,
                      const std::vector<FlagFromEnvironment>& environment) {
  Options options;
  // Google Benchmark writes it into the JSON as `executable`, escaping only a few characters: a
  // control character or a byte that is not UTF-8 would leave the file invalid.
  options.benchmark_args.push_back(args.empty() ? "gpubench" : printable(args.front()));
  std::string out_origin;
  for (const Argument& arg : arguments(args, environment)) {
    try {
      parse_arg(arg.text, options, extra_flags, min_time);
    } catch (const UsageError& error) {
      throw UsageError(error.what() + arg.origin);
    }
    if (arg.text.starts_with("--benchmark_out=")) {
      out_origin = arg.origin;
    }
  }
  if (!options.context.empty()) {
    std::vector<std::string> pairs;
    for (const auto& [key, value] : options.context) {
      pairs.push_back(fmt::format("{}={}", key, value));
    }
    options.benchmark_args.push_back(fmt::format("--benchmark_context={}", fmt::join(pairs, ",")));
  }
  // BENCHMARK_OUT in the environment (a job's for every command it runs) names where runs
  // write: --describe, --info and --version, which write no file, leave it be.
  if (options.out_given && !out_origin.empty() &&
      (options.describe || options.info || options.version)) {
    options.out_given = false;
    options.out_file.clear();
  }
  require_one_mode(options);
  if (!options.status_fields.empty() && options.status_out.empty()) {
    throw UsageError(fmt::format("--status-field={}=...: given without --status-out",
                                 options.status_fields.begin()->first));
  }
  if (options.out_given) {
    try {
      require_writable_file("--benchmark_out=" + options.out_file, options.out_file,
                            !options.list_only);
    } catch (const UsageError& error) {
      throw UsageError(error.what() + out_origin);
    }
  }
  return options;
}

bool is_open_on(int fd, const struct stat& file) {
  struct stat open_on {};
  return fstat(fd, &open_on) == 0 && open_on.st_dev == file.st_dev &&
         open_on.st_ino == file.st_ino;
}

std::vector<std::pair<std::string, std::string>> run_settings(const Options& options) {
  std::vector<std::pair<std::string, std::string>> settings{
      {"benchmark_min_time", options.min_time.value_or(with_unit(default_min_time_seconds))},
      {"benchmark_min_warmup_time", options.min_warmup_time},
      {"benchmark_enable_random_interleaving", options.random_interleaving ? "true" : "false"}};
  if (!options.filter.empty()) {
    settings.emplace_back("benchmark_filter", printable(options.filter));
  }
  for (const auto& [flag, value] : options.family_flags) {
    settings.emplace_back(flag, printable(value));
  }
  return settings;
}

bool written_context_key(std::string_view key) {
  // Google Benchmark's own (its JSON writer's), then gpubench's: bench/gpu_context.cpp,
  // bench/run_health.cpp, bench/harness/device_energy.cpp, the families' (saxpy_l2; peer_<s>to<d>
  // below), bench/main.cpp's and run_settings'.
  static constexpr std::string_view keys[] = {
      "date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
      "caches", "load_avg", "library_version", "library_build_type", "json_schema_version",
      "gpu_name", "gpu_uuid", "compute_capability", "sm_count", "gpu_memory_bytes",
      "memory_bus_width_bits", "memory_clock_khz", "pcie_link", "driver_version",
      "driver_cuda_version", "cuda_runtime_version", "gpubench_version", "gpubench_build_type",
      "gpu_ordinal", "gpu_pci_bus_id", "l2_bytes", "host_numa_node", "host_numa_far_node",
      "gpu_state_before", "gpu_state_after", "gpu_count", "selected_devices", "slurm_job_id",
      "slurm_node", "slurm_proc_id", "k8s_node", "k8s_pod", "gpu_health_before",
      "gpu_health_after", "energy", "saxpy_l2", "run_status", "interrupted", "gpubench_families",
      "benchmark_min_time", "benchmark_min_warmup_time", "benchmark_enable_random_interleaving",
      "benchmark_filter"};
  // Numbered by device or pair of devices: device_<N>, device_<N>_health_before, peer_<s>to<d>.
  const auto numbered = [key](std::string_view prefix) {
    return key.starts_with(prefix) && key.size() > prefix.size() &&
           std::isdigit(static_cast<unsigned char>(key[prefix.size()])) != 0;
  };
  // A family flag given, under its own name (run_settings): "--sizes".
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys) ||
         numbered("device_") || numbered("peer_") || key.starts_with("--");
}

std::string followed_links(const std::string& path, std::error_code& error) {
  // As many links as Linux follows in one path before it gives ELOOP.
  constexpr int most_links = 40;
  error.clear();
  std::string name = path;
  for (int links = 0; links <= most_links; ++links) {
    struct stat status {};
    if (lstat(name.c_str(), &status) != 0) {
      return name; // not there yet: where the file goes (or, unreachable, says why when written)
    }
    if (!S_ISLNK(status.st_mode)) {
      return name;
    }
    name = link_target(name, error);
    if (error) {
      return path;
    }
  }
  error = std::make_error_code(std::errc::too_many_symbolic_link_levels);
  return path;
}

std::string usage(const std::vector<ExtraFlag>& extra_flags) {
  std::string text =
      "usage: gpubench [--device=N|N,M,...|all] [--info] [--describe] [--version] [--energy] "
      "[--status-out=FILE [--status-field=KEY=VALUE...]] [FAMILY FLAGS] [--benchmark_...]\n"
      "  --device=LIST  the CUDA devices to measure (default 0); with several, each benchmark\n"
      "                 runs on each, named .../device:N\n"
      "  --info         list the devices, their links and the embedded kernels' resource usage\n"
      "  --describe     print each family's name grammar, figures and flags as JSON (no GPU\n"
      "                 needed; docs/family-facts.md)\n"
      "  --version      print gpubench's version and build type, as a run's JSON context holds\n"
      "                 them (gpubench_version, gpubench_build_type; no GPU needed)\n"
      "  --energy       after each timed loop of saxpy, copy, peer and launch, about a second of\n"
      "                 the same operation read by NVML's energy counter: joules_per_gb or\n"
      "                 uj_per_launch, and each above the device's idle power\n"
      "  --status-out=FILE  the run's status record (docs/cluster.md): `running` from its\n"
      "                 start, then its end's status and exit status; --status-field=KEY=VALUE\n"
      "                 (gpu_uuid, node, job, task, device, attempt) adds a field\n";
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
