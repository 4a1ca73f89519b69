#pragma once

#include "options.hpp"

namespace gpubench::bench {

// Hands Google Benchmark its flags (`options.benchmark_args`) with benchmark::Initialize, before
// any GPU work, and throws UsageError naming what it left unread: an unknown flag, one without
// its value, a value it cannot read (with what it printed about it). Google Benchmark reads no
// --benchmark_filter or --benchmark_out from here: gpubench applies the filter as it registers
// (Options::filter) and writes the file itself (FileReporter), so a run with an output file
// names /dev/null, which Google Benchmark opens and never writes, for it to hand the run to a
// file reporter at all. gpubench's own run length, and microseconds as the time unit, apply
// unless --benchmark_min_time or --benchmark_time_unit says otherwise. Keeps pointers
// into `options.benchmark_args` (the program name for the JSON context): leave it unchanged.
void initialize_benchmark(Options& options);

// Google Benchmark's flags as the environment sets them, to be checked as flags given before the
// command line's (parse_options). Google Benchmark reads each flag's default from a variable
// named as the flag upper-cased, and does so as its library initializes, before main() and
// unchecked; gpubench takes those variables out of the environment before any library
// initializes, so Google Benchmark sees only what gpubench has checked. V (--v) is taken out and
// ignored: too common a name (make's V=1) to be read as a flag.
[[nodiscard]] std::vector<FlagFromEnvironment> benchmark_flags_from_environment();

} // namespace gpubench::bench
