#!/usr/bin/env bash
# One H200, one call, from the repository root: GITC=<hash12> bash results/h200/stop_signals/run.sh
# (build with -Werror, the unit and GPU tests, the interrupt tests three times more, gpubench
# sent SIGHUP with and without nohup (hangup_checks.sh), sanitize.sh sent SIGTERM under the real
# compute-sanitizer (sanitize_signal.sh); $OUT/r.tgz comes back)
set -u
R=/tmp/r; mkdir -p $R
H=results/h200/stop_signals
t0=$EPOCHREALTIME
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON -DGPUBENCH_WERROR=ON -DGPUBENCH_GIT_COMMIT=$GITC && cmake --build build-gpu -j16; } > $R/build.txt 2>&1 || { tail -30 $R/build.txt; exit 1; }
echo "build $t0 $EPOCHREALTIME" >> $R/wall.txt
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv,noheader > $R/cards.txt
t0=$EPOCHREALTIME
bash $H/hangup_checks.sh build-gpu/gpubench /tmp/hangup > $R/hangup_checks.txt 2>&1; echo "hangup_checks rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
bash $H/sanitize_signal.sh build-gpu /tmp/sanitize > $R/sanitize_signal.txt 2>&1; echo "sanitize_signal rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
build-gpu/tests/gpubench_gpu_tests --gtest_filter='Interrupt.*' --gtest_repeat=3 > $R/interrupt_repeat.txt 2>&1; echo "interrupt_repeat rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
t0=$EPOCHREALTIME
ctest --test-dir build-gpu -E '^(scripts|cluster\.)' --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? $t0 $EPOCHREALTIME" >> $R/wall.txt
cat $R/wall.txt $R/hangup_checks.txt $R/sanitize_signal.txt; grep -E '^\[  (PASSED|FAILED)|FAILED' $R/interrupt_repeat.txt; tail -4 $R/ctest.txt
tar czf $OUT/r.tgz -C /tmp r
