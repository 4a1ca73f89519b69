#!/usr/bin/env bash
# deploy/container/gpubench-pod with the stand-in gpubench and nvidia-smi (tests/cluster/standin)
# on two GPUs, as the Job's pod runs it:
#   pod_test.sh GPUBENCH_POD
# Checks, as docs/cluster.md says: one record per GPU named <node>_<uuid> in GPUBENCH_RESULTS, each
# run seeing its GPU alone and writing its record (--status-out); the log holds each GPU's JSON on one line and its record line, and for a
# failure its stderr and "exit status N"; a JSON past the log limit (the pod's JSON together) is
# not printed; SIGTERM to the script, or the pod's own deadline, reaches the running gpubench,
# whose JSON is marked interrupted, and no further GPU starts, the GPU not started recorded as such; a gpubench ignoring it is killed;
# the exit status is the worst record's. A setting that is not a number, a node, pod or Job name
# unfit for a file name or a record line, no folder for the results (GPUBENCH_RESULTS unset, TMPDIR
# without room), and an nvidia-smi that cannot list the GPUs (failing, not answering, or listing one
# twice), are one line and a non-zero exit status, the latter with a failed record; so are --device
# and --benchmark_out, which the pod sets, and a run that exits 0 without a JSON is failed; results
# that cannot be written (a file size limit, a full disk) are one line naming the file, a failed
# record and exit status 1; real names are taken as they are. Bounded by ctest's TIMEOUT
# (tests/cluster/CMakeLists.txt).
set -euo pipefail

if (($# != 1)); then
  echo "usage: pod_test.sh GPUBENCH_POD" >&2
  exit 2
fi
pod=$(realpath "$1")
command -v python3 > /dev/null || { echo "SKIP: python3 not found"; exit 77; }
work=$(mktemp -d /tmp/gpubench-pod-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $1"
  exit 1
}
standin=$(realpath "$(dirname "$0")/standin")
export PATH=$standin:$PATH
export STANDIN_GPUS=GPU-a1,GPU-b2 NODE_NAME=node1 POD_NAME=gpubench-0-x JOB_NAME=gpubench
field() { sed -n "s/^$2=//p" "$1"; }
mkdir -p "$work/bin"

# Two GPUs, the second failing.
export GPUBENCH_RESULTS=$work/results STANDIN_BEHAVIOUR=GPU-b2=fail
status=0
"$pod" > "$work/log" 2>&1 || status=$?
((status == 1)) || fail "exit status $status, want 1 (the failed GPU's)"
for uuid in GPU-a1 GPU-b2; do
  record=$GPUBENCH_RESULTS/node1_$uuid
  want=$([[ $uuid == GPU-a1 ]] && echo 'done 0' || echo 'failed 1')
  [[ "$(field "$record.status" status) $(field "$record.status" exit)" == "$want" ]] ||
    fail "$record.status: not $want"
  [[ $(field "$record.status" task) == gpubench-0-x && $(field "$record.status" job) == gpubench ]] ||
    fail "$record.status: job or task is not the pod's"
  grep -q "\"standin_visible_gpus\":\"$uuid\"" "$work/log" || fail "the log lacks $uuid's JSON, seen alone, on one line"
  [[ $(grep -c "^gpubench-pod: status=$(cut -d' ' -f1 <<< "$want") exit=$(cut -d' ' -f2 <<< "$want") gpu_uuid=$uuid " "$work/log") == 1 ]] ||
    fail "the log lacks $uuid's record line"
  [[ $(grep -c "^gpubench-pod: status=running exit=none gpu_uuid=$uuid " "$work/log") == 1 ]] ||
    fail "the log lacks $uuid's running record line"
done
[[ ! -e $GPUBENCH_RESULTS/node1_GPU-a1.err ]] || fail "a done GPU has an .err"
[[ $(tail -n 1 "$GPUBENCH_RESULTS/node1_GPU-b2.err") == "exit status 1" ]] || fail "the failed GPU's .err lacks its exit status"
grep -q "^gpubench: saxpy/driver/1024: verification failed" "$work/log" || fail "the log lacks the failure's stderr"
grep -q "^gpubench-pod: node1 GPU-b2: exit status 1$" "$work/log" || fail "the log lacks the failure's exit status line"
echo "ok: two GPUs: records, JSON lines and the failure in the log"

# The peer run: after the per-GPU runs, one run over all the pod's GPUs with the peer family's
# filter, into peer/<node>.*; its lines stay out of the log but one saying how it ended.
peer=$GPUBENCH_RESULTS/peer/node1
peer_benchmarks() { # the names of the peer run's JSON, one a line
  python3 -c 'import json, sys; print("\n".join(b["name"] for b in json.load(open(sys.argv[1]))["benchmarks"]))' "$peer.json"
}
# shellcheck disable=SC2016 # the stand-in's script, expanded when it runs
printf '#!/bin/sh\ncase " $* " in *" --device=all "*) export STANDIN_BEHAVIOUR=GPU-a1=fail ;; esac\nexec "%s/gpubench" "$@"\n' \
  "$standin" > "$work/bin/gpubench"
chmod +x "$work/bin/gpubench"
peer_cases=(
  # GPUs, flags, wrapper (fails the peer run), exit status, the peer run's status and benchmarks
  "GPU-a1,GPU-b2,GPU-c3" "" "" 0 "done peer/ce/read/0to1/4 peer/ce/read/0to2/4 peer/ce/read/1to0/4 peer/ce/read/1to2/4 peer/ce/read/2to0/4 peer/ce/read/2to1/4"
  GPU-a1 "" "" 0 ""
  "GPU-a1,GPU-b2" --benchmark_filter=saxpy "" 0 ""
  "GPU-a1,GPU-b2,GPU-c3" "--benchmark_filter=-saxpy|/0to1/" "" 0 "done peer/ce/read/0to2/4 peer/ce/read/1to0/4 peer/ce/read/1to2/4 peer/ce/read/2to0/4 peer/ce/read/2to1/4"
  "GPU-a1,GPU-b2" "" "$work/bin:" 1 "failed peer/ce/read/0to1/4 peer/ce/read/1to0/4"
)
for ((i = 0; i < ${#peer_cases[@]}; i += 5)); do
  gpus=${peer_cases[i]} flags=${peer_cases[i + 1]} wrapper=${peer_cases[i + 2]}
  want_exit=${peer_cases[i + 3]} want=${peer_cases[i + 4]}
  case="$gpus${flags:+ $flags}${wrapper:+, the peer run failing}"
  rm -rf "$GPUBENCH_RESULTS"
  status=0
  PATH=$wrapper$PATH STANDIN_GPUS=$gpus STANDIN_BEHAVIOUR="" "$pod" ${flags:+"$flags"} > "$work/log" 2>&1 || status=$?
  ((status == want_exit)) || fail "$case: exit status $status, want $want_exit: $(cat "$work/log")"
  IFS=, read -ra uuids <<< "$gpus"
  for uuid in "${uuids[@]}"; do
    [[ $(field "$GPUBENCH_RESULTS/node1_$uuid.status" status) == 'done' ]] || fail "$case: $uuid is not done"
    [[ $(field "$GPUBENCH_RESULTS/node1_$uuid.status" gpu_uuid) == "$uuid" ]] || fail "$case: $uuid's record names another GPU"
    ! grep -q '"name": "peer/' "$GPUBENCH_RESULTS/node1_$uuid.json" || fail "$case: $uuid's run holds a peer benchmark"
    excluded=$([[ $flags == *=-saxpy* ]] && echo saxpy || echo copy)
    [[ -z $flags ]] || ! grep -q "\"name\": \"$excluded/" "$GPUBENCH_RESULTS/node1_$uuid.json" ||
      fail "$case: $uuid's run does not keep the user's filter"
  done
  if [[ -z $want ]]; then
    [[ ! -e $GPUBENCH_RESULTS/peer ]] || fail "$case: a peer run"
    ! grep -q "peer run" "$work/log" || fail "$case: the log names a peer run"
    continue
  fi
  [[ "$(field "$peer.status" status) $(peer_benchmarks | tr '\n' ' ')" == "$want " ]] ||
    fail "$case: the peer run is not '$want': $(cat "$peer.status")"
  [[ "$(field "$peer.status" gpu_uuid) $(field "$peer.status" device) $(field "$peer.status" task)" == "$gpus $gpus gpubench-0-x" ]] ||
    fail "$case: the peer record does not name the pod's GPUs and pod"
  grep -q "\"standin_visible_gpus\": \"$gpus\"" "$peer.json" || fail "$case: the peer run does not see all the GPUs"
  want_status=${want%% *}
  [[ $(tail -n 1 "$work/log") == "gpubench-pod: node1: the peer run over ${#uuids[@]} GPUs: $want_status, exit $want_exit; in $peer.*" ]] ||
    fail "$case: the log's last line does not say how the peer run ended: $(tail -n 1 "$work/log")"
  ! grep -q "gpu_uuid=$gpus \|verification failed\|\"selected_devices\":\"0,1" "$work/log" ||
    fail "$case: the log holds the peer run's record, stderr or JSON"
  if [[ $want_status == 'done' ]]; then
    [[ ! -e $peer.err ]] || fail "$case: a done peer run has an .err"
  else
    [[ $(head -n 1 "$peer.err") == "gpubench: peer/ce/read/0to1/4: verification failed: 1 of 1024 values differ" &&
      $(tail -n 1 "$peer.err") == "exit status 1" ]] || fail "$case: the failed peer run's .err: $(cat "$peer.err")"
  fi
done
rm "$work/bin/gpubench"
# A filter of peer benchmarks only: the peer run alone. One selecting peer benchmarks and others
# (not negated): refused in one line, exit 2, nothing run.
rm -rf "$GPUBENCH_RESULTS"
STANDIN_GPUS=GPU-a1,GPU-b2 STANDIN_BEHAVIOUR="" "$pod" --benchmark_filter=/1to0/ > "$work/log" 2>&1 ||
  fail "a filter of peer benchmarks only: exit status not 0: $(cat "$work/log")"
[[ "$(ls "$GPUBENCH_RESULTS" | tr '\n' ' ')$(peer_benchmarks)" == "peer peer/ce/read/1to0/4" ]] ||
  fail "a filter of peer benchmarks only: not the peer run alone, of that filter"
rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
status=0
STANDIN_GPUS=GPU-a1,GPU-b2 STANDIN_LOG=$work/standin.log "$pod" '--benchmark_filter=saxpy|peer' > "$work/log" 2> "$work/err" || status=$?
((status == 2)) && [[ $(wc -l < "$work/err") == 1 && $(cat "$work/err") == "gpubench-pod: --benchmark_filter=saxpy\|peer: selects peer benchmarks and others; "* ]] ||
  fail "a filter of peer benchmarks and others: exit status $status, stderr '$(cat "$work/err")'"
[[ ! -s $work/log && -z $(ls -A "$GPUBENCH_RESULTS") && ! -e $work/standin.log ]] ||
  fail "a filter of peer benchmarks and others: something ran or was written"
echo "ok: the peer run over the pod's GPUs: its files, the filter as deploy/slurm's, its failure recorded"

# A JSON over the log limit stays in the results only.
rm -rf "$GPUBENCH_RESULTS"
STANDIN_BEHAVIOUR="" GPUBENCH_POD_LOG_LIMIT=100 "$pod" > "$work/log" 2>&1 || fail "a run over the log limit failed"
! grep -q '^{' "$work/log" || fail "a JSON over the log limit was printed"
grep -q "over the log limit (100 of 100 bytes left): in $GPUBENCH_RESULTS/node1_GPU-a1.json" "$work/log" ||
  fail "no line says where the JSON is"
echo "ok: a JSON over the log limit is named, not printed"

# The limit is the pod's, its GPUs' JSON together: one GPU's fits, two do not.
rm -rf "$GPUBENCH_RESULTS"
STANDIN_BEHAVIOUR="" "$pod" > "$work/log" 2>&1 || fail "a run of two GPUs failed"
first=$(grep -m 1 '^{' "$work/log" | tr -d '\n' | wc -c)
rm -rf "$GPUBENCH_RESULTS"
STANDIN_BEHAVIOUR="" GPUBENCH_POD_LOG_LIMIT=$((first * 3 / 2)) "$pod" > "$work/log" 2>&1 ||
  fail "a run of two GPUs over the log limit failed"
[[ $(grep -c '^{' "$work/log") == 1 ]] && grep -q '"gpu_uuid":"GPU-a1"' "$work/log" ||
  fail "the first GPU's JSON, under the limit, is not the one printed"
grep -q "^gpubench-pod: node1 GPU-b2: a JSON of [0-9]* bytes is over the log limit ($((first * 3 / 2 - first)) of $((first * 3 / 2)) bytes left): in $GPUBENCH_RESULTS/node1_GPU-b2.json$" "$work/log" ||
  fail "the second GPU's JSON, past the pod's limit, is not named"
echo "ok: the log limit holds the pod's JSON together"

# SIGTERM while the first GPU runs, over the results of the run before: the GPU never started
# has a record saying so, and none of the earlier run's files.
rm -f "$work/standin.log"
STANDIN_BEHAVIOUR=GPU-a1=slow STANDIN_LOG=$work/standin.log "$pod" > "$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  grep -q "^start GPU-a1 " "$work/standin.log" 2> /dev/null && break
  sleep 0.1
done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
((status == 143)) || fail "exit status $status after SIGTERM, want 143"
[[ $(field "$GPUBENCH_RESULTS/node1_GPU-a1.status" status) == interrupted ]] || fail "the running GPU is not interrupted"
grep -q '"interrupted":"SIGTERM"' "$work/log" || fail "the interrupted JSON is not in the log"
! grep -q "^start GPU-b2 " "$work/standin.log" || fail "a GPU started after SIGTERM"
never_started() { # the GPU $1's record and files say it never started, in the results and the log
  local record=$GPUBENCH_RESULTS/node1_$1
  [[ "$(field "$record.status" status) $(field "$record.status" exit)" == "interrupted none" ]] ||
    fail "$1, never started, has no record saying so"
  [[ ! -e $record.json && ! -e $record.err ]] || fail "$1, never started, has files of an earlier run"
  [[ $(grep "^gpubench-pod: status=.* gpu_uuid=$1 " "$work/log" | tail -n 1) == "gpubench-pod: status=interrupted exit=none "* ]] ||
    fail "the log's last record line of $1 does not say it never started"
}
never_started GPU-b2
echo "ok: SIGTERM: the running GPU interrupted, no further GPU started, the other's record says so"

# The pod's own deadline: the running GPU stopped as by SIGTERM, no further GPU started.
rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
status=0
STANDIN_BEHAVIOUR=GPU-a1=slow STANDIN_LOG=$work/standin.log GPUBENCH_POD_DEADLINE=2 \
  timeout 20 "$pod" > "$work/log" 2>&1 || status=$?
((status == 143)) || fail "exit status $status at the pod's deadline, want 143"
[[ $(field "$GPUBENCH_RESULTS/node1_GPU-a1.status" status) == interrupted ]] || fail "the GPU running at the deadline is not interrupted"
grep -q '"interrupted":"SIGTERM"' "$work/log" || fail "the JSON interrupted at the deadline is not in the log"
grep -q "^gpubench-pod: node1: the pod's deadline (GPUBENCH_POD_DEADLINE=2 s) has passed: no further GPU starts$" "$work/log" ||
  fail "no line says the deadline passed"
! grep -q "^start GPU-b2 " "$work/standin.log" || fail "a GPU started after the deadline"
never_started GPU-b2
echo "ok: the pod's deadline: the running GPU interrupted, no further GPU started"

# A gpubench that ignores SIGTERM is killed GPUBENCH_POD_KILL_AFTER seconds later.
rm -rf "$GPUBENCH_RESULTS"
status=0
STANDIN_BEHAVIOUR=GPU-a1=hang GPUBENCH_POD_DEADLINE=2 GPUBENCH_POD_KILL_AFTER=1 \
  timeout 20 "$pod" > "$work/log" 2>&1 || status=$?
((status == 137)) || fail "exit status $status for a run that ignored SIGTERM, want 137"
[[ "$(field "$GPUBENCH_RESULTS/node1_GPU-a1.status" status) $(field "$GPUBENCH_RESULTS/node1_GPU-a1.status" exit)" == "killed 137" ]] ||
  fail "a run that ignored SIGTERM is not killed, exit 137"
never_started GPU-b2
echo "ok: a run ignoring SIGTERM at the deadline is killed, its record says so"

# A setting that is not a number: one line, exit 2, nothing run.
rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
status=0
GPUBENCH_POD_DEADLINE=2h STANDIN_LOG=$work/standin.log "$pod" > "$work/log" 2> "$work/err" || status=$?
((status == 2)) && [[ $(cat "$work/err") == "gpubench-pod: GPUBENCH_POD_DEADLINE=2h: not a whole number of 1-9 digits without a leading 0" ]] ||
  fail "GPUBENCH_POD_DEADLINE=2h: exit status $status, stderr '$(cat "$work/err")'"
[[ ! -e $work/standin.log ]] || fail "a GPU started with a bad setting"
# A leading 0: bash's arithmetic would read 010 as 8 seconds, and 0009 not at all.
for setting in GPUBENCH_POD_DEADLINE=0009 GPUBENCH_POD_KILL_AFTER=010 GPUBENCH_POD_SMI_LIMIT=01; do
  status=0
  env "$setting" STANDIN_LOG="$work/standin.log" "$pod" > "$work/log" 2> "$work/err" || status=$?
  ((status == 2)) && [[ $(cat "$work/err") == "gpubench-pod: $setting: not a whole number of 1-9 digits without a leading 0" ]] ||
    fail "$setting: exit status $status, stderr '$(cat "$work/err")'"
  [[ ! -e $work/standin.log ]] || fail "$setting: a GPU started"
done
echo "ok: a setting that is not a number, or has a leading 0, is refused in one line"

# The flags the pod sets itself: one line naming the flag, exit 2, nothing run or written.
for flag in --benchmark_out=/tmp/elsewhere.json --device=1 --benchmark_out_format=csv; do
  rm -rf "$GPUBENCH_RESULTS"
  status=0
  STANDIN_LOG=$work/standin.log "$pod" "$flag" > "$work/log" 2> "$work/err" || status=$?
  ((status == 2)) && [[ $(cat "$work/err") == "gpubench-pod: $flag: the pod sets --device and --benchmark_out itself" ]] ||
    fail "$flag: exit status $status, stderr '$(cat "$work/err")'"
  [[ ! -s $work/log && ! -e $GPUBENCH_RESULTS && ! -e $work/standin.log ]] || fail "$flag: something ran or was written"
done
echo "ok: --device and --benchmark_out given to the pod are refused in one line"

# A run that exits 0 without a JSON (a flag that runs no benchmark) measured nothing: failed,
# its .err and the log saying so, exit 1.
rm -rf "$GPUBENCH_RESULTS"
status=0
STANDIN_BEHAVIOUR="" "$pod" --benchmark_list_tests > "$work/log" 2>&1 || status=$?
((status == 1)) || fail "--benchmark_list_tests: exit status $status, want 1"
for uuid in GPU-a1 GPU-b2; do
  record=$GPUBENCH_RESULTS/node1_$uuid
  [[ "$(field "$record.status" status) $(field "$record.status" exit)" == "failed 0" ]] ||
    fail "--benchmark_list_tests: $record.status is not failed, exit 0"
  [[ $(head -n 1 "$record.err") == "gpubench-pod: gpubench exited 0 and wrote no result" ]] ||
    fail "--benchmark_list_tests: $record.err does not say why"
  grep -q "^gpubench-pod: node1 $uuid: exit status 0$" "$work/log" || fail "--benchmark_list_tests: no exit line for $uuid"
done
echo "ok: a run that exits 0 without a result is failed, exit 1"

# A crash that leaves its last stderr line open: the exit status on a line of its own in the
# .err and the log, the run failed, not read as one that never returned.
rm -rf "$GPUBENCH_RESULTS"
status=0
STANDIN_BEHAVIOUR=GPU-a1=crash "$pod" > "$work/log" 2>&1 || status=$?
((status == 139)) || fail "a crash: exit status $status, want 139"
[[ $(cat "$GPUBENCH_RESULTS/node1_GPU-a1.err") == "gpubench: cuMemcpy: an illegal memory acc"$'\n'"exit status 139" ]] ||
  fail "a crash mid-line: the .err does not end with its exit status on a line of its own"
grep -qx "gpubench: cuMemcpy: an illegal memory acc" "$work/log" && grep -qx "gpubench-pod: node1 GPU-a1: exit status 139" "$work/log" ||
  fail "a crash mid-line: the log lacks its stderr or its exit line"
echo "ok: a crash that leaves a line open: its exit status on a line of its own"

# Results that cannot be written. A file size limit no record fits under (ulimit -f 0; the log,
# a pipe, has none): one line naming the first record and the reason, every GPU's record line
# failed, no GPU run, exit 1 (not SIGXFSZ).
limited() { # runs the pod under `ulimit -f $1`, the rest its environment; the log in $work/log
  local blocks=$1
  shift
  status=$( (ulimit -f "$blocks"; env "$@" "$pod" 2>&1; echo "$?") | cat > "$work/log"; tail -n 1 "$work/log")
  sed -i '$d' "$work/log"
}
rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
limited 0 STANDIN_BEHAVIOUR= STANDIN_LOG="$work/standin.log"
((status == 1)) || fail "a file size limit of 0: exit status $status, want 1: $(cat "$work/log")"
[[ $(grep -c "cannot write" "$work/log") == 1 ]] &&
  grep -qx "gpubench-pod: node1: cannot write $GPUBENCH_RESULTS/node1_GPU-a1.status (File too large): no further GPU starts" "$work/log" ||
  fail "a file size limit of 0: no one line naming the record: $(cat "$work/log")"
for uuid in GPU-a1 GPU-b2; do
  [[ $(grep -c "^gpubench-pod: status=failed exit=none gpu_uuid=$uuid " "$work/log") == 1 ]] ||
    fail "a file size limit of 0: the log lacks $uuid's failed record"
done
[[ ! -e $work/standin.log ]] || fail "a file size limit of 0: a GPU started"
[[ -z $(find "$GPUBENCH_RESULTS" -name '*.tmp') ]] || fail "a file size limit of 0: a temporary file left"
# A JSON over the limit, records under it: that GPU failed, its .err saying so, the next measured.
rm -rf "$GPUBENCH_RESULTS"
limited 2 STANDIN_BEHAVIOUR=GPU-a1=big
((status == 1)) || fail "a JSON over the file size limit: exit status $status, want 1: $(cat "$work/log")"
record=$GPUBENCH_RESULTS/node1_GPU-a1
[[ "$(field "$record.status" status) $(field "$record.status" exit)" == "failed 1" ]] &&
  [[ $(cat "$record.err") == "gpubench: --benchmark_out=$record.json: could not be written"$'\n'"exit status 1" ]] ||
  fail "a JSON over the file size limit: GPU-a1 is not failed with its .err saying why"
[[ $(field "$GPUBENCH_RESULTS/node1_GPU-b2.status" status) == 'done' ]] || fail "a JSON over the file size limit: GPU-b2 not measured"
# The disk full (ENOSPC: a link to /dev/full) once GPU-a1's own run has ended without a result
# (its JSON emptied), so that the pod replaces gpubench's record: one line, its record failed in
# the log and in its file (written in place), GPU-b2 never started, exit 1.
rm -rf "$GPUBENCH_RESULTS"
# shellcheck disable=SC2016 # the stand-in's script, expanded when it runs
printf '#!/bin/sh\n"%s/gpubench" "$@"\nstatus=$?\n[ "$CUDA_VISIBLE_DEVICES" != GPU-a1 ] || { : > "%s.json"; ln -s /dev/full "%s.status.tmp"; }\nexit $status\n' \
  "$standin" "$record" "$record" > "$work/bin/gpubench"
chmod +x "$work/bin/gpubench"
status=0
PATH=$work/bin:$PATH STANDIN_BEHAVIOUR="" "$pod" > "$work/log" 2>&1 || status=$?
rm "$work/bin/gpubench"
((status == 1)) || fail "a full disk: exit status $status, want 1: $(cat "$work/log")"
grep -qx "gpubench-pod: node1: cannot write $record.status (No space left on device): no further GPU starts" "$work/log" ||
  fail "a full disk: no line naming the record: $(cat "$work/log")"
[[ $(grep "gpu_uuid=GPU-a1 " "$work/log" | tail -n 1) == "gpubench-pod: status=failed exit=0 gpu_uuid=GPU-a1 "* ]] &&
  [[ "$(field "$record.status" status) $(field "$record.status" exit)" == "failed 0" ]] ||
  fail "a full disk: GPU-a1's record does not say failed"
[[ ! -e $record.status.tmp ]] || fail "a full disk: a temporary file left"
never_started GPU-b2
echo "ok: results that cannot be written (a file size limit, a full disk): one line, a failed record, exit 1"

# A value that names the files or fills a record field and cannot: one line naming the variable
# and the value, quoted with control characters escaped, exit 2, no file written, no GPU run.
# Cases: variable, value, the value as the line shows it. hostname: a stand-in's output, where
# NODE_NAME is unset.
long_name=$(printf 'n%.0s' {1..129})
bad_values=(
  NODE_NAME node/1 node/1
  NODE_NAME $'node\n1' "\$'node\\n1'"
  NODE_NAME 'node 1' 'node\ 1'
  NODE_NAME $'node\t1' "\$'node\\t1'"
  NODE_NAME $'node1\e[31m' "\$'node1\\E[31m'"
  NODE_NAME nodé "\$'nod\\303\\251'"
  NODE_NAME .. ..
  NODE_NAME "$long_name" "$long_name"
  POD_NAME 'gpubench-0 x' 'gpubench-0\ x'
  POD_NAME $'gpubench-0-x\r' "\$'gpubench-0-x\\r'"
  JOB_NAME gpu=bench 'gpu=bench'
  JOB_UID $'3f2a\n9c1d' "\$'3f2a\\n9c1d'"
  hostname 'my host' 'my\ host'
)
cat > "$work/bin/hostname" << 'EOF'
#!/bin/sh
echo "$STANDIN_HOSTNAME"
EOF
chmod +x "$work/bin/hostname"
for ((i = 0; i < ${#bad_values[@]}; i += 3)); do
  variable=${bad_values[i]} value=${bad_values[i + 1]} shown=${bad_values[i + 2]}
  rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
  env=("$variable=$value")
  [[ $variable != hostname ]] || env=(-u NODE_NAME "STANDIN_HOSTNAME=$value" "PATH=$work/bin:$PATH")
  status=0
  env "${env[@]}" STANDIN_LOG="$work/standin.log" "$pod" > "$work/log" 2> "$work/err" || status=$?
  err=$(cat "$work/err")
  if ((status != 2)) || [[ $(wc -l < "$work/err") != 1 || $err != "gpubench-pod: $variable=$shown: "* ]]; then
    fail "$variable=$shown: exit status $status, stderr '$err', want 2 and one line 'gpubench-pod: $variable=$shown: ...'"
  fi
  [[ ! -s $work/log && ! -e $GPUBENCH_RESULTS && ! -e $work/standin.log ]] ||
    fail "$variable=$shown: something was written or run before the value was refused"
done
echo "ok: a node, pod, Job name or UID unfit for a file name or a record line is refused in one line"

# Real names (DNS-1123 nodes and pods, a Job's UID, the hostname where NODE_NAME and POD_NAME
# are unset) name the files and fill the records as they are. Cases: node, task, job, the
# pod's environment.
uid=0f8c3f2e-5a1b-4c2d-9e7f-1234567890ab
good_names=(
  gpu-node-07 gpubench-3-x7k2p "gpubench:$uid" "NODE_NAME=gpu-node-07 POD_NAME=gpubench-3-x7k2p JOB_UID=$uid"
  ip-10-0-1-23.ec2.internal gpubench-12-q9zt4 gpubench-h200 "NODE_NAME=ip-10-0-1-23.ec2.internal POD_NAME=gpubench-12-q9zt4 JOB_NAME=gpubench-h200"
  dgx01 dgx01 gpubench "STANDIN_HOSTNAME=dgx01 PATH=$work/bin:$PATH"
)
for ((i = 0; i < ${#good_names[@]}; i += 4)); do
  node=${good_names[i]} task=${good_names[i + 1]} job=${good_names[i + 2]}
  rm -rf "$GPUBENCH_RESULTS"
  read -ra assignments <<< "${good_names[i + 3]}"
  env -u NODE_NAME -u POD_NAME "${assignments[@]}" STANDIN_GPUS=GPU-a1 STANDIN_BEHAVIOUR="" \
    "$pod" > "$work/log" 2>&1 || fail "node $node: exit status not 0: $(cat "$work/log")"
  record=$GPUBENCH_RESULTS/${node}_GPU-a1.status
  [[ "$(field "$record" status) $(field "$record" node) $(field "$record" task) $(field "$record" job)" == "done $node $task $job" ]] ||
    fail "node $node: $record is not done, node $node, task $task, job $job"
  [[ $(tail -n 1 "$work/log") == "gpubench-pod: status=done exit=0 gpu_uuid=GPU-a1 node=$node job=$job task=$task device=GPU-a1 time="* ]] ||
    fail "node $node: the last log line is not the record: $(tail -n 1 "$work/log")"
done
echo "ok: real node, pod and Job names are taken as they are"

# nvidia-smi that cannot list the GPUs: one line naming the problem, one failed record gpubench-tools fleet
# reads (<node>_device0, exit 1), exit 1, no gpubench started, no file named after its output.
smi_cases=(
  'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."; exit 9'
  "failed with status 9 (NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.)"
  'echo GPU-a1; echo "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"'
  "printed 'Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error', not a GPU UUID"
  'exit 0'
  "listed no GPU"
  'echo GPU-a1; echo GPU-b2; echo " GPU-a1"'
  "listed GPU-a1 twice"
  'sleep 30'
  "did not answer in 1 s"
)
for ((i = 0; i < ${#smi_cases[@]}; i += 2)); do
  printf '#!/bin/sh\n%s\n' "${smi_cases[i]}" > "$work/bin/nvidia-smi"
  chmod +x "$work/bin/nvidia-smi"
  rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
  status=0
  PATH=$work/bin:$PATH STANDIN_LOG=$work/standin.log GPUBENCH_POD_SMI_LIMIT=1 "$pod" > "$work/log" 2> "$work/err" || status=$?
  want="gpubench-pod: node1: nvidia-smi --query-gpu=uuid ${smi_cases[i + 1]}: no GPU measured"
  ((status == 1)) && [[ $(cat "$work/err") == "$want" ]] ||
    fail "nvidia-smi '${smi_cases[i]}': exit status $status, stderr '$(cat "$work/err")', want 1, '$want'"
  [[ ! -e $work/standin.log ]] || fail "nvidia-smi '${smi_cases[i]}': a gpubench started"
  [[ "$(ls "$GPUBENCH_RESULTS")" == "$(printf 'node1_device0.err\nnode1_device0.status')" ]] ||
    fail "nvidia-smi '${smi_cases[i]}': results $(ls "$GPUBENCH_RESULTS" | tr '\n' ' ')"
  record=$GPUBENCH_RESULTS/node1_device0.status
  [[ "$(field "$record" status) $(field "$record" exit) $(field "$record" gpu_uuid)" == "failed 1 " ]] ||
    fail "nvidia-smi '${smi_cases[i]}': the record is not failed, exit 1, no UUID"
  [[ $(tail -n 2 "$work/log" | head -n 1) == "gpubench-pod: node1 device0: exit status 1" ]] ||
    fail "nvidia-smi '${smi_cases[i]}': the log lacks the exit line"
done
echo "ok: nvidia-smi failing, not answering, printing a line that is not a UUID, listing none or a GPU twice: one line, a failed record, exit 1"
# GPUBENCH_RESULTS unset and a TMPDIR no folder can be made in: one line naming both, exit 2,
# nothing run.
rm -f "$work/standin.log"
status=0
env -u GPUBENCH_RESULTS TMPDIR="$work/no-such-folder" STANDIN_LOG="$work/standin.log" "$pod" \
  > "$work/log" 2> "$work/err" || status=$?
err=$(cat "$work/err")
if ((status != 2)) || [[ $(wc -l < "$work/err") != 1 || $err != "gpubench-pod: GPUBENCH_RESULTS is unset and no folder can be made in TMPDIR: mktemp: "* ]]; then
  fail "a TMPDIR without room for a folder: exit status $status, stderr '$err'"
fi
[[ ! -s $work/log && ! -e $work/standin.log ]] || fail "a TMPDIR without room for a folder: gpubench ran"
echo "ok: GPUBENCH_RESULTS unset and a TMPDIR without room for a folder: one line, exit 2"
# GPUBENCH_RESULTS under a file: one line with the system's reason, exit 2, nothing run.
status=0
GPUBENCH_RESULTS=$work/log/results STANDIN_LOG=$work/standin.log "$pod" > "$work/out" 2> "$work/err" || status=$?
((status == 2)) && [[ $(cat "$work/err") == "gpubench-pod: $work/log/results: not a writable directory (GPUBENCH_RESULTS): Not a directory" ]] ||
  fail "GPUBENCH_RESULTS under a file: exit status $status, stderr '$(cat "$work/err")'"
[[ ! -s $work/out && ! -e $work/standin.log ]] || fail "GPUBENCH_RESULTS under a file: gpubench ran"
echo "ok: GPUBENCH_RESULTS that cannot be made: one line, exit 2"
echo "pod_test: passed"
