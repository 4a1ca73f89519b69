#include "benchmark_json.hpp"

#include "process.hpp"

namespace gpubench::testing {
namespace {

// One tab-separated line per context key and per benchmark; tabs and newlines in values become
// spaces.
constexpr const char* summarize = R"(import json, sys
def s(v): return str(v).replace("\t", " ").replace("\n", " ")
d = json.load(open(sys.argv[1]))
for k, v in d["context"].items(): print("context", s(k), s(v), sep="\t")
for b in d["benchmarks"]:
    print("benchmark", s(b["name"]), int(bool(b.get("error_occurred", False))),
          s(b.get("error_message", "")), int("iterations" in b and "real_time" in b), sep="\t")
)";

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t tab = line.find('\t', begin);
    fields.push_back(line.substr(begin, tab - begin));
    if (tab == std::string::npos) {
      return fields;
    }
    begin = tab + 1;
  }
}

} // namespace

BenchmarkJson read_benchmark_json(const std::string& path) {
  const Finished python = run_process({"/usr/bin/env", "python3", "-c", summarize, path});
  BenchmarkJson json;
  if (python.exit_code != 0) {
    const std::vector<std::string> lines = lines_of(python.err);
    json.problem = lines.empty() ? "python3 failed" : lines.back();
    return json;
  }
  json.valid = true;
  for (const std::string& line : lines_of(python.out)) {
    const std::vector<std::string> f = fields_of(line);
    if (f.size() == 3 && f[0] == "context") {
      json.context[f[1]] = f[2];
    } else if (f.size() == 5 && f[0] == "benchmark") {
      json.benchmarks.push_back({f[1], f[2] == "1", f[3], f[4] == "1"});
    }
  }
  return json;
}

} // namespace gpubench::testing
