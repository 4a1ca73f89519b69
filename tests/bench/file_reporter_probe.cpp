// A stand-in for gpubench's run loop without a GPU: the FileReporter and the interrupt handling
// gpubench uses, around benchmarks that only sleep. Each benchmark is reported as Google
// Benchmark reports one; a signal stops the loop at its next check, as the timed loop does.
// With `console`, each benchmark's name is also printed on stdout, as the console table is.
//   file_reporter_probe OUT FORMAT COUNT MS_PER_BENCHMARK [console]
#include "file_reporter.hpp"
#include "interrupt.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

namespace {

namespace bench = gpubench::bench;

benchmark::BenchmarkReporter::Run run_named(const std::string& name) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.iterations = 100;
  run.real_accumulated_time = 1e-3;
  run.cpu_accumulated_time = 1e-3;
  run.time_unit = benchmark::kMicrosecond;
  return run;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 5 && !(argc == 6 && std::string(argv[5]) == "console")) {
    static_cast<void>(
        std::fputs("usage: file_reporter_probe OUT FORMAT COUNT MS [console]\n", stderr));
    return 2;
  }
  const bool console = argc == 6;
  const std::string out = argv[1];
  const int count = std::stoi(argv[3]);
  const auto pause = std::chrono::milliseconds(std::stoi(argv[4]));
  bench::install_interrupt_handlers();
  bench::FileReporter file(out, argv[2]);
  file.set_context("run_status", "running");
  bench::on_interrupt([&](int signal) {
    file.set_context("interrupted", bench::signal_name(signal));
    file.set_context("run_status", "interrupted");
    file.close();
    fmt::print(stderr, "interrupted; the {} completed are in {}\n", file.reported(), out);
  });
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 10;
  file.ReportContext(context);
  for (int i = 0; i < count; ++i) {
    // Sleeps in short steps, checking for a signal between them as the timed loop does between
    // batches: a benchmark stopped part-way is not reported.
    for (auto slept = std::chrono::milliseconds(0); slept < pause;
         slept += std::chrono::milliseconds(1)) {
      if (bench::interrupt_signal() != 0) {
        bench::finish_interrupted();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    file.ReportRuns({run_named(fmt::format("probe/{}", i))});
    if (console) {
      fmt::print("probe/{}\n", i);
      static_cast<void>(std::fflush(stdout));
    }
  }
  if (bench::interrupt_signal() != 0) {
    bench::finish_interrupted();
  }
  file.set_context("run_status", "complete");
  file.close();
  return file.written() ? 0 : 1;
}
