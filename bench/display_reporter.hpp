#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

namespace gpubench::bench {

// The console (or --benchmark_format) reporter Google Benchmark would make, with what Google
// Benchmark writes to its error stream before a run starts said as gpubench's lines: a filter
// that matches nothing, a pattern it cannot compile, an output file it cannot open (it exits
// right after). Once the run starts, the context goes to stderr as Google Benchmark prints it.
class DisplayReporter : public benchmark::BenchmarkReporter {
public:
  DisplayReporter();
  DisplayReporter(const DisplayReporter&) = delete;
  DisplayReporter& operator=(const DisplayReporter&) = delete;
  DisplayReporter(DisplayReporter&&) = delete;
  DisplayReporter& operator=(DisplayReporter&&) = delete;
  ~DisplayReporter() override;
  // Google Benchmark's context as it prints it, and where it warns that its library is a debug
  // build, the line that says what that warning covers.
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override { format_->ReportRuns(runs); }
  void Finalize() override { format_->Finalize(); }

private:
  std::unique_ptr<std::streambuf> lines_; // each line said as gpubench's (say.hpp)
  std::ostream before_run_;
  benchmark::BenchmarkReporter* format_; // Google Benchmark's, alive for the whole program
};

} // namespace gpubench::bench
