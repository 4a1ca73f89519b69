#!/bin/bash
# The gate of today's scripts against the baseline gate.sh recorded (committed beside this
# script): the flags it records with, and the context differences its comparison lists.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > /dev/null 2>&1 && cmake --build build --target gpubench > $O/gate_again_build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv
base=$(mktemp); xz -dc results/h100/family_flags/baseline.json.xz > $base
scripts/recorded_flags.py $base > $O/gate_again_recorded_flags.txt
t0=$(date +%s)
GPUBENCH_RUNS=5 scripts/ci_gate.sh build/gpubench $base $O/gate_again.json > $O/gate_again_stdout.txt 2> $O/gate_again_stderr.txt; echo "gate exit $?" | tee -a $O/gate_again_stdout.txt
echo "gate (5 runs) $(( $(date +%s) - t0 )) s" | tee $O/gate_again_wall.txt
cat $O/gate_again_recorded_flags.txt; grep "ci_gate.sh" $O/gate_again_stderr.txt
sed -n '/^Context differences/,/^Summary per family/p' $O/gate_again_stdout.txt | cut -c1-60
head -6 $O/gate_again_stdout.txt
rm -f $base
xz -9e $O/gate_again.json
