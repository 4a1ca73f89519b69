#!/bin/bash
# One device call: build, every GPU test, the energy tests' own output.
set -o pipefail
cd "$(dirname "$0")/../../.."
o=$OUT/energy_tests; mkdir -p $o
nvidia-smi -L > $o/gpus.txt 2>&1; cat $o/gpus.txt
(cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu) > $o/build.txt 2>&1 || { tail -30 $o/build.txt; exit 1; }
build-gpu/gpubench --version > $o/version.txt 2>&1
(cd build-gpu && ctest -L gpu --output-on-failure > $o/ctest_gpu.txt 2>&1; echo "ctest rc $?" >> $o/ctest_gpu.txt)
tail -6 $o/ctest_gpu.txt
build-gpu/tests/gpubench_gpu_tests --gtest_filter='Energy.*' > $o/energy_tests.txt 2>&1
tail -8 $o/energy_tests.txt
