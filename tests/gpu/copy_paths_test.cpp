// Every copy case delivers its random bytes intact (the benchmark's own verification), at a
// size below a page, a page, and sizes where the copy engines' bulk path takes over.
#include "gpu_test.hpp"

namespace gpubench::testing {
namespace {

TEST(CopyPaths, EveryCaseDeliversItsBytes) {
  GPUBENCH_REQUIRE_GPU();
  // (HtoD + DtoH) x (4 kinds x 2 apis + zerocopy) + 4 bidir + 2 DtoD + HtoH = 25 cases, 4 sizes
  // each.
  expect_all_verified(run_benchmarks("^copy/"), 25U * 4U, "us_per_copy");
}

} // namespace
} // namespace gpubench::testing
