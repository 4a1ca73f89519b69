// A real run's result file holds in its context, under gpubench_families, the object
// `gpubench --describe` prints, and each benchmark of it carries one of its family's figures.
#include "benchmark_json.hpp"
#include "gpu_test.hpp"
#include "process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpubench::testing {
namespace {

// Prints what is wrong, nothing when right: the context's facts differ from --describe's, or a
// benchmark carries none of its family's figures; then "families: " and those that ran.
constexpr const char* check_context = R"(import json, sys
doc = json.load(open(sys.argv[1]))
facts = doc["context"]["gpubench_families"]
if facts != json.loads(sys.argv[2]): print("the context's facts differ from --describe")
figures = {f["name"]: [g["counter"] for g in f["figures"]] for f in facts["families"]}
ran = []
for b in doc["benchmarks"]:
    family = b["name"].split("/")[0]
    ran.append(family)
    if not any(counter in b for counter in figures.get(family, [])):
        print(b["name"], "carries none of", figures.get(family))
print("families:", " ".join(sorted(set(ran))))
)";

TEST(FamiliesContext, RunFileHoldsTheFactsAndEachBenchmarkAFigure) {
  GPUBENCH_REQUIRE_GPU();
  ScratchDir scratch;
  const std::string out = scratch.path("families.json");
  const Finished run = run_process(
      {GPUBENCH_BINARY,
       "--benchmark_filter=^(saxpy/driver/1024|launch/driver/submit/params:0|"
       "launch/floor/driver/submit|launch/module/cubin_load|copy/HtoD/pinned/async/4096)/",
       "--sizes=4K", "--benchmark_min_time=0.01", "--benchmark_out=" + out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Finished described = run_process({GPUBENCH_BINARY, "--describe"});
  ASSERT_EQ(described.exit_code, 0) << described.err;
  const Finished check =
      run_process({"/usr/bin/env", "python3", "-c", check_context, out, described.out});
  ASSERT_EQ(check.exit_code, 0) << check.err << "\n" << read_file(out);
  EXPECT_EQ(check.out, "families: copy launch saxpy\n") << read_file(out);
}

} // namespace
} // namespace gpubench::testing
