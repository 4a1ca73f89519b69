#!/usr/bin/env bash
# gpubench sent SIGHUP mid-run, as a closed terminal or ssh session sends it: exit 129, one line,
# the JSON of what it completed marked interrupted. Under nohup the same SIGHUP changes nothing:
# exit 0, every benchmark, run_status complete. Usage, from the repository root:
# tools/gpu_checks/hangup_checks.sh <gpubench> <output dir>
set -u
gpubench=$1 out=$2
mkdir -p "$out"
# 75 copy benchmarks of at least 0.1 s each: a run of more than 7.5 s.
args=(--benchmark_filter=^copy/ "--sizes=4K,64K,1M" --benchmark_min_time=0.1)

# check NAME [LAUNCHER...]: gpubench started (by LAUNCHER), sent SIGHUP once its first
# benchmark is in the JSON; prints its exit status, run_status, count and last stderr line.
check() {
  local name=$1
  shift
  "$@" "$gpubench" "${args[@]}" --benchmark_out="$out/$name.json" \
    > "$out/$name.out" 2> "$out/$name.err" &
  local pid=$! waited=0
  until grep -qs '"run_name"' "$out/$name.json" || ((waited++ > 600)); do sleep 0.1; done
  kill -HUP "$pid"
  wait "$pid"
  local rc=$?
  local json
  json=$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); c = d['context']
print(c['run_status'], c.get('interrupted', '-'), len(d['benchmarks']))" "$out/$name.json" 2>&1)
  echo "$name: exit $rc; run_status, interrupted, benchmarks: $json; last stderr line: $(tail -n 1 "$out/$name.err")"
}

check hangup
check nohup nohup
