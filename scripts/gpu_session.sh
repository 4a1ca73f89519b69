#!/usr/bin/env bash
# One call on a GPU machine: configure, build, run every test, then the benchmark families named
# in FAMILIES (unset: all; empty: none), each into <family>.json. Logs go to OUT (default
# ./gpu-run) and a short summary to stdout; each line of a family's console output is stamped
# with the seconds since it started, to show where a run's time goes.
# Usage: FAMILIES="saxpy launch" scripts/gpu_session.sh [gpubench flags]
set -uo pipefail
out=${OUT:-$PWD/gpu-run}
build=${BUILD_DIR:-build-gpu}
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$out/gpu_state_before.csv" 2>&1
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    ${GPUBENCH_GIT_COMMIT:+-DGPUBENCH_GIT_COMMIT="$GPUBENCH_GIT_COMMIT"} > "$out/configure.log" 2>&1 ||
    { tail -40 "$out/configure.log"; exit 1; }
  start=$(date +%s)
  cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$out/build.log" | head -40; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
fi
"$build/gpubench" --info > "$out/info.txt" 2>&1; cat "$out/info.txt"
if [[ ${SKIP_TESTS:-0} != 1 ]]; then
  (cd "$build" && timeout "${TEST_TIMEOUT:-300}" ctest --output-on-failure ${CTEST_ARGS:-}) \
    > "$out/ctest.log" 2>&1
  echo "ctest rc=$?"; grep -E "tests passed|Failed|Not Run|\*\*\*Failed|Timeout" "$out/ctest.log" | head -20
fi
for family in ${FAMILIES-saxpy launch copy peer latency}; do
  start=$(date +%s)
  timeout "${FAMILY_TIMEOUT:-300}" stdbuf -oL "$build/gpubench" --benchmark_filter="^$family/" \
    --benchmark_out="$out/$family.json" --benchmark_out_format=json "$@" 2>&1 |
    perl -MTime::HiRes=time -pe 'BEGIN { $t0 = time } printf "%8.2f ", time - $t0' \
      > "$out/$family.txt"
  echo "$family rc=${PIPESTATUS[0]} in $(( $(date +%s) - start )) s"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$out/gpu_state_after.csv" 2>&1
