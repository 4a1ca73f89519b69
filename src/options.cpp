#include "options.hpp"

#include "sizes.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

namespace gpubench {
namespace {

int parse_device(std::string_view value) {
  int device = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), device);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size()) {
    throw UsageError(fmt::format("--device={}: not a device number", value));
  }
  if (device < 0) {
    throw UsageError(fmt::format("--device={}: a device number cannot be negative", value));
  }
  return device;
}

L2Mode parse_l2(std::string_view value) {
  if (value == "cold") {
    return L2Mode::cold;
  }
  if (value == "warm") {
    return L2Mode::warm;
  }
  throw UsageError(fmt::format("--l2={}: expected cold or warm", value));
}

bool is_true_flag(std::string_view arg, std::string_view flag) {
  return arg == flag || arg == fmt::format("{}=true", flag) || arg == fmt::format("{}=1", flag);
}

} // namespace

const char* to_string(L2Mode mode) { return mode == L2Mode::cold ? "cold" : "warm"; }

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  options.benchmark_args.push_back(args.empty() ? "gpubench" : args.front());
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const auto value_of = [arg](std::string_view flag) { return arg.substr(flag.size()); };
    if (arg.starts_with("--benchmark_") || arg.starts_with("--v=")) {
      options.list_only = options.list_only || is_true_flag(arg, "--benchmark_list_tests");
      options.benchmark_args.emplace_back(arg);
    } else if (arg.starts_with("--device=")) {
      options.device = parse_device(value_of("--device="));
    } else if (arg == "--info") {
      options.info = true;
    } else if (arg.starts_with("--sizes=")) {
      try {
        options.sizes = parse_size_list(value_of("--sizes="));
      } catch (const std::invalid_argument& error) {
        throw UsageError(fmt::format("--sizes={}: {}", value_of("--sizes="), error.what()));
      }
    } else if (arg.starts_with("--l2=")) {
      options.l2 = parse_l2(value_of("--l2="));
    } else if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else {
      throw UsageError(fmt::format("unknown flag '{}' (see --help)", arg));
    }
  }
  return options;
}

const char* usage() {
  return R"(usage: gpubench [--device=N] [--info] [--sizes=LIST] [--l2=cold|warm] [--benchmark_...]
  --device=N     the CUDA device to measure (default 0)
  --info         list the devices and the embedded kernels' resource usage, run nothing
  --sizes=LIST   copy sizes: a list or ranges, e.g. 4K,1M,256M or 1K..1G:x2 (default 4B..1GiB, x4)
  --l2=MODE      saxpy: flush the L2 before each timed launch (cold, default) or not (warm)
All --benchmark_* flags are Google Benchmark's (filter, repetitions, out, out_format, ...).
)";
}

} // namespace gpubench
