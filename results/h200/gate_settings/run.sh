#!/bin/bash
# Build, every GPU test and gpubench's unit tests; then the CI gate against a baseline recorded
# with a filter and a minimum time: the gate records its candidate with them (gate_*).
# old_gate.sh runs the gate before it against the same baseline.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > $O/cfg.txt 2>&1 && cmake --build build > $O/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
tail -2 $O/build.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv
ctest --test-dir build -L gpu --output-on-failure > $O/ctest_gpu.txt 2>&1; tail -3 $O/ctest_gpu.txt
grep -hE "\*\*\*Failed|\*\*\*Timeout|Exception" $O/ctest_gpu.txt | head -20
echo "t=$(( $(date +%s) - start )) s"
build/tests/gpubench_unit_tests > $O/unit_tests.txt 2>&1; echo "unit tests rc=$?"; tail -3 $O/unit_tests.txt
echo "t=$(( $(date +%s) - start )) s"
G=$O/gate_settings; mkdir -p $G
filter='^saxpy/driver/'
t0=$(date +%s)
GPUBENCH_RUNS=3 scripts/ci_record.sh build/gpubench $G/baseline.json --benchmark_filter=$filter --benchmark_min_time=0.05s 2> $G/baseline_record.err; echo "baseline record rc=$?"
t1=$(date +%s)
GPUBENCH_RUNS=3 scripts/ci_gate.sh build/gpubench $G/baseline.json $G/gate.json > $G/gate_stdout.txt 2> $G/gate_stderr.txt; echo "gate exit $?" | tee -a $G/gate_stdout.txt
t2=$(date +%s)
scripts/recorded_flags.py $G/baseline.json > $G/recorded_flags.txt
printf 'baseline (3 runs) %d s\ngate (3 runs) %d s\n' $((t1-t0)) $((t2-t1)) > $G/wall.txt
python3 -c "
import json, sys
for f in sys.argv[1:]:
    c = json.load(open(f))['context']
    print(f.rsplit('/', 1)[1], {k: c.get(k) for k in ('benchmark_filter', 'benchmark_min_time', 'merged_runs', 'gpubench_version')}, len(json.load(open(f))['benchmarks']), 'entries')
" $G/baseline.json $G/gate.json > $G/contexts.txt 2>&1
cat $G/wall.txt $G/contexts.txt $G/recorded_flags.txt; head -5 $G/gate_stdout.txt; tail -3 $G/gate_stdout.txt; grep "ci_gate.sh" $G/gate_stderr.txt
echo "t=$(( $(date +%s) - start )) s"
xz -9e $G/*.json
cd $O && tar czf all.tgz *.txt gate_settings && rm -rf gate_settings
