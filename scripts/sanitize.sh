#!/usr/bin/env bash
# compute-sanitizer over gpubench on a GPU machine, in one command: memcheck with leak checking
# over the GPU tests and over a short run of every benchmark family, and racecheck over the
# tests. Summaries (the tool's last lines) go to OUT (default results/<gpu>/sanitizer).
# Usage: scripts/sanitize.sh [build dir]
set -uo pipefail
build=${1:-build}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | awk '{print tolower($NF)}')
out=${OUT:-results/${gpu}/sanitizer}
mkdir -p "$out"
status=0

sanitize() { # name, tool, command...
  local name=$1 tool=$2
  shift 2
  local extra=()
  [[ $tool == memcheck ]] && extra=(--leak-check full)
  compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$@" > "$out/$name.log" 2>&1
  local rc=$?
  { echo "$ compute-sanitizer --tool $tool ${extra[*]} $*"; echo "exit status: $rc";
    grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|tests passed|PASSED|FAILED" \
      "$out/$name.log" | tail -5; } > "$out/$name.summary.txt"
  cat "$out/$name.summary.txt"
  [[ $rc == 0 ]] && rm -f "$out/$name.log"
  [[ $rc == 0 ]] || status=1
}

# The family runs inside the tests are covered by the benchmark runs below, at small sizes. Five
# tests make a CUDA call fail on purpose (an impossible allocation, a bad image, a missing
# kernel, an oversized parameter block), which the sanitizer would count as API errors: they are
# left out here.
tests_filter='-LaunchPaths.*:CopyPaths.*:SaxpyVariants.*:LaunchHarness.*'
tests_filter+=':Memory.AnImpossible*:Memory.APinned*:Modules.AMissing*:Modules.AnImage*'
tests_filter+=':OversizedPayload.*:LatencyChase.*'
sanitize memcheck_tests memcheck "$build/tests/gpubench_gpu_tests" --gtest_filter="$tests_filter"
sanitize racecheck_tests racecheck "$build/tests/gpubench_gpu_tests" --gtest_filter="$tests_filter"
sanitize memcheck_benchmarks memcheck "$build/gpubench" --sizes=4,64K,1M \
  --latency-sizes=4K,1M --latency-link-sizes=4K \
  --benchmark_filter='^saxpy/[a-z0-9]+/(1024|65536)/|^launch/[a-z_]+/[a-z]+/params:(0|4096)/|^launch/module/|^copy/|^latency/' \
  --benchmark_min_time=0.001s
exit $status
