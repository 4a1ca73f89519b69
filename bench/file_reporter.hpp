#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpubench::bench {

// The --benchmark_out reporter: Google Benchmark's own for the format (json, csv, console),
// held by gpubench so that a run stopped by a signal can still close the file as valid output
// holding every benchmark completed so far.
class FileReporter : public benchmark::BenchmarkReporter {
public:
  explicit FileReporter(const std::string& format);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // Benchmarks reported so far.
  [[nodiscard]] std::size_t reported() const noexcept { return reported_; }
  // Whether everything so far reached the file. Recorded at each report, since the stream is
  // Google Benchmark's and is gone once RunSpecifiedBenchmarks returns.
  [[nodiscard]] bool written() const noexcept { return written_; }

private:
  void note_stream_state();

  std::unique_ptr<benchmark::BenchmarkReporter> format_;
  std::size_t reported_ = 0;
  bool written_ = true;
  bool finalized_ = false;
};

} // namespace gpubench::bench
