#!/bin/bash
# The gate before it recorded its candidate with the baseline's settings (build-old/ci_gate.sh,
# carried), against the baseline run.sh recorded: it records the whole suite with gpubench's
# defaults, and compare.py refuses the pair as measured otherwise, after the runs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
G=$O/gate_settings; mkdir -p $G
start=$(date +%s)
cmake -S . -B build -G Ninja > $O/cfg.txt 2>&1 && cmake --build build --target gpubench > $O/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
xz -dc results/h200/gate_settings/baseline.json.xz > $G/baseline.json
cp build-old/ci_gate.sh scripts/ci_gate_old.sh
t0=$(date +%s)
GPUBENCH_RUNS=2 bash scripts/ci_gate_old.sh build/gpubench $G/baseline.json $G/old_gate.json > $G/old_gate_stdout.txt 2> $G/old_gate_stderr.txt; echo "old gate exit $?" | tee -a $G/old_gate_stdout.txt
echo "old gate (2 runs) $(( $(date +%s) - t0 )) s" | tee $G/old_gate_wall.txt
rm -f scripts/ci_gate_old.sh $G/baseline.json
cat $G/old_gate_stdout.txt
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); c = d['context']
print({k: c.get(k) for k in ('benchmark_filter', 'benchmark_min_time', 'merged_runs')}, len(d['benchmarks']), 'entries')
" $G/old_gate.json | tee $G/old_gate_context.txt
rm -f $G/old_gate.json
xz -9e $G/old_gate_stderr.txt
cd $O && tar czf all.tgz gate_settings && rm -rf gate_settings
