#!/usr/bin/env bash
# deploy/slurm/gpubench.sbatch on a real one-node Slurm cluster.
#
#   slurm_test.sh GPUBENCH SBATCH_SCRIPT
#
# Starts a private cluster in a temporary directory (its own munged with its own key and socket,
# slurmctld and slurmd on free ports, node name gpubench-ci, no GPU GRES: the CI machine has
# none), submits SBATCH_SCRIPT with sbatch as a user would, one task per GPU (two tasks, with
# --no-gpus) and one per node (--per-node), waits for each job (bounded), and checks that the
# files land where the script says. Every daemon it started is stopped on exit, pass or fail.
#
# Without a GPU, gpubench prints "gpubench: no CUDA device: ..." and exits 1, so each task must
# leave <node>_task<P>.err (<node>_device0.err with --per-node) holding that line and
# "exit status 1", no JSON, and the job must fail with exit code 1. With a GPU each task must
# leave <node>_<gpu-uuid>[_task<P>].json whose context holds the job's id.
# Exit 77 (skipped) where Slurm or munge is missing or not run as root, except under CI=true,
# where .ci/install provides them and a skip would hide the test.
set -euo pipefail
export PATH=$PATH:/usr/sbin:/sbin

skip() {
  if [[ -n ${CI:-} ]]; then
    echo "FAIL: $1 (CI is set: .ci/install installs slurm-wlm and munge there)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

if (($# != 2)); then
  echo "usage: slurm_test.sh GPUBENCH SBATCH_SCRIPT" >&2
  exit 2
fi
for command in sbatch scontrol squeue scancel slurmctld slurmd munged mungekey python3 realpath; do
  command -v "$command" > /dev/null || skip "$command not found (apt-get install slurm-wlm munge)"
done
gpubench=$(realpath "$1")
sbatch_script=$(realpath "$2")
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

cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/results"
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
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.stdout.log" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" > "$work/slurmd.stdout.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  state=$(scontrol show node "$node" 2> /dev/null | sed -n 's/.*State=\([A-Z+_]*\).*/\1/p')
  [[ $state == IDLE* ]] && break
  sleep 0.2
done
[[ $state == IDLE* ]] || fail "node $node is not idle 30 s after slurmd started (state '$state')"

# Submits a job, waits for it to leave the queue (at most 120 s), prints "STATE EXIT:SIGNAL".
run_job() {
  local id job state
  id=$(sbatch --parsable --chdir="$work" --output="$work/job-%j.out" --time=5 "$@")
  for _ in $(seq 600); do
    job=$(scontrol show job "$id")
    state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<< "$job")
    case $state in PENDING | CONFIGURING | RUNNING | COMPLETING) sleep 0.2 ;; *) break ;; esac
  done
  echo "$id $state $(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<< "$job")"
}

# What one task must leave for a run of gpubench in job $1 whose no-GPU result is named $2.
check_task_result() {
  local job=$1 tag=$2 err=$results/$2.err
  if [[ -e $err ]] && grep -q '^gpubench: no CUDA device: ' "$err"; then
    (($(wc -l < "$err") == 2)) || fail "$err: not gpubench's one line plus the exit status"
    [[ $(tail -n 1 "$err") == "exit status 1" ]] || fail "$err: last line is not 'exit status 1'"
    echo "ok: $tag.err holds gpubench's no-GPU line and 'exit status 1'"
  else
    local json
    json=$(grep -l "\"slurm_job_id\": *\"$job\"" "$results"/"${node}"_GPU-*.json 2> /dev/null | head -n 1 || true)
    [[ -n $json ]] || fail "neither $tag.err with the no-GPU line nor a JSON of job $job in $results"
    echo "ok: $(basename "$json") written by job $job"
  fi
}

results=$work/results
gpubench_flags=(--benchmark_filter='^saxpy/driver/1024/')

state=""
read -r job state exit_code < <(run_job --nodes=1 --ntasks=2 "$sbatch_script" --no-gpus \
  --gpubench="$gpubench" "$results" "${gpubench_flags[@]}")
[[ -n ${state:-} ]] || fail "sbatch did not take the job (see slurmctld.log)"
echo "one task per GPU: job $job $state, exit code $exit_code"
[[ -e $work/job-$job.out ]] || fail "job $job left no output file"
grep -q "gpubench.sbatch: job $job done" "$work/job-$job.out" || fail "job $job did not finish the script"
for task in 0 1; do
  check_task_result "$job" "${node}_task$task"
done
if ls "$results"/*.err > /dev/null 2>&1; then
  [[ $state == FAILED && $exit_code == 1:0 ]] || fail "job $job: $state $exit_code, want FAILED 1:0 (gpubench's no-GPU exit)"
else
  [[ $state == COMPLETED && $exit_code == 0:0 ]] || fail "job $job: $state $exit_code, want COMPLETED 0:0"
fi
leftovers=$(find "$results" -name '.*')
[[ -z $leftovers ]] || fail "temporary files left in $results: $leftovers"

rm -rf "$results"
state=""
read -r job state exit_code < <(run_job --nodes=1 --ntasks-per-node=1 "$sbatch_script" \
  --per-node --gpubench="$gpubench" "$results" "${gpubench_flags[@]}")
[[ -n ${state:-} ]] || fail "sbatch did not take the job (see slurmctld.log)"
echo "one task per node: job $job $state, exit code $exit_code"
check_task_result "$job" "${node}_device0"

failed=0
echo "slurm_test: passed"
