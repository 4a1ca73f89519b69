#!/usr/bin/env bash
# Records gpubench the way the CI gate compares it: RUNS separate runs of one binary (default 5,
# or $GPUBENCH_RUNS), each a process of its own, merged by merge_runs.py into OUT.json with one
# repetition per run. The gate records its candidate with this, and the committed baseline is
# recorded with this too. Arguments after OUT.json go to every gpubench run.
#
#   scripts/ci_record.sh build/gpubench gpubench.json
#
# Exit status: gpubench's own where a run fails, merge_runs.py's where the merge does, 2 for
# bad usage (a binary that is no executable file among them) or an output that cannot be
# written or that is the binary.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "ci_record.sh: usage: ci_record.sh GPUBENCH OUT.json [gpubench flags...]" >&2
  exit 2
fi
binary=$1
out=$2
shift 2
runs=${GPUBENCH_RUNS:-5}
if ! [[ $runs =~ ^[0-9]+$ ]] || (( 10#$runs < 2 )); then
  echo "ci_record.sh: GPUBENCH_RUNS must be a whole number >= 2, not '${runs//[^[:print:]]/?}'" >&2
  exit 2
fi
runs=$((10#$runs))
if ! type -P -- "$binary" > /dev/null; then
  echo "ci_record.sh: ${binary//[^[:print:]]/?}: not an executable file" >&2
  exit 2
fi
source "$(dirname "$0")/check_output.sh"
check_output ci_record.sh "$out" "$binary" || exit 2

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
files=()
for ((i = 1; i <= runs; i++)); do
  echo "ci_record.sh: run $i of $runs" >&2
  "$binary" "$@" --benchmark_out="$dir/run_$i.json" --benchmark_out_format=json
  files+=("$dir/run_$i.json")
done
python3 "$(dirname "$0")/merge_runs.py" "${files[@]}" -o "$out"
