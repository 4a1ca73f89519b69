#!/usr/bin/env bash
# Records gpubench the way the CI gate compares it: RUNS separate runs of one binary (default 5,
# or $GPUBENCH_RUNS, 2 to 1000), each a process of its own, merged by gpubench-tools merge into OUT.json
# with one repetition per run (compressed where its name ends in .gz, .xz or .bz2). The gate
# records its candidate with this, and the committed baseline is recorded with this too.
# Arguments after OUT.json go to every gpubench run.
#
#   scripts/gpubench-tools record build/gpubench gpubench.json
#
# Each run may take GPUBENCH_RUN_TIMEOUT seconds (1 to 86400, default 1800: the default suite
# takes about 50 s on an H200, so only a run that hangs comes near it). A run still going then
# gets SIGTERM, on which gpubench stops between batches, and SIGKILL 30 s later.
#
# SIGTERM, SIGINT or SIGHUP stops the run in progress with the same signal and waits for it, so
# no gpubench is left holding the GPU or writing later; one line says which signal stopped which
# run, and OUT.json is not written.
#
# Exit status: 0 written; 2 bad usage (a setting out of its range, a binary that is no
# executable file among them), an output that cannot be written (/dev/full), that names a
# folder (a trailing /) or that is the binary, or a TMPDIR no folder can be made in, found
# before any run; 4 the recording failed: a run failed or did not finish in time, or the runs
# could not be merged or written (the line before says which); 128+N stopped by signal N.
set -euo pipefail

readonly RECORDING_FAILED=4
readonly KILL_AFTER_S=30

if [[ $# -lt 2 ]]; then
  echo "gpubench-tools record: usage: gpubench-tools record GPUBENCH OUT.json [gpubench flags...]" >&2
  exit 2
fi
binary=$1
out=$2
shift 2
scripts=$(dirname "$0")
tools=("${GPUBENCH_TOOLS_PYTHON:-python3}" -m gpubench_tools)

source "$scripts/check_output.sh"
recording_settings "gpubench-tools record" || exit 2
if ! type -P -- "$binary" > /dev/null; then
  echo "gpubench-tools record: ${binary//[^[:print:]]/?}: not an executable file" >&2
  exit 2
fi
if ! type -P timeout > /dev/null; then
  echo "gpubench-tools record: timeout (GNU coreutils) not found; it bounds each run" >&2
  exit 2
fi
check_output "gpubench-tools record" "$out" "$binary" || exit 2
shown_out=${out//[^[:print:]]/?}

# run_gpubench INDEX FILE [FLAGS...]: run INDEX of gpubench, writing FILE, bounded in time; one
# line naming the run where it fails.
run_gpubench() {
  local index=$1 file=$2 started=$SECONDS status=0 signal
  shift 2
  # timeout runs gpubench in a process group of its own and passes on the signals it gets.
  timeout -k "$KILL_AFTER_S" "$run_timeout" "$binary" "$@" --benchmark_out="$file" \
    --benchmark_out_format=json &
  wait "$!" 2> /dev/null || status=$? # bash's own line for a child killed names timeout
  local run="run $index of $runs"
  if ((status == 0)) && [[ -s $file ]]; then
    return 0
  elif ((status == 0)); then
    echo "gpubench-tools record: $run: gpubench exited 0 and wrote no result" >&2
  elif ((status == 124 || status == 137)) && ((SECONDS - started >= run_timeout)); then
    echo "gpubench-tools record: $run did not finish in $run_timeout s" >&2
  elif ((status > 128)) && signal=$(kill -l $((status - 128)) 2> /dev/null); then
    echo "gpubench-tools record: $run: gpubench was killed by signal SIG$signal" >&2
  else
    echo "gpubench-tools record: $run: gpubench exited $status" >&2
  fi
  return 1
}

# stopped SIGNAL: the signal passed on to the run in progress, which is waited for (a merge in
# progress is left to finish: it is short, and then says whether OUT.json was written); exits.
stopped() {
  local signal=$1 written="not written"
  trap '' TERM INT HUP
  if [[ $stage == merging ]]; then
    wait "$!" 2> /dev/null && written=written
    stage="while merging the runs"
  else
    # shellcheck disable=SC2046 # a process id a word
    kill -s "$signal" $(jobs -pr) 2> /dev/null || true
    wait
  fi
  echo "gpubench-tools record: stopped by SIG$signal $stage; $shown_out $written" >&2
  exit $((128 + $(kill -l "$signal")))
}

dir=$(temporary_folder gpubench-tools record) || exit 2
trap 'rm -rf "$dir"' EXIT
stage="before the first run"
trap 'stopped TERM' TERM
trap 'stopped INT' INT
trap 'stopped HUP' HUP
files=()
for ((i = 1; i <= runs; i++)); do
  echo "gpubench-tools record: run $i of $runs" >&2
  stage="during run $i of $runs"
  run_gpubench "$i" "$dir/run_$i.json" "$@" || exit "$RECORDING_FAILED"
  files+=("$dir/run_$i.json")
done
stage=merging
# --output= and --: an OUT.json whose name starts with a dash is no option.
"${tools[@]}" merge --output="$out" -- "${files[@]}" &
wait "$!" || exit "$RECORDING_FAILED"
