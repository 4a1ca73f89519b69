#!/bin/bash
# One device call: build, then the copy and energy GPU tests.
set -o pipefail
cd "$(dirname "$0")/../../.."
o=$OUT/all_devices_test; mkdir -p $o
nvidia-smi -L > $o/gpus.txt 2>&1
(cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu) > $o/build.txt 2>&1 || { tail -30 $o/build.txt; exit 1; }
build-gpu/gpubench --version > $o/version.txt 2>&1
build-gpu/tests/gpubench_gpu_tests --gtest_filter='CopyPaths.*:Energy.*' > $o/tests.txt 2>&1; echo "rc $?" >> $o/tests.txt
tail -12 $o/tests.txt
