#!/usr/bin/env bash
# The CI gate: records the candidate as the baseline was recorded (scripts/gpubench-tools record,
# GPUBENCH_RUNS separate runs, given the flags of the settings the baseline's context states: its
# filter, minimum time, --energy, devices, --l2, --sizes; scripts/gpubench-tools flags; a baseline of
# another build type than the binary's --version states, which no flag gives, stops it before any
# run), compares it with the baseline (scripts/gpubench-tools compare), and confirms every change it finds
# before it says so. Where a benchmark is found SLOWER or FASTER, the candidate is recorded
# GPUBENCH_RUNS times more, and each change is judged again on those runs alone (gpubench-tools compare
# --confirm): it stands where they give the same verdict. Each process lands on a level of its own,
# so now and then an unchanged benchmark's few runs all sit past its baseline's; fresh runs seldom
# do again, while a real change is in every run. The runs that showed a change are not judged again:
# picked for sitting far out, they would count twice. The confirming runs are whole runs, as the
# first were (all the baseline's filter selects, the whole suite where it has none): a benchmark can
# measure otherwise in a run of a few (on the H200, the GPU time per node of a graph replay was 0.61
# us in runs of the changed benchmarks alone, 0.79 us in runs of the suite:
# results/h200/verdicts/gate_aa/filtered_confirm/).
#
#   scripts/gpubench-tools gate build/gpubench results/h200/ci_baseline.json gpubench.json --markdown
#
# Writes OUT.json, the candidate's runs, and where there were confirming runs, OUT.confirm.json
# beside it (OUT.json's name with .json replaced); an OUT.json.gz, .xz or .bz2 and its
# OUT.confirm.json.gz (.xz, .bz2) are written compressed (gpubench-tools record). Prints on stdout what the
# gate says, and nothing else: the last comparison's report (or gpubench-tools compare's one line where it
# cannot compare), followed by the filter of what the confirming runs judged again; the recordings'
# own output goes to stderr. Flags after OUT.json go to gpubench-tools compare, but for those the gate sets
# itself (--confirm, --changed-filter, --new-runs) and --help; they are checked, with the baseline,
# before the first run. In a regression check the candidate must hold every benchmark of the
# baseline (one that no longer runs passes no check); a benchmark only in the candidate is new.
#
# SIGTERM, SIGINT or SIGHUP stops the recording in progress with the same signal and waits for
# it (gpubench-tools record's line says which run it stopped), or stops the gate once the comparison in
# progress ends (one line says so); no verdict is printed.
#
# Exit status: the last comparison's (0 no regression, 1 a regression, 3 another GPU, driver, CUDA
# or measurement setting), or 3 before any run for a baseline of another build type than the
# binary's; 2 bad usage (a gpubench-tools compare flag, GPUBENCH_RUNS or GPUBENCH_RUN_TIMEOUT out of
# gpubench-tools record's range, GPUBENCH_RUNS too few against the baseline's runs for any p < --alpha), an
# unusable baseline (one of one process's run among them: gpubench-tools compare makes no regression check
# against it; a setting that is no text a flag can hold), an output that cannot be written, that is
# the binary or the baseline, that is no regular file to read back or that names the confirm file by
# a link, or a TMPDIR no folder can be made in, all found before any run, or confirming runs
# gpubench-tools compare cannot judge against the candidate (its line says why, and no line says what was judged
# again); 4 a recording failed (gpubench-tools record's line says how); 5 the candidate lacks benchmarks of
# the baseline (one line names them); 128+N stopped by signal N.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "gpubench-tools gate: usage: gpubench-tools gate GPUBENCH BASELINE.json OUT.json [gpubench-tools compare flags...]" >&2
  exit 2
fi
binary=$1
baseline=$2
out=$3
shift 3
scripts=$(dirname "$0")
tools=("${GPUBENCH_TOOLS_PYTHON:-python3}" -m gpubench_tools)
source "$scripts/check_output.sh"
# GPUBENCH_RUNS and GPUBENCH_RUN_TIMEOUT reach gpubench-tools record through the gate's environment: the
# gate checks them as gpubench-tools record does, so that a bad one is its line before gpubench-tools compare reads
# the baseline, and gives gpubench-tools compare the number of runs (--new-runs).
recording_settings "gpubench-tools gate" || exit 2
# gpubench-tools compare flags the gate sets itself are not passed on: a later --confirm, --changed-filter
# or --new-runs replaces the gate's own (its verdict then rests on that file, no change is
# confirmed, or too few runs go unnoticed), and --help makes every comparison print the help
# and exit 0 with no verdict. argparse reads any unambiguous prefix of a long option as that
# option, so a prefix counts. So it does for --report, which the gate notes (a prefix that also
# begins another option is ambiguous, and gpubench-tools compare refuses it before any run).
report=0
for flag in "$@"; do
  [[ $flag == -- ]] && break
  name=${flag%%=*}
  if [[ $name == --r* && --report == "$name"* ]]; then
    report=1
  fi
  for own in --confirm --changed-filter --new-runs --help; do
    if [[ ($own == --help && $name == -h*) || ($name == --?* && $own == "$name"*) ]]; then
      echo "gpubench-tools gate: ${flag//[^[:print:]]/?}: gpubench-tools compare's $own, which the gate does not" \
        "pass on (it sets --confirm, --changed-filter and --new-runs itself; --help would" \
        "compare nothing)" >&2
      exit 2
    fi
  done
done
case $out in
  *.json.gz | *.json.xz | *.json.bz2) confirm=${out%.json.*}.confirm.json.${out##*.json.} ;;
  *) confirm=${out%.json}.confirm.json ;;
esac
# The gate reads what it writes back to compare it: a FIFO or a device gives nothing back.
for path in "$out" "$confirm"; do
  check_output "gpubench-tools gate" "$path" "$binary" "$baseline" || exit 2
  if [[ -e $path && ! -f $path ]]; then
    echo "gpubench-tools gate: ${path//[^[:print:]]/?}: not a regular file; the gate reads its output" \
      "back to compare it" >&2
    exit 2
  fi
done
# By a link, OUT.json can name the file OUT.confirm.json names: the confirming runs would then
# take the place of the candidate's.
if [[ $(realpath -m -- "$out") == "$(realpath -m -- "$confirm")" ]]; then
  echo "gpubench-tools gate: ${out//[^[:print:]]/?}: names the file its confirming runs go to" \
    "(${confirm//[^[:print:]]/?}); they would take the place of its runs" >&2
  exit 2
fi
rm -f -- "$confirm" # a stale one would read as this run's

# record OUT: gpubench-tools record of the binary into OUT with the baseline's flags, as the child a
# signal is passed on to (with SIGINT as it came: bash starts a background child with SIGINT
# ignored).
record() {
  stage="while recording $1"
  (
    trap - INT
    exec "$scripts/gpubench-tools record" "$binary" "$1" "${flags[@]}"
  ) >&2 &
  wait "$!"
}

# stopped SIGNAL: the signal passed on to the recording in progress, which is waited for and
# says which run it stopped; a comparison in progress has ended (bash runs a trap after the
# command in progress). Exits.
stopped() {
  local signal=$1 status=0
  trap '' TERM INT HUP
  if [[ $stage == "while recording"* ]]; then
    # shellcheck disable=SC2046 # a process id a word
    kill -s "$signal" $(jobs -pr) 2> /dev/null || true
    wait "$!" 2> /dev/null || status=$?
  fi
  if ((status != 128 + $(kill -l "$signal"))); then
    echo "gpubench-tools gate: stopped by SIG$signal ${stage//[^[:print:]]/?}; no verdict" >&2
  fi
  exit $((128 + $(kill -l "$signal")))
}

dir=$(temporary_folder gpubench-tools gate) || exit 2
trap 'rm -rf "$dir"' EXIT
stage="while checking the baseline"
trap 'stopped TERM' TERM
trap 'stopped INT' INT
trap 'stopped HUP' HUP
# An unusable baseline or gpubench-tools compare flag is found before the runs, not minutes later:
# gpubench-tools compare reads the baseline (against itself) with the flags and says why in one line, as it
# does where GPUBENCH_RUNS runs against the baseline's can give no p < --alpha, a gate that could
# never fail. Its files follow `--` and a file option's `=`, so that a name starting with a dash
# is no option.
if ! "${tools[@]}" compare --new-runs="$runs" "$@" -- "$baseline" "$baseline" > /dev/null \
  2> "$dir/report"; then
  cat "$dir/report"
  exit 2
fi
# The build type is the binary's, not a flag's, and a baseline of another (a Debug build's
# against a Release candidate) is measured otherwise, which gpubench-tools compare finds only after the runs.
# gpubench --version states it without a GPU, and gpubench-tools flags refuses a baseline that
# states another, with gpubench-tools compare's status for measured otherwise (3). A --report compares any
# builds; a binary that states no build type is left to gpubench-tools compare, after the runs.
build_type=()
if ((!report)) && version=$(timeout 60 "$binary" --version 2> /dev/null) &&
  [[ $version =~ ^gpubench\ [^[:space:]]+\ \(([^[:space:]()]+)\ build\)$ ]]; then
  build_type=(--build-type="${BASH_REMATCH[1]}")
fi
status=0
"${tools[@]}" flags "${build_type[@]}" -- "$baseline" > "$dir/flags" 2> "$dir/report" ||
  status=$?
if ((status != 0)); then
  cat "$dir/report"
  exit $((status == 3 ? 3 : 2))
fi
mapfile -t flags < "$dir/flags"
if ((${#flags[@]})); then
  echo "gpubench-tools gate: recording with the baseline's settings: ${flags[*]}" >&2
fi
record "$out" || exit "$?"

stage="while comparing"
status=0
"${tools[@]}" compare --missing-fails --changed-filter "$dir/changed" "$@" -- "$baseline" "$out" \
  > "$dir/report" 2>&1 || status=$?
# No change found, or no comparison (another GPU, driver or CUDA; an unusable file).
if [[ ! -s $dir/changed ]]; then
  cat "$dir/report"
  exit "$status"
fi
filter=$(< "$dir/changed")

echo "gpubench-tools gate: recording the suite again to confirm what changed: $filter" >&2
record "$confirm" || exit "$?"
stage="while comparing"
status=0
"${tools[@]}" compare --missing-fails --confirm="$confirm" "$@" -- "$baseline" "$out" \
  > "$dir/report" 2>&1 || status=$?
cat "$dir/report"
# A status past 1 is gpubench-tools compare's one line: confirming runs it could not judge (of another
# driver, say, updated during the gate), so nothing was judged again.
if ((status > 1)); then
  exit "$status"
fi
printf '\nConfirmed by %d more runs of the suite, each change judged again on them alone: `%s`\n' \
  "$runs" "$filter"
exit "$status"
