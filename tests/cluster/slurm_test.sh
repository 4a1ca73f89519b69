#!/usr/bin/env bash
# deploy/slurm/gpubench.sbatch on a real one-node Slurm cluster with GPUs as generic resources.
#
#   slurm_test.sh GPUBENCH SBATCH_SCRIPT
#
# Starts a private cluster in a temporary directory: its own munged (own key and socket),
# slurmctld and slurmd on free ports, node gpubench-ci with four GPUs of GRES type h100
# (gres.conf names four character devices made in the directory, AutoDetect=off: how Slurm is
# tested without GPUs), task/affinity binding. Submits SBATCH_SCRIPT with sbatch as a user would,
# its header's allocation (one task per node, --exclusive, --mem=0) with the GPUs added, and
# checks what lands in the output directory against docs/cluster.md:
#   - one task per GPU (--per-gpu, two GPUs for two tasks) with tests/cluster/standin/gpubench, a stand-in that
#     sees the GPUs of CUDA_VISIBLE_DEVICES and writes gpubench's JSON: one record per allocated
#     GPU named <node>_<uuid>, each run seeing its GPU alone, each task on its own core;
#   - the allocation in job<ID>.expected_hosts: the node and its 4 GPUs, the job holding them all
#     (--exclusive) whatever it asked for; the node alone with --no-gpus;
#   - one task per node (the default) with 3 of the 4 GPUs (--gpus-per-node=h100:3) and one GPU
#     failing: records for exactly the 3
#     allocated GPUs, the failure's .err and status, per-GPU runs without the peer family, one
#     peer run over the 3, the user's negative filter kept, the job's exit the worst;
#   - a flag gpubench does not take, and with one task per node a filter that selects peer
#     benchmarks and others, refused with one line before any GPU starts;
#   - SIGTERM to the job step while the first GPU runs: that GPU interrupted with its JSON,
#     the others never started and say so, no peer run, exit 143;
#   - the first GPU's gpubench SIGKILLed, then the whole task SIGKILLed while the second runs:
#     the first says killed, the second running (gpubench's record as it started), the summary
#     counts both killed, the third interrupted, exit 137;
#   - the real GPUBENCH with --no-gpus, two tasks (--per-gpu) and one: on a machine without a GPU
#     each task's .err holds gpubench's no-GPU line and "exit status 1"; with a GPU, JSON named
#     by UUID holding the job's id.
# The stand-in's nvidia-smi (tests/cluster/standin) lists all four GPUs, allocated or not.
# Every job is bounded (120 s) and every daemon started is stopped on exit, pass or fail.
# Exit 77 (skipped) where Slurm or munge is missing or not run as root, except where
# GPUBENCH_CLUSTER_TESTS=required (.ci/run, after .ci/install --cluster): a skip would hide it.
set -euo pipefail
export PATH=$PATH:/usr/sbin:/sbin

skip() {
  if [[ ${GPUBENCH_CLUSTER_TESTS:-} == required ]]; then
    echo "FAIL: $1 (GPUBENCH_CLUSTER_TESTS=required: .ci/install --cluster installs slurm-wlm and munge)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

if (($# != 2)); then
  echo "usage: slurm_test.sh GPUBENCH SBATCH_SCRIPT" >&2
  exit 2
fi
for command in sbatch scontrol squeue scancel slurmctld slurmd munged mungekey python3 realpath mknod; do
  command -v "$command" > /dev/null || skip "$command not found (apt-get install slurm-wlm munge)"
done
gpubench=$(realpath "$1")
sbatch_script=$(realpath "$2")
standin=$(realpath "$(dirname "$0")/standin")
[[ $(id -u) == 0 ]] || skip "needs root: slurmd runs jobs as root here"

work=$(mktemp -d /tmp/gpubench-slurm-test.XXXXXX)
chmod 755 "$work"
node="gpubench-ci"
pids=()
failed=1

stop_cluster() {
  if [[ -n ${SLURM_CONF:-} && -e ${SLURM_CONF} ]]; then
    scancel --full --quiet --partition=test 2> /dev/null || true
    for _ in $(seq 50); do
      [[ -z $(squeue --noheader --partition=test 2> /dev/null) ]] && break
      sleep 0.2
    done
  fi
  # Newest first: slurmd, then slurmctld, then munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2> /dev/null || continue
    for _ in $(seq 50); do
      kill -0 "${pids[i]}" 2> /dev/null || break
      sleep 0.2
    done
    kill -KILL "${pids[i]}" 2> /dev/null || true
    wait "${pids[i]}" 2> /dev/null || true
  done
  if ((failed)); then
    for log in "$work"/*.log "$work"/job-*.out; do
      [[ -e $log ]] || continue
      echo "--- $log (last 30 lines)"
      tail -n 30 "$log"
    done
  fi
  rm -rf "$work"
}
trap stop_cluster EXIT

fail() {
  echo "FAIL: $1"
  exit 1
}

read -ra free_ports < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')

mungekey --create --keyfile="$work/munge.key"
munged --foreground --force --socket="$work/munge.socket" --key-file="$work/munge.key" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munged.seed" > "$work/munged.stdout.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
  [[ -S $work/munge.socket ]] && break
  sleep 0.1
done
[[ -S $work/munge.socket ]] || fail "munged did not start"

# Four GPUs as GRES: gres.conf needs device files; character devices like /dev/null do.
mkdir -p "$work/dev" "$work/state" "$work/spool"
for i in 0 1 2 3; do
  mknod "$work/dev/nvidia$i" c 1 3
done
gpu_uuids=(GPU-5ca1ab1e-0000-4000-8000-000000000000 GPU-5ca1ab1e-0000-4000-8000-000000000001
  GPU-5ca1ab1e-0000-4000-8000-000000000002 GPU-5ca1ab1e-0000-4000-8000-000000000003)
cpus=$(nproc)
cat > "$work/slurm.conf" << EOF
ClusterName=gpubench-ci
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=${free_ports[0]}
SlurmdPort=${free_ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$cpus Gres=gpu:h100:4 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
EOF
# slurmd reads gres.conf beside slurm.conf.
cat > "$work/gres.conf" << EOF
AutoDetect=off
Name=gpu Type=h100 File=$work/dev/nvidia[0-3]
EOF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.stdout.log" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" > "$work/slurmd.stdout.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 150); do
  state=$(scontrol show node "$node" 2> /dev/null | sed -n 's/.*State=\([A-Z+_]*\).*/\1/p')
  [[ $state == IDLE* ]] && break
  sleep 0.2
done
[[ $state == IDLE* ]] || fail "node $node is not idle 30 s after slurmd started (state '$state')"

results=$work/results
standin_log=$work/standin.log
# The jobs inherit this environment (sbatch's default --export=ALL): the stand-in's GPUs, and
# its nvidia-smi first on the PATH.
export STANDIN_GPUS STANDIN_LOG=$standin_log STANDIN_BEHAVIOUR=""
STANDIN_GPUS=$(IFS=,; echo "${gpu_uuids[*]}")
export PATH=$standin:$PATH

submit() {
  sbatch --parsable --chdir="$work" --output="$work/job-%j.out" --time=5 "$@" ||
    fail "sbatch did not take the job (see slurmctld.log)"
}

# Waits for job $1 to leave the queue (at most 120 s); prints "STATE EXIT:SIGNAL".
wait_job() {
  local job state=""
  for _ in $(seq 600); do
    job=$(scontrol show job "$1")
    state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<< "$job")
    case $state in PENDING | CONFIGURING | RUNNING | COMPLETING) sleep 0.2 ;; *) break ;; esac
  done
  echo "$state $(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<< "$job")"
}

# Waits (at most 60 s) until the stand-in has started on GPU $1 alone; prints its pid.
wait_start() {
  for _ in $(seq 300); do
    if grep -q "^start $1 " "$standin_log" 2> /dev/null; then
      sed -n "s/^start $1 pid=\([0-9]*\).*/\1/p" "$standin_log" | tail -n 1
      return
    fi
    sleep 0.2
  done
  fail "the stand-in did not start on $1 within 60 s"
}

# Sets `indices` to the GPUs Slurm gave the job step that ran last, as its tasks' stand-ins saw
# them in SLURM_STEP_GPUS (a finished job's allocation is no longer in scontrol). The job holds
# every GPU of the node (--exclusive); the step, those the job asked for.
allocated() {
  local gpus
  gpus=$(sed -n 's/^start .* step_gpus=//p' "$standin_log" | tr , '\n' | sort -un | paste -sd ,)
  [[ -n $gpus ]] || fail "the stand-in did not record SLURM_STEP_GPUS"
  IFS=, read -ra indices <<< "$gpus"
}

# A key's value in status file $1.
field() { sed -n "s/^$2=//p" "$1"; }
# A context value of JSON file $1.
context() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"].get(sys.argv[2], ""))' "$1" "$2"; }
# The benchmark names of JSON file $1, one per line.
benchmarks() { python3 -c 'import json, sys; print("\n".join(b["name"] for b in json.load(open(sys.argv[1]))["benchmarks"]))' "$1"; }

# Checks record $1 (OUTDIR-relative, no suffix) of job $2: status $3, exit $4.
check_record() {
  local file=$results/$1.status
  [[ -e $file ]] || fail "no $1.status in the results: $(cd "$results" && find . -type f | sort | tr "\n" " ")"
  [[ $(field "$file" status) == "$3" && $(field "$file" exit) == "$4" ]] ||
    fail "$1.status: status=$(field "$file" status) exit=$(field "$file" exit), want status=$3 exit=$4"
  [[ $(field "$file" job) == "$2" ]] || fail "$1.status: not job $2's"
  if [[ $3 == 'done' ]]; then
    [[ ! -e $results/$1.err ]] || fail "$1 is done but has an .err"
  else
    [[ -e $results/$1.err ]] || fail "$1 is $3 but has no .err"
    [[ $4 == none || $(tail -n 1 "$results/$1.err") == "exit status $4" ]] ||
      fail "$1.err: last line is not 'exit status $4'"
  fi
  case $3:$4 in
    interrupted:none) [[ ! -e $results/$1.json ]] || fail "$1 never started yet has a JSON" ;;
    done:* | interrupted:* | killed:*)
      # gpubench writes its JSON as it runs: what it completed stays readable.
      [[ -e $results/$1.json ]] || fail "$1 ($3, exit $4) has no JSON"
      ;;
  esac
  echo "ok: $1: status=$3 exit=$4"
}

# Checks that the only records in the results are those named, and no hidden file is left.
check_only() {
  local expected listed
  expected=$(printf '%s.status\n' "$@" | sort)
  listed=$(cd "$results" && find . -name '*.status' | sed 's|^\./||' | sort)
  [[ $listed == "$expected" ]] || fail "records: $(echo "$listed" | tr '\n' ' '), want $(echo "$expected" | tr '\n' ' ')"
  local hidden
  hidden=$(find "$results" -name '.*')
  [[ -z $hidden ]] || fail "hidden files left in the results: $hidden"
}

# Checks that JSON $1 is of a run that saw GPU $2 alone, named by it, without peer benchmarks.
check_alone() {
  [[ $(context "$results/$1.json" gpu_uuid) == "$2" ]] || fail "$1.json: gpu_uuid is not $2"
  [[ $(context "$results/$1.json" standin_visible_gpus) == "$2" ]] ||
    fail "$1.json: the run saw $(context "$results/$1.json" standin_visible_gpus), not its GPU alone"
  ! benchmarks "$results/$1.json" | grep -q '^peer/' || fail "$1.json: a per-GPU run holds peer benchmarks"
}

# Checks that job $1's allocation file (its comment aside) is the line $2 alone.
check_allocation() {
  local file=$results/job$1.expected_hosts
  [[ $(grep -v '^#' "$file" 2> /dev/null) == "$2" ]] ||
    fail "job $1: $file does not list '$2' alone: $(cat "$file" 2> /dev/null)"
  echo "ok: job $1's allocation: $2"
}

expect_job() {
  [[ $2 == "$3" ]] || fail "job $1: $2, want $3"
  grep -q "gpubench.sbatch: job $1: " "$work/job-$1.out" || fail "job $1 did not finish the script"
  echo "ok: job $1: $2"
}

# 1. One task per GPU, two tasks. The allocation gives the job two GPUs, not one per task: the
# script's job step is what gives each task its own.
rm -rf "$results" "$standin_log"
job=$(submit --ntasks-per-node=2 --gpus-per-node=2 "$sbatch_script" --per-gpu --gpubench="$standin/gpubench" \
  "$results")
read -r state exit_code < <(wait_job "$job")
echo "one task per GPU: job $job $state $exit_code"
names=()
allocated
for index in "${indices[@]}"; do
  names+=("${node}_${gpu_uuids[index]}")
  check_record "${names[-1]}" "$job" 'done' 0
  check_alone "${names[-1]}" "${gpu_uuids[index]}"
done
((${#names[@]} == 2)) || fail "job $job: ${#names[@]} GPUs allocated, want 2"
check_only "${names[@]}"
if ((cpus >= 2)); then
  cpus0=$(context "$results/${names[0]}.json" standin_cpus)
  cpus1=$(context "$results/${names[1]}.json" standin_cpus)
  [[ $cpus0 != *,* && $cpus1 != *,* && $cpus0 != "$cpus1" ]] ||
    fail "tasks not bound to a core each (CPUs $cpus0 and $cpus1)"
  echo "ok: each task on its own core ($cpus0, $cpus1)"
fi
expect_job "$job" "$state $exit_code" "COMPLETED 0:0"

# 2. One task per node (the default), 3 of the 4 GPUs by GRES type, the second failing; a
# negative filter.
rm -rf "$results" "$standin_log"
STANDIN_BEHAVIOUR="${gpu_uuids[1]}=fail"
job=$(submit --gpus-per-node=h100:3 "$sbatch_script" --gpubench="$standin/gpubench" "$results" \
  --benchmark_filter=-^copy/)
read -r state exit_code < <(wait_job "$job")
echo "one task per node: job $job $state $exit_code"
allocated
((${#indices[@]} == 3)) || fail "job $job: ${#indices[@]} GPUs allocated, want 3"
names=() peer_uuids=()
for index in "${indices[@]}"; do
  names+=("${node}_${gpu_uuids[index]}")
  peer_uuids+=("${gpu_uuids[index]}")
  if ((index == 1)); then
    check_record "${names[-1]}" "$job" failed 1
    grep -q "verification failed" "$results/${names[-1]}.err" || fail "${names[-1]}.err lacks gpubench's line"
  else
    check_record "${names[-1]}" "$job" 'done' 0
  fi
  check_alone "${names[-1]}" "${gpu_uuids[index]}"
  [[ $(benchmarks "$results/${names[-1]}.json") == saxpy/driver/1024 ]] ||
    fail "${names[-1]}.json: the filter -^copy/ was not kept"
done
check_record "peer/$node" "$job" 'done' 0
check_only "${names[@]}" "peer/$node"
[[ $(field "$results/peer/$node.status" gpu_uuid) == "$(IFS=,; echo "${peer_uuids[*]}")" ]] ||
  fail "peer/$node.status: gpu_uuid is not the 3 GPUs"
[[ $(context "$results/peer/$node.json" standin_visible_gpus) == "$(IFS=,; echo "${peer_uuids[*]}")" ]] ||
  fail "peer/$node.json: the peer run did not see the 3 allocated GPUs"
peer_names=$(benchmarks "$results/peer/$node.json")
[[ $(grep -c '^peer/' <<< "$peer_names") == 6 && $(wc -l <<< "$peer_names") == 6 ]] ||
  fail "peer/$node.json: want the 6 peer pairs of 3 GPUs and nothing else, got: $peer_names"
echo "ok: peer/$node.json: the 6 ordered pairs of the 3 GPUs, nothing else"
# --exclusive: the job holds the node's 4 GPUs, the step the 3 asked for; fleet names the fourth
# missing.
check_allocation "$job" "$node 4"
expect_job "$job" "$state $exit_code" "FAILED 1:0"

# Refused before the job step starts, an earlier result in the directory left as it was: a flag
# gpubench does not take, a filter that matches nothing (one task per GPU and per node), with
# one task per node a positive filter that selects peer benchmarks and others, a directory as the
# binary. Each: "SCRIPT_OPTIONS|GPUBENCH_FLAG|what the line says".
refusals=(
  "|--bogus-flag|unknown flag"
  "|--benchmark_filter=/4|selects peer benchmarks and others"
  "--per-gpu|--benchmark_filter=sxapy|Failed to match any benchmarks"
  "|--benchmark_filter=sxapy|Failed to match any benchmarks"
  "--gpubench=$standin||$standin: not an executable file"
)
earlier=$work/earlier
mkdir -p "$earlier"
printf 'status=done\nexit=0\ngpu_uuid=%s\nnode=%s\njob=1\n' "${gpu_uuids[3]}" "$node" > "$earlier/${node}_${gpu_uuids[3]}.status"
echo '{"context": {}, "benchmarks": []}' > "$earlier/${node}_${gpu_uuids[3]}.json"
for refusal in "${refusals[@]}"; do
  IFS='|' read -r options flag why <<< "$refusal"
  rm -rf "$results"
  cp -r "$earlier" "$results"
  # shellcheck disable=SC2086 # options: none or one word
  job=$(submit --gpus-per-node=2 "$sbatch_script" --gpubench="$standin/gpubench" \
    $options "$results" ${flag:+"$flag"})
  read -r state exit_code < <(wait_job "$job")
  [[ "$state $exit_code" == "FAILED 2:0" ]] || fail "job $job ($refusal): $state $exit_code, want FAILED 2:0"
  diff -r "$earlier" "$results" > /dev/null || fail "job $job ($refusal) changed the earlier results"
  grep -q "^gpubench.sbatch: .*$why" "$work/job-$job.out" ||
    fail "job $job ($refusal): no line says why"
  echo "ok: job $job refused before any GPU starts: $why"
done

# 3. SIGTERM to the job step while the first GPU runs (what --signal=TERM@60 does).
rm -rf "$results" "$standin_log"
STANDIN_BEHAVIOUR="${gpu_uuids[0]}=slow"
job=$(submit --gpus-per-node=3 "$sbatch_script" \
  --gpubench="$standin/gpubench" "$results")
wait_start "${gpu_uuids[0]}" > /dev/null
scancel --signal=TERM "$job"
read -r state exit_code < <(wait_job "$job")
echo "SIGTERM: job $job $state $exit_code"
check_record "${node}_${gpu_uuids[0]}" "$job" interrupted 143
[[ $(context "$results/${node}_${gpu_uuids[0]}.json" interrupted) == SIGTERM ]] ||
  fail "the interrupted GPU's JSON is not marked interrupted"
for index in 1 2; do
  check_record "${node}_${gpu_uuids[index]}" "$job" interrupted none
  ! grep -q "^start ${gpu_uuids[index]} " "$standin_log" || fail "GPU $index started after SIGTERM"
done
check_record "peer/$node" "$job" interrupted none
echo "ok: no GPU started after SIGTERM"
expect_job "$job" "$state $exit_code" "FAILED 143:0"

# 4. The first GPU's gpubench SIGKILLed (it ignores SIGTERM), then the whole task while the
# second runs: the batch step reads the records the task left.
rm -rf "$results" "$standin_log"
STANDIN_BEHAVIOUR="${gpu_uuids[0]}=hang,${gpu_uuids[1]}=hang"
job=$(submit --gpus-per-node=3 "$sbatch_script" \
  --gpubench="$standin/gpubench" "$results")
kill -KILL "$(wait_start "${gpu_uuids[0]}")"
pid=$(wait_start "${gpu_uuids[1]}")
# The task's shell and its gpubench, as the OOM killer or the end of KillWait would.
kill -KILL "$(ps -o ppid= -p "$pid")" "$pid"
read -r state exit_code < <(wait_job "$job")
echo "SIGKILL: job $job $state $exit_code"
check_record "${node}_${gpu_uuids[0]}" "$job" killed 137
# gpubench's record as it started, left by the SIGKILL: the summary counts it killed.
check_record "${node}_${gpu_uuids[1]}" "$job" running none
check_record "${node}_${gpu_uuids[2]}" "$job" interrupted none
grep -qF "gpubench.sbatch: job $job: 0 done, 0 failed, 2 interrupted, 2 killed; exit status 137;" "$work/job-$job.out" ||
  fail "job $job: the summary does not count the record left running as killed"
expect_job "$job" "$state $exit_code" "FAILED 137:0"

# 5. nvidia-smi numbering the GPUs unlike CUDA (STANDIN_SMI_ORDER=reverse: its 3 is CUDA's 0), and
# CUDA's 0 dead at initialisation, before any JSON: each run opens the GPU its record names.
rm -rf "$results" "$standin_log"
STANDIN_BEHAVIOUR="${gpu_uuids[0]}=dead"
export STANDIN_SMI_ORDER=reverse
job=$(submit --gpus-per-node=h100:4 "$sbatch_script" \
  --gpubench="$standin/gpubench" "$results" --benchmark_filter=-^peer/)
STANDIN_SMI_ORDER=""
read -r state exit_code < <(wait_job "$job")
echo "nvidia-smi's order not CUDA's: job $job $state $exit_code"
names=()
for index in 0 1 2 3; do
  names+=("${node}_${gpu_uuids[index]}")
done
check_record "${names[0]}" "$job" failed 1
grep -q "CUDA_ERROR_ECC_UNCORRECTABLE" "$results/${names[0]}.err" || fail "${names[0]}.err lacks gpubench's line"
[[ ! -e $results/${names[0]}.json ]] || fail "${names[0]} failed at initialisation yet has a JSON"
for index in 1 2 3; do
  check_record "${names[index]}" "$job" 'done' 0
  check_alone "${names[index]}" "${gpu_uuids[index]}"
done
check_only "${names[@]}"
check_allocation "$job" "$node 4"
expect_job "$job" "$state $exit_code" "FAILED 1:0"

# 6. The job requeued while its first GPU runs (what preemption does), and run again under its
# id: the first attempt's batch step, sent SIGTERM, sums up what it did; the second attempt's
# files take the same names, its summary counts only its own records.
rm -rf "$results" "$standin_log"
STANDIN_BEHAVIOUR="${gpu_uuids[0]}=slow"
export STANDIN_ATTEMPT=0
job=$(submit --requeue --open-mode=append --gpus-per-node=2 "$sbatch_script" \
  --gpubench="$standin/gpubench" "$results")
STANDIN_ATTEMPT=""
wait_start "${gpu_uuids[0]}" > /dev/null
scontrol requeue "$job"
# A requeued job waits two minutes before it may start again; this one need not.
for _ in $(seq 300); do
  [[ $(scontrol show job "$job") == *JobState=PENDING* ]] && break
  sleep 0.2
done
scontrol update JobId="$job" StartTime=now
read -r state exit_code < <(wait_job "$job")
echo "requeued: job $job $state $exit_code"
[[ $(scontrol show job "$job") == *" Restarts=1 "* ]] || fail "job $job did not run a second time"
gpus=$(sed -n 's/^start .* step_gpus=//p' "$standin_log" | tail -n 1)
IFS=, read -ra indices <<< "$gpus"
names=() peer_uuids=()
for index in "${indices[@]}"; do
  names+=("${node}_${gpu_uuids[index]}")
  peer_uuids+=("${gpu_uuids[index]}")
  check_record "${names[-1]}" "$job" 'done' 0
  [[ $(field "$results/${names[-1]}.status" attempt) == 1 ]] || fail "${names[-1]}.status: not the second attempt's"
done
check_record "peer/$node" "$job" 'done' 0
check_only "${names[@]}" "peer/$node"
grep -qF "gpubench.sbatch: job $job: 0 done, 0 failed, 3 interrupted, 0 killed; exit status 143;" "$work/job-$job.out" ||
  fail "job $job: the first attempt did not sum up its interrupted GPUs"
grep -qF "gpubench.sbatch: job $job: 3 done, 0 failed, 0 interrupted, 0 killed; exit status 0;" "$work/job-$job.out" ||
  fail "job $job: the second attempt's summary is not its own"
expect_job "$job" "$state $exit_code" "COMPLETED 0:0"

# 7. The real gpubench, no GPU requested: two tasks, then one per node.
STANDIN_BEHAVIOUR=""
check_real() {
  local job=$1 tag=$2 err=$results/$2.err
  if [[ -e $err ]] && grep -q '^gpubench: no CUDA device: ' "$err"; then
    check_record "$tag" "$job" failed 1
    (($(wc -l < "$err") == 2)) || fail "$err: not gpubench's one line plus the exit status"
  else
    local json
    json=$(grep -l "\"slurm_job_id\": *\"$job\"" "$results"/"${node}"_GPU-*.json 2> /dev/null | head -n 1 || true)
    [[ -n $json ]] || fail "neither $tag.err with the no-GPU line nor a JSON of job $job in $results"
    echo "ok: $(basename "$json") written by job $job"
  fi
}
rm -rf "$results"
job=$(submit --ntasks-per-node=2 "$sbatch_script" --per-gpu --no-gpus --gpubench="$gpubench" "$results" \
  --benchmark_filter='^saxpy/driver/1024/')
read -r state exit_code < <(wait_job "$job")
echo "real gpubench, one task per GPU, no GPU requested: job $job $state $exit_code"
check_real "$job" "${node}_task0"
check_real "$job" "${node}_task1"
rm -rf "$results"
job=$(submit "$sbatch_script" --no-gpus --gpubench="$gpubench" "$results" \
  --benchmark_filter='^saxpy/driver/1024/')
read -r state exit_code < <(wait_job "$job")
echo "real gpubench, one task per node, no GPU requested: job $job $state $exit_code"
check_real "$job" "${node}_task0"
check_allocation "$job" "$node"

failed=0
echo "slurm_test: passed"
