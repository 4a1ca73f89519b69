#!/usr/bin/env bash
# A second call, at the commit that bounds gpubench's error lines: the native build, the bad-input
# tests on the GPU machine (Google Benchmark 1.8.3), and one line of a 120 000-character --sizes.
# From the repository root: GITC=<hash12> bash results/h200/head_check/long_lines.sh
set -u
R=/tmp/r; mkdir -p $R
{ cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON -DGPUBENCH_WERROR=ON -DGPUBENCH_GIT_COMMIT=$GITC && cmake --build build-gpu -j16; } > $R/build.txt 2>&1 || { tail -30 $R/build.txt; exit 1; }
ctest --test-dir build-gpu -R '^(HostileInput|BadInput|Cli|ParseOptions)\.' --output-on-failure > $R/long_lines.txt 2>&1
echo "ctest rc=$?" >> $R/long_lines.txt
build-gpu/gpubench --sizes="$(python3 -c "print('4K,' * 40000 + 'x')")" 2> $R/line.txt
echo "gpubench rc=$?, stderr $(wc -l < $R/line.txt) line(s) of $(wc -c < $R/line.txt) bytes:" >> $R/long_lines.txt
cat $R/line.txt >> $R/long_lines.txt
tail -5 $R/long_lines.txt | cut -c1-300
tar czf $OUT/r.tgz -C /tmp r
