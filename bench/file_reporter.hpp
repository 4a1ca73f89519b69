#pragma once

#include "output_file.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {

// The --benchmark_out reporter: Google Benchmark's own format (json, csv, console) written into
// memory, and after each benchmark the whole document so far, complete and valid, written to
// the file (OutputFile says how). A run stopped at any moment, by a signal or a kill, leaves
// every benchmark completed before it readable. For JSON, the context also holds the keys set
// with set_context, whose values may change up to close() (the run's status, the state after).
class FileReporter : public benchmark::BenchmarkReporter {
public:
  FileReporter(const std::string& path, const std::string& format);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  // Google Benchmark's end of the run: nothing, since the keys known after it come later;
  // close() ends the document.
  void Finalize() override {}

  // Sets a key of the JSON context (other formats have none), written with the next document.
  void set_context(const std::string& key, const std::string& value);
  // The same with a JSON value (an object, a list), written as it is: the caller makes it valid.
  void set_context_json(const std::string& key, const std::string& json_value);
  // Writes the final document: the one written at each checkpoint, and for a file that cannot be
  // replaced the only one. Reports the context first where Google Benchmark never did (no
  // benchmark matched, or the run stopped before it started).
  void close();

  // Benchmark entries (runs and aggregates) reported so far.
  [[nodiscard]] std::size_t reported() const noexcept { return reported_; }
  // Whether every document so far reached the file.
  [[nodiscard]] bool written() const noexcept { return written_; }
  // The document as it would be written now.
  [[nodiscard]] std::string document() const;

private:
  void checkpoint();

  std::unique_ptr<benchmark::BenchmarkReporter> format_;
  bool json_;
  std::string closing_; // what the format's Finalize writes
  std::ostringstream text_;
  // Each key with its value as JSON text.
  std::vector<std::pair<std::string, std::string>> late_context_;
  OutputFile file_;
  std::size_t reported_ = 0;
  bool context_reported_ = false;
  bool written_ = true;
};

} // namespace gpubench::bench
