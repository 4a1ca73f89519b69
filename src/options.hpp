#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {

// Whether saxpy's timed iterations start with a cold L2 (flushed) or a warm one.
enum class L2Mode { cold, warm };

[[nodiscard]] const char* to_string(L2Mode mode);

// gpubench's own flags; everything that starts with --benchmark_ (and --v) is Google
// Benchmark's and is passed through untouched in `benchmark_args`, after the program name.
struct Options {
  int device = 0;
  bool info = false;
  bool help = false;
  bool list_only = false; // --benchmark_list_tests: needs no GPU
  std::optional<std::vector<std::size_t>> sizes;
  L2Mode l2 = L2Mode::cold;
  std::vector<std::string> benchmark_args;
};

class UsageError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// Throws UsageError with a one-line message naming the flag and what is wrong with it.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args);

[[nodiscard]] const char* usage();

} // namespace gpubench
