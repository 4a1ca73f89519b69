#!/usr/bin/env bash
# --benchmark_out on a real GPU, as users meet it: a file of the temporary's old name beside the
# output, a write past the file size limit (ulimit -f), and an output named 255 bytes; each case
# prints its exit status, stderr and PASS or FAIL.
# Usage: tools/gpu_checks/output_checks.sh <gpubench>
set -u
G=$(realpath "$1"); W=$(mktemp -d); cd "$W" || exit 1
F='^saxpy/[^/]+/1048576/'
check() { # name, expected rc, actual rc, extra condition result (0 ok)
  if [[ $2 == "$3" && $4 == 0 ]]; then echo "PASS $1 (rc $3)"; else echo "FAIL $1 (rc $3, want $2, cond $4)"; fi; }
json_ok() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['benchmarks'] else 1)" "$1"; }
leftovers() { find . -maxdepth 1 -name '.*.tmp' | wc -l; }

echo "a user's notes" > out.json.tmp
"$G" --benchmark_filter="$F" --benchmark_out=out.json > o.txt 2> e.txt; rc=$?
json_ok out.json && [[ $(cat out.json.tmp) == "a user's notes" && $(leftovers) == 0 ]]
check "out.json.tmp beside the output is left as it is" 0 $rc $?; tail -1 e.txt

# stdout to /dev/null, which no file size limit applies to; stderr holds the run's header.
(ulimit -f 16; exec "$G" --benchmark_filter='^(saxpy|copy/HtoD/pinned)/' --benchmark_out=out.json) > /dev/null 2> e.txt; rc=$?
python3 -c "
import json,sys; d=json.load(open('out.json')); print(d['context']['run_status'], len(d['benchmarks']), 'benchmarks kept')
sys.exit(0 if d['context']['run_status'] == 'running' and d['benchmarks'] else 1)" &&
  [[ $(grep -c 'could not be written' e.txt) == 1 && $(tail -1 e.txt) == 'gpubench: --benchmark_out=out.json: could not be written' && $(leftovers) == 0 ]]
check "a write past ulimit -f 16 KiB is one line; the last document that fit stays, marked running" 1 $rc $?; tail -1 e.txt

long=$(printf 'n%.0s' {1..250}).json
"$G" --benchmark_filter="$F" --benchmark_out="$long" > o.txt 2> e.txt; rc=$?
json_ok "$long" && [[ $(leftovers) == 0 ]]; check "an output named 255 bytes is written" 0 $rc $?; tail -1 e.txt
