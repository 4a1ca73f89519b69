// What gpubench needs to start: everything that runs no GPU work (--version, --help,
// --describe, --benchmark_list_tests, a bad flag) starts and answers within 100 MiB of address
// space, and nothing the loader maps before main is cuBLAS, which only saxpy/cublas uses and
// which loads when that benchmark first runs (bench/saxpy/cublas_library.hpp).
#include "context.hpp"
#include "cuda_error.hpp"
#include "limited_process.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpubench::testing {
namespace {

constexpr rlim_t startup_address_space_bytes = rlim_t{100} << 20;

std::vector<std::string> gpubench_argv(const std::vector<std::string>& args) {
  return command_line(GPUBENCH_BINARY, args);
}

// Whether a CUDA driver answers here: a listing then counts its devices, and the driver's
// start needs more address space than 100 MiB.
bool driver_answers() {
  try {
    static_cast<void>(device_count());
    return true;
  } catch (const CudaError&) {
    return false;
  }
}

// The loader's own account of what it maps before main (LD_TRACE_LOADED_OBJECTS, as ldd asks
// it): every library the binary needs, directly or through another, and none of cuBLAS. A host
// without cuBLAS starts gpubench.
TEST(Startup, NoCublasLibraryIsLoadedAtStart) {
  Process process({GPUBENCH_BINARY}, Stream::captured, Stream::captured, Group::shared,
                  {.program = "", .environment = {"LD_TRACE_LOADED_OBJECTS=1"}});
  const Finished run = process.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The trace itself worked: it names the C library every program maps.
  ASSERT_NE(run.out.find("libc.so"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("libcublas"), std::string::npos) << run.out;
}

// Each path that runs no GPU work gives, within 100 MiB of address space, what it gives without
// a limit: its exit status, its stderr and its stdout. A listing counts the devices where a
// driver answers, which the limit may not let it start: there it must still list, on its own.
TEST(Startup, PathsWithoutGpuWorkRunInOneHundredMiBOfAddressSpace) {
  const std::vector<std::vector<std::string>> paths{
      {"--version"},
      {"--help"},
      {"--describe"},
      {"--benchmark_list_tests"},
      {"--benchmark_list_tests", "--benchmark_filter=^saxpy/cublas/"},
      {"--no_such_flag"},
      {"--device=abc"},
  };
  const bool counts_devices = driver_answers();
  for (const std::vector<std::string>& args : paths) {
    const Finished free = run_limited(gpubench_argv(args), {});
    const Finished limited =
        run_limited(gpubench_argv(args), {{RLIMIT_AS, startup_address_space_bytes}});
    EXPECT_EQ(limited.signal, 0) << shown_args(args) << ": " << limited.err;
    EXPECT_EQ(limited.exit_code, free.exit_code) << shown_args(args) << ": " << limited.err;
    EXPECT_EQ(limited.err, free.err) << shown_args(args);
    if (counts_devices && args.front() == "--benchmark_list_tests") {
      EXPECT_FALSE(limited.out.empty()) << shown_args(args);
    } else {
      EXPECT_EQ(limited.out, free.out) << shown_args(args);
    }
  }
}

} // namespace
} // namespace gpubench::testing
