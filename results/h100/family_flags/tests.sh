#!/bin/bash
# Build, every GPU test, gpubench's unit tests and --version.
set -u
export PATH=$PATH:/usr/local/cuda/bin
O=$OUT
start=$(date +%s)
cmake -S . -B build -G Ninja -DGPUBENCH_WERROR=ON > $O/cfg.txt 2>&1 && cmake --build build > $O/build.txt 2>&1; echo "build rc=$? $(( $(date +%s) - start )) s"
tail -2 $O/build.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv
# CTEST_R runs the tests it names in place of every GPU test (where device time is short).
selection=(-L gpu); [ -n "${CTEST_R:-}" ] && selection=(-R "$CTEST_R")
ctest --test-dir build "${selection[@]}" --output-on-failure > $O/ctest_gpu.txt 2>&1; tail -3 $O/ctest_gpu.txt
grep -hE "\*\*\*Failed|\*\*\*Timeout|Exception" $O/ctest_gpu.txt | head -20
echo "t=$(( $(date +%s) - start )) s"
build/tests/gpubench_unit_tests > $O/unit_tests.txt 2>&1; echo "unit tests rc=$?"; tail -3 $O/unit_tests.txt
build/gpubench --version > $O/version.txt 2>&1; echo "version rc=$?"; cat $O/version.txt
echo "t=$(( $(date +%s) - start )) s"
