#!/usr/bin/env bash
# tools/gpu_session.sh sent SIGTERM while gpubench runs the copy family on the GPU: the
# session exits 143 with one line, no gpubench is left running, and copy.json's run_status says
# interrupted. Usage, from the repository root:
# tools/gpu_checks/session_signal.sh <build dir> <output dir>
set -u
build=$1 out=$2
mkdir -p "$out"
SKIP_BUILD=1 SKIP_TESTS=1 FAMILIES=copy BUILD_DIR=$build OUT=$out bash tools/gpu_session.sh \
  > "$out/session.out" 2> "$out/session.err" &
session=$!
sleep 8 # --info done, the copy family timing
kill -TERM "$session"
wait "$session"
rc=$?
left=$(pgrep -fc "$build/gpubench")
run_status=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['context']['run_status'])" \
  "$out/copy.json" 2>&1)
echo "session exit status $rc (143 wanted); its stderr: $(cat "$out/session.err")"
echo "gpubench processes left: $left (0 wanted); copy.json run_status: $run_status (interrupted wanted)"
