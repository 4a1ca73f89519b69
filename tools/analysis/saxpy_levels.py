#!/usr/bin/env python3
"""Small flushed saxpy in each process of the runs in results/h200/speed/saxpy_host_setup/ and of
the CI baseline (results/h200/ci_baseline.json): GPU-timed µs per launch of saxpy/driver at
1024-65536 elements and vec4 at 4096. Level A has 4096 below 16384, level B the other way round.
Files are named by card: <card>_saxpy_<host setup>.json.gz, the host setup `main` (inputs
zeroed, then filled; result pinned), `pageable` (inputs and result pageable), `pinned_result`
(inputs pageable, result pinned), `pinned` (inputs and result pinned).
tools/analysis/saxpy_levels.py"""

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import OneLineArgumentParser, script_output  # noqa: E402

SCRIPT = "saxpy_levels.py"

NAMES = ["saxpy/driver/1024", "saxpy/driver/4096", "saxpy/driver/16384", "saxpy/driver/65536",
         "saxpy/vec4/4096"]

H200 = ROOT / "results" / "h200"
HOST_SETUP = H200 / "speed" / "saxpy_host_setup"


def main(argv: list[str]) -> int:
    OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0]).parse_args(argv)
    lines: list[str] = []
    for path in [*sorted(HOST_SETUP.glob("*_saxpy_*.json.gz")), H200 / "ci_baseline.json"]:
        doc = json.load(gzip.open(path) if path.suffix == ".gz" else path.open())
        runs: dict[str, list[float]] = {}
        for b in doc["benchmarks"]:
            name = b["name"].removesuffix("/manual_time")
            if b.get("run_type") == "iteration" and name in NAMES:
                runs.setdefault(name, []).append(b["real_time"])
        lines.append(path.name.removesuffix(".gz").removesuffix(".json"))
        for i in range(len(runs[NAMES[0]])):
            row = [runs[n][i] for n in NAMES]
            level = "A" if row[1] < row[2] else "B"
            lines.append(f"  process {i + 1}: " + " ".join(f"{v:5.2f}" for v in row)
                         + f"  level {level}")
        levels = ["A" if runs[NAMES[1]][i] < runs[NAMES[2]][i] else "B"
                  for i in range(len(runs[NAMES[0]]))]
        lines.append(f"  level B in {levels.count('B')} of {len(levels)} processes")
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
