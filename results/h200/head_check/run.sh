#!/usr/bin/env bash
# One H200, one call, from the repository root: GITC=<hash12> bash results/h200/head_check/run.sh
# (build with -Werror, the default suite, the unit and GPU tests, compare.py against
# loader_bounds/suite.json.gz, bad input on the GPU (cli_checks.sh), --benchmark_out's file
# (output_checks.sh), gpu_session.sh stopped by SIGTERM (session_signal.sh) and the bare-loop
# test ten times more; $OUT/r.tgz comes back)
set -u
R=/tmp/r; mkdir -p $R
H=results/h200/head_check
t0=$EPOCHREALTIME
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON -DGPUBENCH_WERROR=ON -DGPUBENCH_GIT_COMMIT=$GITC && cmake --build build-gpu -j16; } > $R/build.txt 2>&1 || { tail -30 $R/build.txt; exit 1; }
echo "build $t0 $EPOCHREALTIME" >> $R/wall.txt
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader > $R/cards.txt
t0=$EPOCHREALTIME
build-gpu/gpubench --benchmark_out=$R/suite.json > $R/suite.txt 2>&1; echo "suite rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
bash $H/cli_checks.sh build-gpu/gpubench > $R/cli_checks.txt 2>&1; echo "cli_checks rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
bash $H/output_checks.sh build-gpu/gpubench > $R/output_checks.txt 2>&1; echo "output_checks rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
bash $H/session_signal.sh build-gpu /tmp/session > $R/session_signal.txt 2>&1; echo "session_signal rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
ctest --test-dir build-gpu -E '^(scripts|cluster\.)' --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
build-gpu/tests/gpubench_gpu_tests --gtest_filter=LaunchHarness.SubmitAgreesWithABareLoop --gtest_repeat=10 > $R/bare_loop_repeat.txt 2>&1; echo "bare_loop_repeat rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
zcat results/h200/loader_bounds/suite.json.gz > /tmp/earlier.json
python3 scripts/compare.py /tmp/earlier.json $R/suite.json > $R/compare_loader_bounds.txt 2>&1; echo "compare rc=$?" >> $R/wall.txt
gzip $R/suite.json
cat $R/wall.txt $R/session_signal.txt; grep -c PASS $R/cli_checks.txt $R/output_checks.txt; grep FAIL $R/cli_checks.txt $R/output_checks.txt; tail -4 $R/ctest.txt; grep -c '^\[  PASSED' $R/bare_loop_repeat.txt; grep 'median round' $R/bare_loop_repeat.txt; grep -A8 "Summary per family" $R/compare_loader_bounds.txt
tar czf $OUT/r.tgz -C /tmp r
