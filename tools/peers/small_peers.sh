#!/usr/bin/env bash
# Runs three public peer benchmarks beside the gpubench benchmarks that measure the same things.
# Usage, from the repository root on the GPU machine, with build-gpu/gpubench built and the peers'
# binaries in PEERS (default .peers; tools/README.md says how they are built):
#   tools/peers/small_peers.sh OUTDIR
# Writes OUTDIR/<peer>.txt (the peer's stdout; a peer run several times gets one "# cmd" line
# before each run's output) and OUTDIR/gpubench_<peer>.json (+ .log, gpubench's console).
# Per-step wall times go to stderr.
set -u
out=${1:?usage: tools/peers/small_peers.sh OUTDIR}
mkdir -p "$out"
P=$(cd "${PEERS:-.peers}" && pwd) || exit 2
GB=${GPUBENCH:-build-gpu/gpubench}
[ -x "$GB" ] || { echo "small_peers.sh: $GB not found (run from the repository root)" >&2; exit 2; }
fail=0

peer() { # peer NAME CMD... : appends "# CMD" and CMD's stdout to OUTDIR/NAME.txt
  local name=$1; shift
  echo "# $*" >> "$out/$name.txt"
  local t0=$SECONDS
  timeout 180 "$@" >> "$out/$name.txt" || { echo "small_peers.sh: '$*' exited $?" >&2; fail=1; }
  echo "small_peers.sh: $name: '$*' took $((SECONDS - t0)) s" >&2
}
gpubench() { # gpubench NAME ARGS... -> OUTDIR/gpubench_NAME.json
  local name=$1; shift
  local t0=$SECONDS
  "$GB" "$@" --benchmark_out="$out/gpubench_$name.json" --benchmark_out_format=json \
    > "$out/gpubench_$name.log" 2>&1 || { echo "small_peers.sh: gpubench for $name exited $?" >&2; fail=1; }
  echo "small_peers.sh: gpubench_$name took $((SECONDS - t0)) s" >&2
}

# 1. cudaGraphsPerfScaling: linear chain (width 1, pattern 0) of L empty<<<1,1>>> kernels,
#    L = gpubench's graph_nodes counts; args: outputFmt=5 (header + mean over trials),
#    trials=300, length=L, width=1, pattern=0, stride=1, maxLength=L.
rm -f "$out/cudaGraphsPerfScaling.txt"
for L in 1 16 256 2048; do
  peer cudaGraphsPerfScaling "$P/cudaGraphsPerfScaling" 5 300 "$L" 1 0 1 "$L"
done
gpubench cudaGraphsPerfScaling \
  --benchmark_filter='^launch/graph_nodes/|^launch/graph/roundtrip/params:0/'

# 2. UnifiedMemoryPerf: matrices of 4 KiB..16 MiB (x4), 20 runs each, every phase printed.
rm -f "$out/UnifiedMemoryPerf.txt"
peer UnifiedMemoryPerf "$P/UnifiedMemoryPerf" -print-launch-transfer-results \
  -print-std-deviation -kernel-iterations=20
gpubench UnifiedMemoryPerf --managed-sizes=4K..16M:x4,48M \
  --benchmark_filter='^managed/(HtoD|DtoH)/prefetch/|^managed/HtoD/gpu_touch/sequential/granule:65536/none/'

# 3. gpu-small-kernels (patched: SK_SIZES picks the sizes, SK_US adds us per kernel): the
#    sizes are saxpy's element counts; columns are block sizes 32..1024; stream, then -graph.
rm -f "$out/gpu-small-kernels.txt"
export SK_SIZES=1024,4096,16384,65536,262144,1048576,4194304,16777216 SK_US=1
peer gpu-small-kernels "$P/gpu-small-kernels"
peer gpu-small-kernels "$P/gpu-small-kernels" -graph
unset SK_SIZES SK_US
gpubench gpu-small-kernels --l2=warm \
  --benchmark_filter='^launch/(runtime|graph)/throughput/params:0/|^launch/floor/(runtime|graph)/throughput/|^launch/gpu_gap/(runtime|graph)/|^saxpy/(runtime|graph)/(1024|4096|16384|65536|262144|1048576|4194304|16777216)/'

exit $fail
