#!/bin/bash
# The CI gate end to end with gzip-compressed files: a baseline recorded by ci_record.sh to a
# .json.gz name, the gate against it writing gate.json.gz (and its confirm file where it
# confirms), compare.py of the two, and the gate against that baseline cut short (refused before
# any run, one line, exit 2).
set -u
export PATH=$PATH:/usr/local/cuda/bin
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > /tmp/cfg.txt 2>&1 && cmake --build build --target gpubench > /tmp/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
build/gpubench --version
G=/tmp/gzip_gate; mkdir -p $G
FILTER='--benchmark_filter=^(copy/HtoD/pinned/async|saxpy/driver)/'
t0=$(date +%s)
GPUBENCH_RUNS=5 scripts/ci_record.sh build/gpubench $G/baseline.json.gz "$FILTER" --sizes=256M,1G 2> $G/baseline_record.err; echo "baseline record rc=$?"
t1=$(date +%s)
GPUBENCH_RUNS=5 scripts/ci_gate.sh build/gpubench $G/baseline.json.gz $G/gate.json.gz > $G/gate_stdout.txt 2> $G/gate_stderr.txt; echo "gate exit $?" | tee -a $G/gate_stdout.txt
t2=$(date +%s)
head -c 20000 $G/baseline.json.gz > $G/cut.json.gz
GPUBENCH_RUNS=5 scripts/ci_gate.sh build/gpubench $G/cut.json.gz $G/gate_cut.json.gz > $G/cut_stdout.txt 2> $G/cut_stderr.txt; echo "gate exit $?" | tee -a $G/cut_stdout.txt
t3=$(date +%s)
ls $G/gate_cut.json.gz 2>&1 | tee -a $G/cut_stdout.txt
rm -f $G/cut.json.gz
scripts/compare.py $G/baseline.json.gz $G/gate.json.gz > $G/compare.txt 2>&1; echo "compare exit $?" >> $G/compare.txt
printf 'baseline (5 runs) %d s\ngate (5 runs) %d s\ngate against the cut baseline %d s\n' $((t1-t0)) $((t2-t1)) $((t3-t2)) > $G/wall.txt
(cd $G && for f in *.json.gz; do printf '%s: %s bytes, ' $f $(stat -c %s $f); gzip -t $f && gzip -dc $f | wc -c | tr -d '\n'; echo " bytes unpacked"; done) > $G/files.txt 2>&1
cat $G/wall.txt $G/files.txt; head -5 $G/gate_stdout.txt; tail -3 $G/gate_stdout.txt; grep "ci_gate.sh" $G/gate_stderr.txt
cat $G/cut_stdout.txt $G/cut_stderr.txt; head -12 $G/compare.txt; tail -1 $G/compare.txt
echo "t=$(( $(date +%s) - start )) s"
cd /tmp && tar czf $OUT/gzip_gate.tgz gzip_gate
