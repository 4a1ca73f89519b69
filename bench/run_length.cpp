#include "run_length.hpp"

#include <algorithm>

namespace gpubench::bench {

namespace {

constexpr double host_timed_default_seconds = 0.5;
// Google Benchmark 1.8 wants the unit and warns per benchmark without it; 1.7 cannot parse it.
constexpr const char* default_min_time_flag = "--benchmark_min_time=0.05" GPUBENCH_MIN_TIME_UNIT;

bool has_min_time(const std::vector<std::string>& benchmark_args) {
  return std::any_of(benchmark_args.begin(), benchmark_args.end(), [](const std::string& arg) {
    return arg.starts_with("--benchmark_min_time=");
  });
}

} // namespace

RunLengths run_lengths(const std::vector<std::string>& benchmark_args) {
  return has_min_time(benchmark_args) ? RunLengths{} : RunLengths{host_timed_default_seconds};
}

void add_default_min_time(std::vector<std::string>& benchmark_args) {
  if (!has_min_time(benchmark_args)) {
    benchmark_args.emplace_back(default_min_time_flag);
  }
}

benchmark::internal::Benchmark* host_timed(benchmark::internal::Benchmark* benchmark,
                                           const RunLengths& lengths) {
  if (lengths.host_timed_seconds) {
    benchmark->MinTime(*lengths.host_timed_seconds);
  }
  return benchmark;
}

} // namespace gpubench::bench
