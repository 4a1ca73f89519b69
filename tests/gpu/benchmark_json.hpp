#pragma once

// What a Google Benchmark JSON file holds, read by Python's json module (a strict parser), so a
// test can check a file gpubench wrote the way a script reading it would.

#include <map>
#include <string>
#include <vector>

namespace gpubench::testing {

struct JsonBenchmark {
  std::string name;
  bool error = false;    // error_occurred (SkipWithError)
  std::string message;   // error_message
  bool complete = false; // has iterations and real_time
};

struct BenchmarkJson {
  bool valid = false;
  std::string problem; // why it is not valid: the parser's last line
  std::map<std::string, std::string> context;
  std::vector<JsonBenchmark> benchmarks;
};

[[nodiscard]] BenchmarkJson read_benchmark_json(const std::string& path);

} // namespace gpubench::testing
