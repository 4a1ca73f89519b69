#!/usr/bin/env bash
# Bad input on a real GPU: hardening/cli_checks.sh's cases, then the timing flags below a
# nanosecond and a chase that does not fit; each case prints its command's exit status, stderr,
# and PASS or FAIL against what the README says. Usage: cli_checks.sh <gpubench>
set -u
bash "$(dirname "$0")/../hardening/cli_checks.sh" "$1"
G=$(realpath "$1"); W=$(mktemp -d); cd "$W" || exit 1
F='^saxpy/[^/]+/1048576/'
check() { # name, expected rc, actual rc, extra condition result (0 ok)
  if [[ $2 == "$3" && $4 == 0 ]]; then echo "PASS $1 (rc $3)"; else echo "FAIL $1 (rc $3, want $2, cond $4)"; fi; }
json_ok() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['benchmarks'] else 1)" "$1"; }
"$G" --benchmark_min_time=1e-310s --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "a min_time below a nanosecond refused" 2 $rc $?; cat e.txt
BENCHMARK_MIN_TIME=1e-310 "$G" --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "BENCHMARK_MIN_TIME below a nanosecond refused" 2 $rc $?; cat e.txt
"$G" --benchmark_min_warmup_time=1e-310 --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "a min_warmup_time below a nanosecond refused" 2 $rc $?; cat e.txt
"$G" --benchmark_min_time=0 --benchmark_filter="$F" --benchmark_out=zero.json > o.txt 2> e.txt; rc=$?
json_ok zero.json; check "min_time 0 runs" 0 $rc $?; cat e.txt
"$G" --latency-sizes=4K,512G --benchmark_filter='^latency/chase/device/' --benchmark_out=lat.json > o.txt 2> e.txt; rc=$?
python3 -c "
import json,sys; b=json.load(open('lat.json'))['benchmarks']
ok=[e for e in b if '/4096/' in e['name'] and not e.get('error_occurred')]
sk=[e for e in b if '/549755813888/' in e['name'] and str(e.get('error_message','')).startswith('skipped')]
print([(e['name'], e.get('error_message')) for e in sk]); sys.exit(0 if ok and sk else 1)"; check "a chase of 512 GiB is skipped, 4K runs" 0 $rc $?; cat e.txt
