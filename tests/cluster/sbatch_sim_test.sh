#!/usr/bin/env bash
# deploy/slurm/gpubench.sbatch as a batch step with a stand-in srun (tests/cluster/standin/sim/srun)
# on two "nodes" of two GPUs each, for the faults a one-node Slurm cannot produce:
#
#   sbatch_sim_test.sh SBATCH_SCRIPT
#
#   - a control: every task runs, the job exits 0;
#   - a node lost before its tasks start, one task per GPU and one per node: the job exits
#     non-zero and names the tasks without a record;
#   - a node that does not see the shared output directory: its tasks say so in one line each,
#     create nothing in their view of it, and the job exits non-zero naming them;
#   - srun exiting non-zero though every record says done: the job exits with srun's status;
#   - the allocation (a stand-in scontrol): each node with its GPUs in job<ID>.expected_hosts,
#     lost nodes too, each node alone with --no-gpus; scontrol not answering: one line, no file;
#   - a directory of thousands of records: the summary counts them in seconds;
#   - gpubench exiting 0 without a result (a flag that runs no benchmark): each record failed,
#     the job exits 1; peer benchmarks only on nodes of one GPU: each task says it measures
#     nothing, and the job, with no record, exits 1;
#   - an nvidia-smi that does not answer (--smi-limit): one line per GPU, the job goes on;
#   - records that cannot be written (a file size limit, a full disk): each task concerned says
#     so in one line naming the file, starts no further GPU, and the job exits 1;
#   - --gpus-per-task without --per-gpu: one line, exit 2, before the output directory is made;
#   - a value that names files or fills records and cannot (a job id, attempt or task count that
#     is not a number, or has a leading 0; a node name, SLURM_PROCID or GPU entry with a '/',
#     a space, a control character): the batch step, or each task given it, says so in one line
#     and exits 2 before writing anything; real node names are taken as they are;
#   - a TMPDIR no file can be made in, an OUTDIR that cannot be made: one line saying so, exit
#     2, before any task.
# The GPUs are tests/cluster/standin's (its gpubench and nvidia-smi). The hidden directory needs
# a mount namespace (unshare, as root); without one that case skips (exit 77 at the end), except
# where GPUBENCH_CLUSTER_TESTS=required.
set -euo pipefail

if (($# != 1)); then
  echo "usage: sbatch_sim_test.sh SBATCH_SCRIPT" >&2
  exit 2
fi
sbatch_script=$(realpath "$1")
standin=$(realpath "$(dirname "$0")/standin")
work=$(mktemp -d /tmp/gpubench-sbatch-sim.XXXXXX)
trap 'rm -rf "$work"' EXIT
shared=$work/shared
results=$shared/results
mkdir -p "$shared"

# The batch step's environment: no Slurm variable of a job this test might run in.
unset "${!SLURM_@}" CUDA_VISIBLE_DEVICES
export PATH=$standin/sim:$standin:$PATH SLURM_SUBMIT_DIR=$shared STANDIN_SRUN_LOG=$work/srun.log
# An allocation of two nodes and four tasks, as sbatch --nodes=2 --ntasks-per-node=2 sets it.
export STANDIN_NODES="n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" SLURM_JOB_NUM_NODES=2 SLURM_NTASKS=4

fail() {
  echo "FAIL: $1"
  [[ ! -e ${out:-} ]] || sed 's/^/  | /' "$out"
  exit 1
}

# Runs the script as job $1's batch step with the stand-in gpubench, OUTDIR $results (emptied
# first, unless KEEP_RESULTS=1), the rest of the arguments its own; sets `status` and `out` (its
# output).
run_job() {
  local job=$1
  shift
  [[ ${KEEP_RESULTS:-0} == 1 ]] || rm -rf "$results"
  rm -rf "$STANDIN_SRUN_LOG"
  out=$work/job-$job.out
  status=0
  SLURM_JOB_ID=$job bash "$sbatch_script" --gpubench="$standin/gpubench" "$@" > "$out" 2>&1 ||
    status=$?
}

# Checks that the records in the results are exactly those named, each done.
check_done_only() {
  local listed expected name
  listed=$(cd "$results" && find . -name '*.status' | sed 's|^\./||' | sort)
  expected=$(printf '%s.status\n' "$@" | sort)
  [[ $listed == "$expected" ]] || fail "records: $(echo "$listed" | tr '\n' ' '), want $(echo "$expected" | tr '\n' ' ')"
  for name in "$@"; do
    grep -qx 'status=done' "$results/$name.status" || fail "$name.status does not say done"
  done
}

expect() {
  [[ $status == "$1" ]] || fail "$2: exit status $status, want $1"
  grep -qF -- "$3" "$out" || fail "$2: no line '$3'"
  echo "ok: $2: exit status $1"
}

# Checks that job $1's allocation file lists exactly the lines "${@:2}", in any order (its
# comment aside).
check_allocation() {
  local file=$results/job$1.expected_hosts
  [[ -e $file ]] || fail "job $1: no $file"
  [[ $(grep -v '^#' "$file" | sort) == "$(printf '%s\n' "${@:2}" | sort)" ]] ||
    fail "job $1: $file lists $(grep -v '^#' "$file" | tr '\n' ' '), want ${*:2}"
}

run_job 11 --per-gpu "$results"
check_done_only n1_GPU-a1 n1_GPU-a2 n2_GPU-b1 n2_GPU-b2
check_allocation 11 "n1 2" "n2 2"
expect 0 "every task runs" "job 11: 4 done, 0 failed, 0 interrupted, 0 killed; exit status 0;"

STANDIN_LOST=n2 run_job 12 --per-gpu "$results"
check_done_only n1_GPU-a1 n1_GPU-a2
expect 1 "node n2 lost, one task per GPU" "job 12: tasks without a record: 2 3 (of 4;"
grep -qF "job 12: 2 done, 0 failed, 0 interrupted, 0 killed, 2 of 4 tasks without a record; exit status 1;" "$out" ||
  fail "node n2 lost: the summary does not count the tasks without a record"

STANDIN_LOST=n2 run_job 13 "$results"
check_done_only n1_GPU-a1 n1_GPU-a2
# The lost node is in the allocation: gpubench-tools fleet names it missing.
check_allocation 13 "n1 2" "n2 2"
expect 1 "node n2 lost, one task per node" "job 13: tasks without a record: 1 (of 2;"

# Nodes of unlike GPU counts, and --no-gpus: each node alone, at least one GPU.
STANDIN_NODES="n1=GPU-a1,GPU-a2 n2=GPU-b1 n3=GPU-c1,GPU-c2" SLURM_JOB_NUM_NODES=3 run_job 29 "$results"
check_allocation 29 "n1 2" "n2 1" "n3 2"
STANDIN_NODES="n1=GPU-a1 n2=GPU-b1" run_job 30 --no-gpus "$results"
check_allocation 30 "n1" "n2"
echo "ok: the allocation file lists each node and its GPUs"

# scontrol not answering: one line, no allocation file, the job runs on.
STANDIN_SCONTROL_EXIT=1 run_job 31 "$results"
[[ ! -e $results/job31.expected_hosts && ! -e $results/job31.expected_hosts.tmp ]] ||
  fail "scontrol not answering: an allocation file was written"
expect 0 "scontrol not answering" "gpubench.sbatch: job 31: no $results/job31.expected_hosts (Unable to contact slurm controller (connect failure)): gpubench-tools fleet finds no node or GPU missing from the allocation"

STANDIN_SRUN_EXIT=1 run_job 14 --per-gpu "$results"
check_done_only n1_GPU-a1 n1_GPU-a2 n2_GPU-b1 n2_GPU-b2
expect 1 "srun fails, every record done" "job 14: srun exit status 1, though every record says done"

# A large fleet's directory: 4000 more records of this job, read for the summary in
# seconds (a scancel leaves the batch step KillWait, 30 s by default, to write it).
rm -rf "$results"
mkdir -p "$results"
record='status=done\nexit=0\ngpu_uuid=GPU-f%d\nnode=f%d\njob=27\ntask=%d\ndevice=0\n'
record+='time=2026-11-29T18:38:09Z\nattempt=0\n'
for ((gpu = 0; gpu < 4000; gpu++)); do
  # shellcheck disable=SC2059 # the record's format
  printf "$record" "$gpu" "$((gpu / 8))" "$gpu" > "$results/f$((gpu / 8))_GPU-f$gpu.status"
done
SECONDS=0
KEEP_RESULTS=1 run_job 27 --per-gpu "$results"
((SECONDS < 10)) || fail "a directory of 4000 records: the job took $SECONDS s"
expect 0 "a directory of 4000 records" \
  "job 27: 4004 done, 0 failed, 0 interrupted, 0 killed; exit status 0;"

# A flag that runs no benchmark: each run exits 0 without a JSON, measuring nothing: failed.
run_job 20 --per-gpu "$results" --benchmark_list_tests
expect 1 "gpubench exiting 0 without a result" "job 20: 0 done, 4 failed, 0 interrupted, 0 killed; exit status 1;"
[[ $(head -n 1 "$results/n2_GPU-b1.err") == "gpubench.sbatch: gpubench exited 0 and wrote no result" ]] ||
  fail "a run without a result: its .err does not say so"

# Peer benchmarks only, on nodes of one GPU each: nothing to measure, each task says so and the
# job exits non-zero.
STANDIN_GPUS=GPU-x,GPU-y STANDIN_NODES="n1=GPU-a1 n2=GPU-b1" SLURM_NTASKS=2 \
  run_job 21 "$results" --benchmark_filter=^peer/
for task in 0 1; do
  grep -qF "$task: gpubench.sbatch: task $task on n$((task + 1)): the filter selects peer benchmarks only, which need two GPUs or more: 1 here, nothing measured" "$out" ||
    fail "peer benchmarks on one GPU: task $task does not say it measures nothing"
done
expect 1 "peer benchmarks only, on nodes of one GPU" "job 21 left no record (srun exit status 0): nothing measured"

# An nvidia-smi that does not answer for GPU 0 of each node: named in one line, the job goes on
# and the GPU's files take the UUID gpubench measured.
mkdir -p "$work/smi"
printf '#!/usr/bin/env bash
[[ " $* " != *" --id=0 "* ]] || exec sleep 30
exec %q "$@"
' \
  "$standin/nvidia-smi" > "$work/smi/nvidia-smi"
chmod +x "$work/smi/nvidia-smi"
PATH=$work/smi:$PATH run_job 22 --per-gpu --smi-limit=1 "$results"
check_done_only n1_GPU-a1 n1_GPU-a2 n2_GPU-b1 n2_GPU-b2
for task in 0 2; do
  grep -qF "$task: gpubench.sbatch: n$((task / 2 + 1)): nvidia-smi --id=0 did not answer in 1 s: GPU 0 named by its entry" "$out" ||
    fail "nvidia-smi not answering: task $task does not say so"
done
expect 0 "nvidia-smi not answering" "job 22: 4 done, 0 failed, 0 interrupted, 0 killed; exit status 0;"

# A crash that leaves its last stderr line open: the exit status on a line of its own, in the
# .err and in the job's output.
STANDIN_BEHAVIOUR=GPU-b1=crash run_job 25 --per-gpu "$results"
[[ $(cat "$results/n2_GPU-b1.err") == "gpubench: cuMemcpy: an illegal memory acc"$'\n'"exit status 139" ]] ||
  fail "a crash mid-line: the .err does not end with its exit status on a line of its own"
grep -qx "[0-9]*: gpubench.sbatch: n2: n2_GPU-b1: failed (exit status 139)" "$out" ||
  fail "a crash mid-line: the task's line on its run is glued onto the crash's last line"
expect 139 "a crash mid-line" "job 25: 3 done, 1 failed, 0 interrupted, 0 killed; exit status 139;"

# Files that cannot be written. A file size limit no record fits under: each task says so in
# one line naming its first file, runs no GPU and exits 1; the job, left no record, exits 1
# (not SIGXFSZ).
out=$work/job-23.out
rm -rf "$results" "$STANDIN_SRUN_LOG"
status=$( (ulimit -f 0; SLURM_JOB_ID=23 bash "$sbatch_script" --per-gpu --gpubench="$standin/gpubench" "$results" 2>&1; echo "$?") | cat > "$out"; tail -n 1 "$out")
sed -i '$d' "$out"
for task in 0 1 2 3; do
  node=n$((task / 2 + 1)) gpu=$(((task % 2) + 1))
  [[ $node == n1 ]] && gpu=GPU-a$gpu || gpu=GPU-b$gpu
  grep -qxF "$task: gpubench.sbatch: task $task on $node: cannot write $results/${node}_$gpu.err (File too large): no further GPU starts" "$out" ||
    fail "a file size limit of 0: task $task does not say it cannot write its files"
done
[[ ! -e $STANDIN_SRUN_LOG || -z $(grep '^start' "$STANDIN_SRUN_LOG") ]] || fail "a file size limit of 0: a GPU started"
[[ -z $(find "$results" -name '*.tmp') ]] || fail "a file size limit of 0: a temporary file left"
expect 1 "a file size limit no record fits under" "job 23 left no record"
# The disk full (ENOSPC: a link to /dev/full) once n1's first GPU has run without a result (its
# JSON emptied), so that the task replaces gpubench's record: that task says so in one line, the
# GPU's record says failed, its next GPU never starts; n2 runs on.
mkdir -p "$work/filling"
# shellcheck disable=SC2016 # the stand-in's script, expanded when it runs
printf '#!/bin/sh\n"%s/gpubench" "$@"\nstatus=$?\n[ "$CUDA_VISIBLE_DEVICES" != GPU-a1 ] || { : > "%s/n1_GPU-a1.json"; ln -s /dev/full "%s/n1_GPU-a1.status.tmp"; }\nexit $status\n' \
  "$standin" "$results" "$results" > "$work/filling/gpubench"
chmod +x "$work/filling/gpubench"
run_job 24 --gpubench="$work/filling/gpubench" "$results"
grep -qxF "0: gpubench.sbatch: task 0 on n1: cannot write $results/n1_GPU-a1.status (No space left on device): no further GPU starts" "$out" ||
  fail "a full disk: task 0 does not say it cannot write its record"
grep -qx status=failed "$results/n1_GPU-a1.status" && grep -qx exit=0 "$results/n1_GPU-a1.status" ||
  fail "a full disk: n1_GPU-a1.status does not say failed"
[[ ! -e $results/n1_GPU-a1.status.tmp ]] || fail "a full disk: a temporary file left"
grep -qx status=interrupted "$results/n1_GPU-a2.status" && grep -qx exit=none "$results/n1_GPU-a2.status" ||
  fail "a full disk: n1's next GPU started after the failed write"
expect 1 "a full disk" "job 24: 2 done, 1 failed, 1 interrupted, 0 killed; exit status 1;"

# The batch step's values: one line, exit 2, no output directory made.
bad_job_values=(
  SLURM_JOB_ID ../21 "SLURM_JOB_ID=../21: not a whole number of 1-9 digits without a leading 0"
  SLURM_JOB_ID $'21\n22' "SLURM_JOB_ID=\$'21\\n22': not a whole number of 1-9 digits without a leading 0"
  SLURM_RESTART_COUNT one "SLURM_RESTART_COUNT=one: not a whole number of 1-9 digits without a leading 0"
  SLURM_NTASKS '4 ' "SLURM_NTASKS=4\\ : not a whole number of 1-9 digits without a leading 0"
  SLURM_NTASKS 08 "SLURM_NTASKS=08: not a whole number of 1-9 digits without a leading 0"
)
for ((i = 0; i < ${#bad_job_values[@]}; i += 3)); do
  rm -rf "$results"
  out=$work/bad-job.out
  status=0
  env SLURM_JOB_ID=21 "${bad_job_values[i]}=${bad_job_values[i + 1]}" \
    bash "$sbatch_script" --gpubench="$standin/gpubench" "$results" > "$out" 2>&1 || status=$?
  [[ $status == 2 && $(cat "$out") == "gpubench.sbatch: ${bad_job_values[i + 2]}" ]] ||
    fail "${bad_job_values[i + 2]}: exit status $status, want 2 and that line alone"
  [[ ! -e $results ]] || fail "${bad_job_values[i + 2]}: the output directory was made"
done
echo "ok: a job id, attempt or task count that is not a number stops the job in one line"

# GPUs per task without --per-gpu: the one task per node would measure one GPU of each node.
rm -rf "$results"
out=$work/gpus-per-task.out
status=0
SLURM_JOB_ID=28 SLURM_GPUS_PER_TASK=1 bash "$sbatch_script" --gpubench="$standin/gpubench" \
  "$results" > "$out" 2>&1 || status=$?
[[ $status == 2 && ! -e $results && $(wc -l < "$out") == 1 ]] ||
  fail "--gpus-per-task without --per-gpu: exit status $status, want 2, one line and no directory"
grep -qF "gpubench.sbatch: --gpus-per-task=1: one task per node would measure" "$out" ||
  fail "--gpus-per-task without --per-gpu: the line does not say why"
echo "ok: --gpus-per-task without --per-gpu refused in one line"

# A task's values: each task given one says so in one line and exits 2, writing nothing; the
# job names those tasks. Cases: the tasks' nodes, a variable they get (STANDIN_TASK_ENV), the
# tasks that refuse it, and their line.
printf '#!/bin/sh\necho "my host"\n' > "$work/hostname"
chmod +x "$work/hostname"
all_tasks="0 1 2 3"
bad_task_values=(
  "n/1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" "" "0 1" "SLURMD_NODENAME=n/1: holds a space, '/', '='"
  "n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" $'SLURMD_NODENAME=n1\nx' "$all_tasks" "SLURMD_NODENAME=\$'n1\\nx': holds"
  "n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" "SLURMD_NODENAME=n 1" "$all_tasks" "SLURMD_NODENAME=n\\ 1: holds"
  "n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" "SLURMD_NODENAME=" "$all_tasks" "hostname -s=my\\ host: holds"
  "n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" "SLURM_PROCID=x" "$all_tasks" "SLURM_PROCID=x: not a whole number"
  "n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2" "CUDA_VISIBLE_DEVICES=0,../x" "$all_tasks" "an entry of CUDA_VISIBLE_DEVICES=../x: holds"
)
for ((i = 0; i < ${#bad_task_values[@]}; i += 4)); do
  nodes=${bad_task_values[i]} task_env=${bad_task_values[i + 1]} line=${bad_task_values[i + 3]}
  read -ra refusing <<< "${bad_task_values[i + 2]}"
  STANDIN_NODES=$nodes STANDIN_TASK_ENV=$task_env PATH=$work:$PATH run_job 16 --per-gpu "$results"
  for ((task = 0; task < 4; task++)); do
    if [[ " ${refusing[*]} " == *" $task "* ]]; then
      [[ $(grep -c "^$task: " "$out") == 1 ]] || fail "$line: task $task wrote more than one line"
      grep -qF -- "$task: gpubench.sbatch: $line" "$out" || fail "$line: task $task does not say '$line'"
    fi
  done
  expect 1 "$line" "job 16: tasks without a record: ${refusing[*]} (of 4;"
  [[ $(find "$results" -mindepth 1 -not -name '.claims-*' -not -name 'job16.expected_hosts' |
    grep -v '/n2_' || true) == "" ]] ||
    fail "$line: files of a refusing task: $(find "$results" -mindepth 1 | tr '\n' ' ')"
done

# Real node names: the files and records are named by them.
STANDIN_NODES="gpu-node-07=GPU-a1,GPU-a2 ip-10-0-1-23.ec2.internal=GPU-b1,GPU-b2" run_job 17 --per-gpu "$results"
check_done_only gpu-node-07_GPU-a1 gpu-node-07_GPU-a2 ip-10-0-1-23.ec2.internal_GPU-b1 ip-10-0-1-23.ec2.internal_GPU-b2
expect 0 "real node names" "job 17: 4 done, 0 failed, 0 interrupted, 0 killed; exit status 0;"
printf '#!/bin/sh\necho dgx01\n' > "$work/hostname"
STANDIN_TASK_ENV=SLURMD_NODENAME= PATH=$work:$PATH run_job 18 --per-gpu "$results"
check_done_only dgx01_GPU-a1 dgx01_GPU-a2 dgx01_GPU-b1 dgx01_GPU-b2
grep -qx node=dgx01 "$results/dgx01_GPU-b2.status" || fail "the record does not name node dgx01"
expect 0 "the host name where SLURMD_NODENAME is unset" "job 18: 4 done, 0 failed, 0 interrupted, 0 killed; exit status 0;"

TMPDIR=$work/no-such-folder run_job 19 --per-gpu "$results"
[[ ! -e $STANDIN_SRUN_LOG && -z $(ls -A "$results" 2> /dev/null) ]] ||
  fail "a TMPDIR without room for a file: the job went on"
[[ $(wc -l < "$out") == 1 ]] || fail "a TMPDIR without room for a file: not one line"
expect 2 "a TMPDIR without room for a file" "gpubench.sbatch: cannot make a temporary file in TMPDIR: mktemp: "

# An OUTDIR that cannot be made (under a file): one line with the system's reason, exit 2.
: > "$work/a-file"
run_job 26 --per-gpu "$work/a-file/results"
[[ $(cat "$out") == "gpubench.sbatch: $work/a-file/results: cannot make the directory (Not a directory)" ]] ||
  fail "an OUTDIR under a file: not that one line"
expect 2 "an OUTDIR that cannot be made" "cannot make the directory"

skipped=""
if unshare --mount true 2> /dev/null; then
  STANDIN_NOMOUNT="n2 $shared" run_job 15 --per-gpu "$results"
  check_done_only n1_GPU-a1 n1_GPU-a2
  for task in 2 3; do
    grep -qF "$task: gpubench.sbatch: task $task on n2: the output directory $results is not there" "$out" ||
      fail "task $task on n2 does not say it sees no output directory"
  done
  [[ ! -s $STANDIN_SRUN_LOG ]] || fail "tasks on n2 wrote where the output directory is not: $(cat "$STANDIN_SRUN_LOG")"
  expect 1 "n2 without the output directory" "job 15: tasks without a record: 2 3 (of 4;"
elif [[ ${GPUBENCH_CLUSTER_TESTS:-} == required ]]; then
  fail "unshare --mount is refused: the hidden-directory case needs root (GPUBENCH_CLUSTER_TESTS=required)"
else
  skipped="the hidden-directory case needs a mount namespace (unshare --mount, as root)"
fi

if [[ -n $skipped ]]; then
  echo "SKIP: $skipped"
  exit 77
fi
echo "sbatch_sim_test: passed"
