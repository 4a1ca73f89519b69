#!/usr/bin/env bash
# One call on a GPU machine: configure, build, run every test, then the benchmark families named
# in FAMILIES (unset: all; empty: none), each into <family>.json. Logs go to OUT (default
# ./gpu-run) and a short summary to stdout; each line of a family's console output is stamped
# with the seconds since it started, to show where a run's time goes. Each step removes its own
# files of an earlier session before it runs, so what OUT holds of a step is this session's
# (files of steps skipped or families not named stay as they were).
# A FAMILIES name that is not a family name (letters, digits, underscores) is one line and exit
# status 1 before any step. A tool a step needs missing from PATH (cmake, ctest, timeout, stdbuf,
# perl) is one line before any step. A failed configure or build, or no gpubench in BUILD_DIR,
# ends the session; any other step runs even where one before it failed. The exit status is 0
# where every step succeeded; else 1, with a last line on stderr naming each step that failed
# and its exit status. A signal (HUP, INT, TERM: a scheduler's time limit, Ctrl-C) passes to
# the running step, and the session ends with 128 + the signal's number and a line naming it
# once that step has ended. Steps are bounded: --info by INFO_TIMEOUT (120 s), ctest by
# TEST_TIMEOUT (300 s), each family by FAMILY_TIMEOUT (300 s); one that runs out fails with exit
# status 124.
# Usage: FAMILIES="saxpy launch" tools/gpu_session.sh [gpubench flags]
set -uo pipefail
out=${OUT:-$PWD/gpu-run}
build=${BUILD_DIR:-build-gpu}
# A name starting with a dash is a path to the commands it is passed to, not an option.
[[ $out == -* ]] && out=./$out
[[ $build == -* ]] && build=./$build
failed=()
step_pid=
exec {session_stderr}>&2 # stop's line, from within a step's redirections

# A signal to the session passes to the running step, and the session ends when the step has:
# every step runs under timeout, which runs its command in a process group of its own (which a
# signal to the session's group does not reach), passes on to the whole group what it is sent
# (ninja and the compilers under cmake --build with it), and gives its command default handling
# of SIGINT, which bash leaves ignored in a background command.
stop() {
  if [[ -n $step_pid ]]; then
    kill -s "$1" "$step_pid" 2> /dev/null
    wait "$step_pid"
  fi
  echo "gpu_session: stopped by SIG$1 (logs in $out)" >&"$session_stderr"
  exit $((128 + $2))
}
trap 'stop HUP 1' HUP
trap 'stop INT 2' INT
trap 'stop TERM 15' TERM

# Runs "$@" as the running step, in the background so that a signal's trap runs while it does;
# returns its exit status.
step() {
  "$@" &
  step_pid=$!
  wait "$step_pid"
  local status=$?
  step_pid=
  return "$status"
}

# Records step $1 as failed with exit status $2 where $2 is not 0.
note() {
  (($2 == 0)) || failed+=("$1 (exit status $2)")
}

# The GPU's clocks, temperature and power into $out/gpu_state_$1.csv.
gpu_state() {
  rm -f "$out/gpu_state_$1.csv"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv > "$out/gpu_state_$1.csv" 2>&1
  note "nvidia-smi ($1)" $?
}

# Where a step failed: one line naming each, and exit status 1.
report_failures() {
  ((${#failed[@]})) || return 0
  local list
  list=$(printf '%s; ' "${failed[@]}")
  echo "gpu_session: failed: ${list%; } (logs in $out)" >&2
  exit 1
}

# The tools the steps run, checked before any: one missing fails each step it is in with a status
# that does not name it (a family's console output piped to no perl ends gpubench by SIGPIPE).
# FAMILIES splits on whitespace into names that are never glob patterns. A family name (saxpy,
# launch, ...) is letters, digits and underscores: it is a file name in OUT and part of a
# --benchmark_filter regex, so a '/', '..' or regex character would reach outside either.
read -r -d '' -a families <<< "${FAMILIES-saxpy launch copy peer latency}"
for family in "${families[@]}"; do
  if [[ ! $family =~ ^[A-Za-z0-9_]+$ ]]; then
    echo "gpu_session: FAMILIES: '$family' is not a family name (letters, digits and" \
      "underscores, as gpubench --describe lists them)" >&2
    exit 1
  fi
done
needed=(timeout)
[[ ${SKIP_BUILD:-0} == 1 ]] || needed+=(cmake)
[[ ${SKIP_TESTS:-0} == 1 ]] || needed+=(ctest)
((${#families[@]} == 0)) || needed+=(stdbuf perl)
missing=()
for tool in "${needed[@]}"; do
  type -P -- "$tool" > /dev/null || [[ " ${missing[*]} " == *" $tool "* ]] || missing+=("$tool")
done
if ((${#missing[@]})); then
  echo "gpu_session: not found on PATH: ${missing[*]}" >&2
  exit 1
fi
if ! error=$(mkdir -p "$out" 2>&1); then
  echo "gpu_session: $out: cannot create the output directory (OUT): ${error##*: }" >&2
  exit 1
fi
gpu_state before
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  rm -f "$out/configure.log" "$out/build.log"
  # timeout 0: no time limit, the signals passed on as for every step.
  step timeout 0 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    ${GPUBENCH_GIT_COMMIT:+-DGPUBENCH_GIT_COMMIT="$GPUBENCH_GIT_COMMIT"} > "$out/configure.log" 2>&1 ||
    { tail -40 "$out/configure.log"; failed+=("configure"); report_failures; }
  start=$(date +%s)
  step timeout 0 cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$out/build.log" | head -40; failed+=("build"); report_failures; }
  echo "build: $(( $(date +%s) - start )) s"
fi
if [[ ! -x $build/gpubench ]]; then
  failed+=("$build/gpubench: no such executable (BUILD_DIR; SKIP_BUILD=1 runs an existing build)")
  report_failures
fi
rm -f "$out/info.txt"
# --info answers in seconds; a GPU or driver in trouble can hold it for good.
step timeout "${INFO_TIMEOUT:-120}" "$build/gpubench" --info > "$out/info.txt" 2>&1
note "gpubench --info" $?
cat "$out/info.txt"
if [[ ${SKIP_TESTS:-0} != 1 ]]; then
  rm -f "$out/ctest.log"
  # shellcheck disable=SC2086 # CTEST_ARGS holds several arguments
  step timeout "${TEST_TIMEOUT:-300}" ctest --test-dir "$build" --output-on-failure ${CTEST_ARGS:-} \
    > "$out/ctest.log" 2>&1
  status=$?
  echo "ctest rc=$status"; grep -E "tests passed|Failed|Not Run|\*\*\*Failed|Timeout" "$out/ctest.log" | head -20
  note ctest $status
fi
for family in "${families[@]}"; do
  start=$(date +%s)
  rm -f "$out/$family.json" "$out/$family.txt"
  step timeout "${FAMILY_TIMEOUT:-300}" stdbuf -oL "$build/gpubench" --benchmark_filter="^$family/" \
    --benchmark_out="$out/$family.json" --benchmark_out_format=json "$@" \
    > >(perl -MTime::HiRes=time -pe 'BEGIN { $t0 = time } printf "%8.2f ", time - $t0' \
      > "$out/$family.txt") 2>&1
  status=$?
  wait # the stamping of its console output
  echo "$family rc=$status in $(( $(date +%s) - start )) s"
  note "$family" "$status"
done
gpu_state after
report_failures
