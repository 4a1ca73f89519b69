#!/usr/bin/env bash
# One H200, one call: build at HEAD, unit + GPU tests, the default suite, a run with
# repetitions, then every reading script over that fresh output (each must read it: exit 0/1).
# usage on the device machine, from the repository root ($OUT: the folder that comes back):
#   GITC=<hash12> bash results/h200/loader_bounds/run.sh
set -u
R=$OUT/r; mkdir -p $R
B=build-gpu
S=scripts
t0=$EPOCHREALTIME
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON -DGPUBENCH_GIT_COMMIT=$GITC && cmake --build $B -j16; } > $R/build.txt 2>&1 || { tail -30 $R/build.txt; exit 1; }
echo "build $t0 $EPOCHREALTIME" >> $R/wall.txt
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader > $R/cards.txt
t0=$EPOCHREALTIME
$B/gpubench --benchmark_out=$R/suite.json > $R/suite.txt 2>&1; echo "suite rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
timeout 150 $B/gpubench --benchmark_filter='^(launch/(runtime|driver)/submit|copy/HtoD/pinned/async|saxpy/)' --benchmark_repetitions=3 --benchmark_out=$R/reps.json > $R/reps.txt 2>&1; echo "reps rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
# every reading script over the fresh output; rc 0 (or 1: a verdict) and no traceback
W=/tmp/w; mkdir -p $W/fleet
zcat results/h200/hardening/suite.json.gz > $W/earlier.json
cp $R/suite.json $W/fleet/a.json
run() { local name=$1; shift; "$@" > $W/$name.out 2> $W/$name.err; local rc=$?
  local tb=$(grep -c Traceback $W/$name.err); echo "$name rc=$rc traceback=$tb stdout_lines=$(wc -l < $W/$name.out) stderr=$(head -c 300 $W/$name.err | tr '\n' ' ')" >> $R/scripts.txt; }
run compare_earlier python3 $S/compare.py $W/earlier.json $R/suite.json
run compare_reps python3 $S/compare.py $R/suite.json $R/reps.json
run stability python3 $S/stability.py $R/reps.json
run report python3 $S/report.py $W/earlier.json $R/suite.json -o $W/report
run html_report python3 $S/html_report.py $W/earlier.json $R/suite.json -o $W/report.html
run export python3 $S/export.py $R/reps.json --format bencher -o $W/bencher.json
run merge_runs python3 $S/merge_runs.py $R/suite.json $W/earlier.json -o $W/merged.json
run plot python3 $S/plot.py $R/suite.json -o $W/plots
run make_limits python3 $S/make_limits.py $R/suite.json -o $W/limits.json
run fleet python3 $S/fleet.py $W/fleet --no-limits
run launch_ratios python3 $S/launch_ratios.py $R/suite.json --sentences
cat $R/wall.txt $R/scripts.txt
gzip -9 $R/suite.json $R/reps.json
t0=$EPOCHREALTIME
ctest --test-dir $B -E '^(scripts|cluster\.)' --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
tail -3 $R/ctest.txt; tail -1 $R/wall.txt
