#!/usr/bin/env bash
# tools/sanitize.sh sent SIGTERM while compute-sanitizer runs the GPU tests under memcheck: it
# exits 143 with one line, and neither compute-sanitizer nor the tests under it are left running.
# Usage, from the repository root:
# tools/gpu_checks/sanitize_signal.sh <build dir> <output dir>
set -u
build=$1 out=$2
mkdir -p "$out"
OUT=$out/sanitizer bash tools/sanitize.sh "$build" > "$out/sanitize.out" 2> "$out/sanitize.err" &
session=$!
sleep 20 # memcheck over the GPU tests takes minutes
running="compute-sanitizer $(pgrep -c -f compute-sanitizer), gpubench_gpu_tests $(pgrep -c -f gpubench_gpu_tests)"
kill -TERM "$session"
wait "$session"
rc=$?
left="compute-sanitizer $(pgrep -c -f compute-sanitizer), gpubench_gpu_tests $(pgrep -c -f gpubench_gpu_tests)"
echo "running when signalled: $running"
echo "sanitize.sh exit status $rc (143 wanted); its stderr: $(cat "$out/sanitize.err")"
echo "left running: $left (0 and 0 wanted)"
