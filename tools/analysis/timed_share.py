#!/usr/bin/env python3
"""How much of a gpubench process its timed loops take: per family and in all, the seconds of
timed batches in each process (a benchmark's median batch times its batches: its real time per
operation times its timed operations, `ops`), the median over the processes and their range.
What a process spends beside them (start-up, warm-up, buffers set up and verified) is what a
shorter process could save, so that more processes fit the gate's minutes.

  tools/analysis/timed_share.py PROCESS.json...   (each one process's --benchmark_out; may be
                                                   compressed)
"""

import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("timed_share.py", "numpy", "scipy")

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402
from gpubench_tools.reading.result_file import load_with_document  # noqa: E402

SCRIPT = "timed_share.py"
SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def timed_by_benchmark(entries: list[dict]) -> dict[str, float]:
    """By name, the seconds of the timed batches of one process's benchmarks that ran."""
    found = {}
    for entry in entries:
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
            continue
        ops = entry.get("ops")
        if isinstance(ops, (int, float)) and ops > 0:
            found[entry["name"]] = entry["real_time"] * SECONDS[entry["time_unit"]] * ops
    return found


def timed_seconds(entries: list[dict]) -> dict[str, float]:
    """Per family, the seconds of the timed batches of one process's benchmarks that ran."""
    found: dict[str, float] = defaultdict(float)
    for name, seconds in timed_by_benchmark(entries).items():
        found[name.split("/")[0]] += seconds
    return found


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("processes", nargs="+", metavar="PROCESS.json")
    paths = parser.parse_args(argv).processes
    per_process = []
    for path in paths:
        try:
            per_process.append(timed_seconds(load_with_document(path)[1]["benchmarks"]))
        except (GpubenchJsonError, OSError) as error:
            return script_error(SCRIPT, error)
    families = sorted({family for seconds in per_process for family in seconds},
                      key=lambda family: -statistics.median(s.get(family, 0.0)
                                                            for s in per_process))
    rows = [("all", [sum(seconds.values()) for seconds in per_process])]
    rows += [(family, [seconds.get(family, 0.0) for seconds in per_process])
             for family in families]
    lines = [f"{len(paths)} processes; seconds of timed batches per process, the median "
             "(the least and the most):"]
    lines += [f"  {name:10s} {statistics.median(values):7.2f} s ({min(values):.2f}-"
              f"{max(values):.2f})" for name, values in rows]
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
