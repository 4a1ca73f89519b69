#!/usr/bin/env bash
# Builds warm_up_probe.cu and gpubench, then runs, in processes of their own and interleaved:
# the probe's two operations under its three warm-up regimes, and gpubench's own
# launch/driver/submit/params:0 and launch/module/library_load (its 10 ms rule), 24 rounds.
# Run from the repository root on a GPU machine: bash tools/probes/warm_up_rounds.sh OUTDIR
set -euo pipefail
out=$1
mkdir -p "$out"
here=tools/probes
nvcc -std=c++17 -O2 -arch=sm_90 -o /tmp/warm_up_probe "$here/warm_up_probe.cu" -lcuda
nvcc -fatbin -arch=sm_90 -o /tmp/kernels.fatbin "$here/warm_up_probe.cu"
if [[ ! -x build-gpu/gpubench ]]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_NATIVE=ON \
    -DGPUBENCH_GIT_COMMIT="${GITC:-unknown}" > "$out/build.txt" 2>&1
  cmake --build build-gpu -j"$(nproc)" >> "$out/build.txt" 2>&1
fi
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader > "$out/probe.txt"
for round in $(seq 24); do
  for regime in one_batch 10ms long; do
    for what in submit library_load; do
      printf 'round %d  ' "$round" >> "$out/probe.txt"
      /tmp/warm_up_probe "$what" "$regime" /tmp/kernels.fatbin >> "$out/probe.txt"
    done
  done
  build-gpu/gpubench --benchmark_filter='^launch/(driver/submit/params:0|module/library_load)/' \
    --benchmark_out="$out/gpubench_round$round.json" > /dev/null
done
# The median over the processes of each operation and regime, and gpubench's; and the median over
# the processes of each one's first 10 timed batches against all its timed batches, which takes
# out the level each process lands on.
python3 - "$out" > "$out/summary.txt" <<'PY'
import json, pathlib, re, statistics, sys
out = pathlib.Path(sys.argv[1])
rows = {}
for line in (out / "probe.txt").read_text().splitlines()[1:]:
    m = re.match(r"round \d+\s+(\S+)\s+(\S+).*first 10\s+([\d.]+)\s+all\s+([\d.]+)", line)
    rows.setdefault((m[1], m[2] + " first 10"), []).append(float(m[3]))
    rows.setdefault((m[1], m[2]), []).append(float(m[4]))
    rows.setdefault((m[1], m[2] + " first 10 / all"), []).append(float(m[3]) / float(m[4]))
for r in sorted(out.glob("gpubench_round*.json")):
    for b in json.loads(r.read_text())["benchmarks"]:
        what = "submit" if "submit" in b["name"] else "library_load"
        rows.setdefault((what, "gpubench"), []).append(b["us_per_launch"])
print(f"{'operation':13} {'warm-up':25} {'processes':>9} {'median':>10} {'min':>8} {'max':>8}")
for (what, regime), v in sorted(rows.items()):
    print(f"{what:13} {regime:25} {len(v):9d} {statistics.median(v):10.3f} "
          f"{min(v):8.3f} {max(v):8.3f}")
PY
cat "$out/summary.txt"
