#!/bin/bash
# The CI gate against a baseline recorded with --sizes (the candidate's runs must carry the
# sizes), and against a copy of that baseline stating a Debug build (refused before any run,
# exit 3). Five runs on each side: three against three can give no p < 0.01 in the U test.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > $O/cfg.txt 2>&1 && cmake --build build --target gpubench > $O/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv
build/gpubench --version
G=$O/family_flags; mkdir -p $G
t0=$(date +%s)
GPUBENCH_RUNS=5 scripts/ci_record.sh build/gpubench $G/baseline.json '--benchmark_filter=^copy/HtoD/pinned/async/' --sizes=1G,4G --benchmark_min_time=0.05s 2> $G/baseline_record.err; echo "baseline record rc=$?"
t1=$(date +%s)
GPUBENCH_RUNS=5 scripts/ci_gate.sh build/gpubench $G/baseline.json $G/gate.json > $G/gate_stdout.txt 2> $G/gate_stderr.txt; echo "gate exit $?" | tee -a $G/gate_stdout.txt
t2=$(date +%s)
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['context']['gpubench_build_type'] = 'Debug'
json.dump(d, open(sys.argv[2], 'w'), indent=1)
" $G/baseline.json $G/baseline_debug.json
GPUBENCH_RUNS=5 scripts/ci_gate.sh build/gpubench $G/baseline_debug.json $G/gate_debug.json > $G/debug_stdout.txt 2> $G/debug_stderr.txt; echo "gate exit $?" | tee -a $G/debug_stdout.txt
t3=$(date +%s)
ls $G/gate_debug.json 2>&1 | tee -a $G/debug_stdout.txt
scripts/recorded_flags.py $G/baseline.json > $G/recorded_flags.txt
printf 'baseline (5 runs) %d s\ngate (5 runs) %d s\ngate against a Debug baseline %d s\n' $((t1-t0)) $((t2-t1)) $((t3-t2)) > $G/wall.txt
python3 -c "
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f)); c = d['context']
    print(f.rsplit('/', 1)[1], {k: c.get(k) for k in ('benchmark_filter', '--sizes', 'benchmark_min_time', 'merged_runs', 'gpubench_version', 'gpubench_build_type')}, sorted({b.get('run_name', b['name']) for b in d['benchmarks']}))
" $G/baseline.json $G/gate.json > $G/contexts.txt 2>&1
cat $G/wall.txt $G/contexts.txt $G/recorded_flags.txt; head -5 $G/gate_stdout.txt; tail -3 $G/gate_stdout.txt; grep "ci_gate.sh" $G/gate_stderr.txt
cat $G/debug_stdout.txt $G/debug_stderr.txt
echo "t=$(( $(date +%s) - start )) s"
rm -f $G/baseline_debug.json
xz -9e $G/*.json
cd $O && tar czf gate.tgz *.txt family_flags && rm -rf family_flags
