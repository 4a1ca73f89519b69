#pragma once

#include "options.hpp"

#include <string>
#include <vector>

namespace gpubench::bench {

// Google Benchmark's arguments: gpubench writes --benchmark_out itself (FileReporter), so
// Google Benchmark never opens it; it hands a file reporter the run only with --benchmark_out
// set, so a run with an output file names /dev/null, which it opens and never writes. A listing
// has no file reporter. gpubench applies --benchmark_filter itself, at registration (Google
// Benchmark's std::regex overflows the stack on a long filter and backtracks without end on
// some shapes).
// gpubench's own run length applies unless one is given. The program name is never a flag.
// The pointers are into `args`, with a null at the end, as main's argv.
[[nodiscard]] std::vector<char*> benchmark_argv(const Options& options,
                                                std::vector<std::string>& args);

// The last --benchmark_filter's value, after the program name.
[[nodiscard]] std::string filter_of(const std::vector<std::string>& args);

} // namespace gpubench::bench
