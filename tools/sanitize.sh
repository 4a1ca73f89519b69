#!/usr/bin/env bash
# compute-sanitizer over gpubench on a GPU machine, in one command: memcheck with leak checking
# over the GPU tests and over a short run of every benchmark family, and racecheck over the
# tests. Summaries (the tool's last lines) go to OUT (default results/<gpu>/sanitizer).
# Usage: tools/sanitize.sh [build dir]
# What it needs (the build's gpubench and gpubench_gpu_tests, compute-sanitizer, and nvidia-smi
# to name the GPU where OUT is unset) is checked first: anything missing is one line on stderr,
# exit status 2, before any run. Exit status 1: the sanitizer found errors (or a run failed).
# SIGHUP, SIGINT or SIGTERM stops the running compute-sanitizer and the program under it, waits
# for them, so none is left holding the GPU, and exits 128 + the signal's number with one line.
set -uo pipefail
build=${1:-build}
# A name starting with a dash is a path to the commands it is passed to, not an option.
[[ $build == -* ]] && build=./$build
programs=("$build/gpubench" "$build/tests/gpubench_gpu_tests")

# The last word of the GPU's name, lower case (h200), from nvidia-smi; nothing where it has none.
gpu_name() {
  local name
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null) || return 0
  name=$(head -n 1 <<< "$name" | awk '{print tolower($NF)}')
  [[ $name =~ ^[a-z0-9._-]+$ ]] && echo "$name"
  return 0
}

missing=()
for program in "${programs[@]}"; do
  [[ -x $program ]] || missing+=("$program (build it, or name the build directory)")
done
command -v compute-sanitizer > /dev/null ||
  missing+=("compute-sanitizer (the CUDA toolkit's bin directory on PATH)")
command -v setsid > /dev/null || missing+=("setsid (util-linux)")
out=${OUT:-}
if [[ -z $out ]]; then
  gpu=$(gpu_name)
  if [[ -n $gpu ]]; then
    out=results/$gpu/sanitizer
  else
    missing+=("a GPU name from nvidia-smi --query-gpu=name for results/<gpu>/sanitizer (set OUT)")
  fi
fi
if ((${#missing[@]})); then
  list=$(printf '%s; ' "${missing[@]}")
  echo "sanitize.sh: missing: ${list%; }" >&2
  exit 2
fi
[[ $out == -* ]] && out=./$out
if ! error=$(mkdir -p "$out" 2>&1); then
  echo "sanitize.sh: $out: cannot create the output directory: ${error##*: }" >&2
  exit 2
fi
status=0

# The running compute-sanitizer's process group (the sanitizer and the program under it), where
# one runs: TERM reaches them all. (A background job starts with SIGINT ignored, so INT would not.)
running=
# shellcheck disable=SC2317 # run by the traps
stop() { # signal name, number
  trap '' HUP INT TERM
  if [[ -n $running ]]; then
    kill -s TERM -- "-$running" 2> /dev/null
    wait "$running"
    # The program may outlive the sanitizer: wait until nothing of the group runs, for at most
    # a minute (gpubench stops at its next batch), then SIGKILL what is left.
    local waited=0
    while kill -0 -- "-$running" 2> /dev/null; do
      ((waited++ < 600)) || { kill -s KILL -- "-$running" 2> /dev/null; break; }
      sleep 0.1
    done
  fi
  echo "sanitize.sh: stopped by SIG$1 (summaries so far in $out)" >&2
  exit $((128 + $2))
}
trap 'stop HUP 1' HUP
trap 'stop INT 2' INT
trap 'stop TERM 15' TERM

sanitize() { # name, tool, command...
  local name=$1 tool=$2
  shift 2
  local extra=()
  [[ $tool == memcheck ]] && extra=(--leak-check full)
  # In the background, in a process group of its own, so that a signal's trap runs meanwhile.
  setsid compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$@" \
    > "$out/$name.log" 2>&1 &
  running=$!
  wait "$running"
  local rc=$?
  running=
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
