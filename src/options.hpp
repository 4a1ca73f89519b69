#pragma once

#include "printable.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

struct stat;

namespace gpubench {

// A flag a benchmark family owns ("--sizes"): check() throws UsageError for a value the family
// cannot read, so every occurrence is checked in its turn; the last one's value goes to the
// family.
struct ExtraFlag {
  std::string name;
  std::string help;
  std::function<void(std::string_view value)> check;
};

// The longest --device list: the peer family's pairs grow with its square.
constexpr std::size_t max_devices = 64;

// gpubench's own flags, and those of Google Benchmark's that gpubench does for it: the filter
// and the output file. The other --benchmark_* flags (and --v) are Google Benchmark's, passed on
// in `benchmark_args` after the program name for it to read (bench/benchmark_args.hpp).
struct Options {
  // The devices to measure: --device=N, --device=N,M,... (nullopt: --device=all).
  std::optional<std::vector<int>> devices = std::vector<int>{0};
  bool info = false;
  bool energy = false; // --energy: an energy window after each timed loop that can take one
  bool help = false;
  bool describe = false;  // --describe: the families' facts as JSON, no GPU needed
  bool version = false;   // --version: gpubench's version and build type, no GPU needed
  bool list_only = false; // --benchmark_list_tests: needs no GPU
  // --benchmark_filter, in Google Benchmark's syntax, applied by gpubench as it registers
  // (NameFilter): it needs what matches before the run, to say why nothing does, and Google
  // Benchmark's std::regex overflows its stack on a long filter and backtracks without end on
  // nested quantifiers.
  std::string filter;
  bool out_given = false;
  std::string out_file;            // --benchmark_out
  std::string out_format = "json"; // --benchmark_out_format
  // --status-out: the run's status record (bench/status_record.hpp); empty: none.
  std::string status_out;
  // --status-field=KEY=VALUE, a key's last value: the record's fields the caller knows.
  std::map<std::string, std::string, std::less<>> status_fields;
  // --benchmark_context's pairs from every occurrence, a key's last value: gpubench passes them
  // on as one flag, as Google Benchmark keeps a key's first value where it is given twice.
  std::map<std::string, std::string, std::less<>> context;
  // Each family flag given, with its value (the last one given).
  std::map<std::string, std::string, std::less<>> family_flags;
  std::vector<std::string> benchmark_args;
  // Google Benchmark's settings that change what it measures, from its flags in benchmark_args
  // (the last of a flag given twice, as Google Benchmark reads them), each in seconds with its
  // unit ("0.5s") or in iterations ("100x"), as Google Benchmark 1.8 spells them whichever
  // version reads them: run_settings() states them.
  std::optional<std::string> min_time; // --benchmark_min_time; none: gpubench's default
  std::string min_warmup_time = "0s";  // --benchmark_min_warmup_time
  bool random_interleaving = false;    // --benchmark_enable_random_interleaving
};

// The --benchmark_min_time gpubench gives Google Benchmark where none is given, in seconds.
// gpubench decides how long each benchmark measures: its timed loop runs inside one Google
// Benchmark call until the figure is known to 0.5% or a time cap is reached (bench/harness/
// stopping_rule.hpp). A minimum time of 0 lets Google Benchmark accept that first call instead
// of calling the whole body (setup, warm-up, timed loop, verification) again and again until
// its own minimum is measured. A --benchmark_min_time the user gives keeps Google Benchmark's
// meaning: at least that much measured time (or that many iterations) per benchmark.
constexpr std::string_view default_min_time_seconds = "0";

// The most gpubench takes of Google Benchmark's run lengths: far beyond what any measurement
// needs, and each still a run that ends.
constexpr int max_repetitions = 10000;                 // --benchmark_repetitions
constexpr double max_seconds = 86400.0;                // --benchmark_min_time, _min_warmup_time
// The least non-zero time those two take: a nanosecond, the unit of Google Benchmark's clock.
// Google Benchmark 1.8 reads --benchmark_min_time with strtod, which reports a subnormal
// (1e-310) as out of range, and where it is built with its checks (without NDEBUG) it then
// aborts as the first benchmark starts.
constexpr double min_seconds = 1e-9;
constexpr std::int64_t max_iterations = 1'000'000'000; // --benchmark_min_time=100x, as high
                                                       // as Google Benchmark grows a count

// A Google Benchmark flag set by an environment variable: Google Benchmark reads each of its
// flags' defaults from the variable of the flag's name upper-cased (BENCHMARK_REPETITIONS for
// --benchmark_repetitions), and gpubench takes it as that flag given before the command line's.
struct FlagFromEnvironment {
  std::string variable;
  std::string value;
};

// How the linked Google Benchmark reads --benchmark_min_time: 1.8 and later take seconds with a
// unit ("0.5s") or iterations ("100x") and warn for every benchmark about a bare number; 1.7
// takes only a bare number of seconds and rejects the rest after printing its own error.
// gpubench accepts "0.5" and "0.5s" with either and passes on the spelling the version reads.
enum class MinTimeSyntax { bare_seconds, with_unit };

// Its text is printable(): a value with a newline or an escape sequence in it stays one line.
class UsageError : public std::invalid_argument {
public:
  explicit UsageError(std::string_view message) : std::invalid_argument(printable(message)) {}
};

// Throws UsageError with a one-line message naming the flag and what is wrong with it (and the
// variable, for a flag from the environment). The flags from the environment come first, so the
// command line's win. Unless listing, --benchmark_out is opened (never truncated; a new file is
// created and removed) to prove it can be written before any GPU work.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args,
                                    const std::vector<ExtraFlag>& extra_flags = {},
                                    MinTimeSyntax min_time = MinTimeSyntax::with_unit,
                                    const std::vector<FlagFromEnvironment>& environment = {});

// Google Benchmark's settings of a run that change what it measures, as the JSON context states
// them: benchmark_min_time (Options::min_time, gpubench's default "0s" where none is given),
// benchmark_min_warmup_time, benchmark_enable_random_interleaving ("true" or "false"),
// benchmark_filter, printable(), where one is given (among fewer others a benchmark can measure
// otherwise); then each family flag given, under its own name and printable() ("--sizes":
// "1G,4G"), so that a run can be measured again as this one was (scripts/gpubench-tools flags).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> run_settings(const Options& options);

// Whether gpubench or Google Benchmark writes `key` in the JSON context itself: a
// --benchmark_context key must be none of them, or the file would hold the key twice.
[[nodiscard]] bool written_context_key(std::string_view key);

// The name a file created through `path` gets, where stat() finds none: `path` with the symbolic
// links it ends in followed, so a dangling link leads to the name it holds. (Where stat() finds
// a file, the kernel follows the links, /proc's to a pipe or a socket too.) Sets `error` (ELOOP
// for a loop, or why a link cannot be read) and returns `path` where they cannot be followed.
[[nodiscard]] std::string followed_links(const std::string& path, std::error_code& error);

// Whether descriptor `fd` is open on the file `file` describes (the same device and inode):
// the file standard output goes to, say, which a JSON output must not take the place of.
[[nodiscard]] bool is_open_on(int fd, const struct stat& file);

[[nodiscard]] std::string usage(const std::vector<ExtraFlag>& extra_flags = {});

} // namespace gpubench
