#pragma once

#include "printable.hpp"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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
  bool list_only = false; // --benchmark_list_tests: needs no GPU
  // --benchmark_filter, in Google Benchmark's syntax, applied by gpubench as it registers
  // (NameFilter): it needs what matches before the run, to say why nothing does, and Google
  // Benchmark's std::regex overflows its stack on a long filter and backtracks without end on
  // nested quantifiers.
  std::string filter;
  bool out_given = false;
  std::string out_file;            // --benchmark_out
  std::string out_format = "json"; // --benchmark_out_format
  // Each family flag given, with its value (the last one given).
  std::map<std::string, std::string, std::less<>> family_flags;
  std::vector<std::string> benchmark_args;
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

// Throws UsageError with a one-line message naming the flag and what is wrong with it. Unless
// listing, --benchmark_out is opened (never truncated; a new file is created and removed) to
// prove it can be written before any GPU work.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args,
                                    const std::vector<ExtraFlag>& extra_flags = {},
                                    MinTimeSyntax min_time = MinTimeSyntax::with_unit);

[[nodiscard]] std::string usage(const std::vector<ExtraFlag>& extra_flags = {});

} // namespace gpubench
