#!/usr/bin/env bash
# deploy/container/gpubench-pod with the stand-in gpubench and nvidia-smi (tests/cluster/standin)
# on two GPUs, as the Job's pod runs it:
#   pod_test.sh GPUBENCH_POD
# Checks, as docs/cluster.md says: one record per GPU named <node>_<uuid> in GPUBENCH_RESULTS,
# each run seeing its GPU alone; the log holds each GPU's JSON on one line and its record line,
# and for a failure its stderr and "exit status N"; a JSON over the log limit is not printed;
# SIGTERM to the script reaches the running gpubench, whose JSON is marked interrupted, and no
# further GPU starts; the exit status is the worst record's. Bounded: about 5 s.
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
done
[[ ! -e $GPUBENCH_RESULTS/node1_GPU-a1.err ]] || fail "a done GPU has an .err"
[[ $(tail -n 1 "$GPUBENCH_RESULTS/node1_GPU-b2.err") == "exit status 1" ]] || fail "the failed GPU's .err lacks its exit status"
grep -q "^gpubench: saxpy/driver/1024: verification failed" "$work/log" || fail "the log lacks the failure's stderr"
grep -q "^gpubench-pod: node1 GPU-b2: exit status 1$" "$work/log" || fail "the log lacks the failure's exit status line"
echo "ok: two GPUs: records, JSON lines and the failure in the log"

# A JSON over the log limit stays in the results only.
rm -rf "$GPUBENCH_RESULTS"
STANDIN_BEHAVIOUR="" GPUBENCH_POD_LOG_LIMIT=100 "$pod" > "$work/log" 2>&1 || fail "a run over the log limit failed"
! grep -q '^{' "$work/log" || fail "a JSON over the log limit was printed"
grep -q "over the log limit (100): in $GPUBENCH_RESULTS/node1_GPU-a1.json" "$work/log" || fail "no line says where the JSON is"
echo "ok: a JSON over the log limit is named, not printed"

# SIGTERM while the first GPU runs.
rm -rf "$GPUBENCH_RESULTS" "$work/standin.log"
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
echo "ok: SIGTERM: the running GPU interrupted, no further GPU started"
echo "pod_test: passed"
