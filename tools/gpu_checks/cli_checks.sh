#!/usr/bin/env bash
# Bad input to gpubench on a real GPU, as a user meets it: each case prints its command's exit
# status, stderr, and PASS or FAIL against what the README says. The first 13 cases are
# Google Benchmark's variables and flags, context values, huge sizes, --benchmark_out through
# links and listing; the last 5 are timing flags below a nanosecond and a chase that does not fit.
# Usage: tools/gpu_checks/cli_checks.sh <gpubench>
set -u
G=$(realpath "$1"); W=$(mktemp -d); cd "$W"
F='^saxpy/[^/]+/1048576/'
check() { # name, expected rc, actual rc, extra condition result (0 ok)
  if [[ $2 == "$3" && $4 == 0 ]]; then echo "PASS $1 (rc $3)"; else echo "FAIL $1 (rc $3, want $2, cond $4)"; fi; }
json_ok() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['benchmarks'] else 1)" "$1"; }
reps_are() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={e['repetitions'] for e in d['benchmarks']}; sys.exit(0 if r=={int(sys.argv[2])} else 1)" "$1" "$2"; }

BENCHMARK_REPETITIONS=2 "$G" --benchmark_filter="$F" --benchmark_out=env_reps.json > o.txt 2> e.txt; rc=$?
reps_are env_reps.json 2; check "BENCHMARK_REPETITIONS=2 runs two repetitions" 0 $rc $?; cat e.txt
BENCHMARK_REPETITIONS=2 "$G" --benchmark_repetitions=3 --benchmark_filter="$F" --benchmark_out=flag_wins.json > o.txt 2> e.txt; rc=$?
reps_are flag_wins.json 3; check "the flag wins over BENCHMARK_REPETITIONS" 0 $rc $?
BENCHMARK_REPETITIONS=0 "$G" --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "BENCHMARK_REPETITIONS=0 is one line" 2 $rc $?; cat e.txt
V=abc "$G" --benchmark_filter="$F" --benchmark_out=v.json > o.txt 2> e.txt; rc=$?
json_ok v.json; check "V=abc does not break a run" 0 $rc $?; cat e.txt
POD_NAME=$'pod\x01\xff' SLURM_JOB_ID=$'12\x1b[2J' NODE_NAME=$'n\nx' "$G" --benchmark_filter="$F" --benchmark_out=ctx.json > o.txt 2> e.txt; rc=$?
json_ok ctx.json; check "hostile scheduler values leave valid JSON" 0 $rc $?
python3 -c "import json; c=json.load(open('ctx.json'))['context']; print({k: c[k] for k in c if k.startswith(('pod','slurm','node'))})"
"$G" --benchmark_context=gpu_name=FAKE --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "a context key of gpubench's is refused" 2 $rc $?; cat e.txt
"$G" $'--benchmark_context=k=\x1b[2J' --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]] && ! grep -q $'\x1b' e.txt; check "a context value with an escape is refused, shown escaped" 2 $rc $?; cat -v e.txt
"$G" --sizes=4K,4294967296G --benchmark_filter='^copy/HtoD/pinned/async/' --benchmark_out=huge.json > o.txt 2> e.txt; rc=$?
python3 -c "
import json,sys; b=json.load(open('huge.json'))['benchmarks']
ok=[e for e in b if '/4096/' in e['name'] and not e.get('error_occurred')]
sk=[e for e in b if '/4611686018427387904/' in e['name'] and str(e.get('error_message','')).startswith('skipped')]
print([(e['name'], e.get('error_message')) for e in sk]); sys.exit(0 if ok and sk else 1)"; check "a size of 2^62 bytes is skipped, 4K runs" 0 $rc $?; cat e.txt
echo '{"a":1}' > keep.json
BENCHMARK_OUT=keep.json "$G" --benchmark_list_tests > o.txt 2> e.txt; rc=$?
[[ $(cat keep.json) == '{"a":1}' ]]; check "listing leaves BENCHMARK_OUT's file alone" 0 $rc $?
"$G" --benchmark_list_tests --benchmark_out=keep.json > o.txt 2> e.txt; rc=$?
[[ $(cat keep.json) == '{"a":1}' ]]; check "listing leaves --benchmark_out's file alone" 0 $rc $?
ln -s "$W/target.json" link.json
"$G" --benchmark_filter="$F" --benchmark_out=link.json > o.txt 2> e.txt; rc=$?
[[ -L link.json ]] && json_ok target.json; check "a dangling link is written through" 0 $rc $?; cat e.txt
"$G" --benchmark_repetitions=2147483647 --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "huge repetitions refused" 2 $rc $?; cat e.txt
"$G" --benchmark_min_time=1e20 --benchmark_filter="$F" > o.txt 2> e.txt; rc=$?
[[ $(wc -l < e.txt) == 1 ]]; check "huge min_time refused" 2 $rc $?; cat e.txt

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
