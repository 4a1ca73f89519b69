"""gpubench-tools fleet on 1,024 GPUs of gpubench's full default suite (GPUBENCH_FLEET_GPUS, a
multiple of 4, sets another count): in under 512 KiB of memory a GPU and in time linear in the
GPUs (one, a quarter and all of them in turn: each GPU past the first costs the same CPU time
in the whole fleet as in its quarter).

Each GPU is one of the 21 real separate processes of the default suite on an H100
(results/h100/processes/, 657 benchmarks each), under a context of its own (host, UUID, index,
PCI bus id). Each file is written as two gzip members, a GPU's context and its process's
benchmarks compressed once, which a reader reads as one stream: 1,024 GPUs take about 75 MB on
disk rather than 500 MB. The command runs in a fresh interpreter that reports its own CPU time and
peak resident memory (ru_maxrss), import and start-up included.

  GPUBENCH_FLEET_GPUS=4096 python3 -m pytest -q -s -m slow scripts/tests/test_fleet_scale.py

made results/fleet/scale_4096.txt.
"""

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCRIPTS

PROCESSES = SCRIPTS.parent / "results" / "h100" / "processes"
GPUS = int(os.environ.get("GPUBENCH_FLEET_GPUS", "1024"))
MEMORY_BYTES_PER_GPU = 512 << 10
# The child: the fleet command, its report to /dev/null, then its CPU seconds and peak resident
# memory (ru_maxrss, KiB on Linux) as JSON on stderr.
MEASURED = """
import json, os, resource, sys
from gpubench_tools.cli.fleet import main
with open(os.devnull, "w") as sys.stdout:
    code = main(sys.argv[1:])
used = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"code": code, "cpu_s": used.ru_utime + used.ru_stime,
                  "peak_bytes": used.ru_maxrss * 1024}), file=sys.stderr)
"""


def generate(directory: Path, first: int, count: int) -> None:
    """GPUs first to first + count - 1, eight per host, GPU i the (i mod 21)th real process."""
    docs = [json.loads(gzip.decompress((PROCESSES / f"process_{n}.json.gz").read_bytes()))
            for n in range(1, 22)]
    bodies = [gzip.compress(f', "benchmarks": {json.dumps(doc["benchmarks"])}}}'.encode(), 1)
              for doc in docs]
    directory.mkdir()
    for gpu in range(first, first + count):
        process = gpu % len(docs)
        host, uuid = f"node{gpu // 8:04d}", f"GPU-{gpu:08x}-5ca1-4000-8000-000000000000"
        context = dict(docs[process]["context"], host_name=host, gpu_uuid=uuid,
                       gpu_ordinal=gpu % 8, gpu_pci_bus_id=f"00000000:{gpu % 8 + 24:02X}:00.0")
        head = gzip.compress(f'{{"context": {json.dumps(context)}'.encode(), 1)
        (directory / f"{host}_{uuid}.json.gz").write_bytes(head + bodies[process])


def measured(*directories: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", MEASURED, *map(str, directories)],
                          cwd=SCRIPTS, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stderr.strip().splitlines()[-1])
    assert found["code"] == 0, found
    return found


# About 2 minutes of CPU on one core at 1,024 GPUs: ctest runs it apart from the rest
# (scripts_slow); -m "not slow" leaves it out.
@pytest.mark.slow
def test_a_fleet_of_the_full_suite_in_bounded_memory_and_linear_time(tmp_path: Path) -> None:
    quarter = GPUS // 4
    generate(tmp_path / "one", GPUS, 1)
    generate(tmp_path / "first", 0, quarter)
    generate(tmp_path / "rest", quarter, GPUS - quarter)
    sizes = {1: [tmp_path / "one"], quarter: [tmp_path / "first"],
             GPUS: [tmp_path / "first", tmp_path / "rest"]}
    # Each size in turn, three times, each one's least costly run kept: a shared CI machine's
    # speed moves between minutes (a quarter fleet read 13.0 s of CPU twice in a row, then the
    # whole 33.5 s, where runs here read 8.3-9.5 s and 29-32 s), and taking turns puts every size
    # in the slow minutes and the fast ones alike.
    rounds = [{gpus: measured(*directories) for gpus, directories in sizes.items()}
              for _ in range(3)]
    best = {gpus: min((run[gpus] for run in rounds), key=lambda found: found["cpu_s"])
            for gpus in sizes}
    print(", ".join(f"{gpus:,} GPUs: {found['cpu_s']:.1f} s CPU, "
                    f"{found['peak_bytes'] / 1e9:.2f} GB" for gpus, found in best.items()))
    peak = max(run[GPUS]["peak_bytes"] for run in rounds)
    assert peak < MEMORY_BYTES_PER_GPU * GPUS, [run[GPUS] for run in rounds]
    # Linear: each GPU past the first costs as much in the whole fleet as in its quarter, within
    # a quarter (0.96x here, 1.10x with a build beside it). The one-GPU run holds the start-up
    # (the imports, 0.3 s), which is no GPU's cost.
    per_gpu = {gpus: (best[gpus]["cpu_s"] - best[1]["cpu_s"]) / (gpus - 1)
               for gpus in (quarter, GPUS)}
    print(f"a GPU past the first costs {per_gpu[GPUS] / per_gpu[quarter]:.3f}x in the whole fleet")
    assert 0.8 <= per_gpu[GPUS] / per_gpu[quarter] <= 1.25, best
