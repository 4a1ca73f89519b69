#!/usr/bin/env python3
"""Which host reference takes the host's drift out of a launch's cost between processes?

Reads separate processes of gpubench's launch/paired/ (each file one process) and prints, per
payload, for each launch path: the robust spread between the processes (1.4826 x the median
absolute deviation of log(figure / its median over the processes)) of the path's own cost
(`<path>_us`), and of its cost over each host reference timed in the same rounds
(`<path>_over_host_spin`, `_over_host_syscall`, `_over_host_memory`); the last line per
payload gives each reference's own time's spread. A reference that the launch's drift
follows leaves a smaller spread over it than the cost alone has. The API paths' geometric mean
(the six paths but the graph) follows, and over host_syscall it is launch/paired's figure,
syscalls_per_launch: its median over the processes and how far the farthest lie from it.

Usage: python3 tools/analysis/duet_reference.py PROCESS.json...   (each may be compressed)
"""

import sys
from collections import defaultdict
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("duet_reference.py", "numpy", "scipy")

import numpy as np  # noqa: E402

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402
from gpubench_tools.reading.result_file import load_with_document  # noqa: E402
from probe_text import log_spread  # noqa: E402

SCRIPT = "duet_reference.py"

PATHS = ("runtime", "runtime_launchkernel", "runtime_launchkernelex", "driver", "driver_extra",
         "driver_launchkernelex", "graph")
API_PATHS = PATHS[:-1]  # every path but the graph
REFERENCES = ("host_spin", "host_syscall", "host_memory")


# launch/paired's batch of launches and its syscall reference's getppid calls
# (bench/launch/paired_launch.cpp, host_reference.hpp): a path's cost over host_syscall times
# SYSCALLS / LAUNCHES_PER_BATCH is its launch in getppid calls.
LAUNCHES_PER_BATCH, SYSCALLS = 32, 64


def geometric_mean(columns: list[list[float]]) -> np.ndarray:
    """Per process, the geometric mean of its value in each column."""
    return np.exp(np.mean(np.log(np.array(columns)), axis=0))


def held_by_all(figures: dict[str, list[float]], keys: list[str], processes: int) -> bool:
    """Whether every process gave each of `keys`."""
    return all(len(figures.get(k, ())) == processes for k in keys)


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("processes", nargs="+", metavar="PROCESS.json")
    paths = parser.parse_args(argv).processes
    if len(paths) < 3:
        return script_error(SCRIPT, "give three or more process files")
    lines: list[str] = []
    out = lines.append
    counters: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        try:
            entries = load_with_document(path)[1]["benchmarks"]
        except (GpubenchJsonError, OSError) as error:
            return script_error(SCRIPT, error)
        for entry in entries:
            if (not entry["name"].startswith("launch/paired/")
                    or entry.get("run_type") == "aggregate"):
                continue
            for key, value in entry.items():
                if isinstance(value, (int, float)) and value > 0:
                    counters[entry.get("run_name", entry["name"])][key].append(float(value))
    columns = ["alone", *(f"/{r.removeprefix('host_')}" for r in REFERENCES)]
    suffixes = ("_us", *(f"_over_{r}" for r in REFERENCES))
    out(f"{len(paths)} processes; spread between them, in %:")
    for name, figures in counters.items():
        out(f"\n{name}\n  {'path':24s}" + "".join(f"{c:>10s}" for c in columns))
        for path in PATHS:
            keys = [f"{path}{suffix}" for suffix in suffixes]
            if held_by_all(figures, keys, len(paths)):
                out(f"  {path:24s}" + "".join(f"{log_spread(figures[k]):10.2f}" for k in keys))
        if held_by_all(figures, [f"{p}{suffix}" for p in API_PATHS for suffix in suffixes],
                       len(paths)):
            means = [geometric_mean([figures[f"{p}{suffix}"] for p in API_PATHS])
                     for suffix in suffixes]
            out(f"  {'API paths (geomean)':24s}"
                + "".join(f"{log_spread(list(m)):10.2f}" for m in means))
            calls = means[1 + REFERENCES.index("host_syscall")] * SYSCALLS / LAUNCHES_PER_BATCH
            middle = float(np.median(calls))
            out(f"  syscalls_per_launch: median {middle:.2f} getppid calls, the processes "
                f"{calls.min() / middle:.3f}-{calls.max() / middle:.3f} times it")
        own = [f"{r}_us" for r in REFERENCES]
        if held_by_all(figures, own, len(paths)):
            out(f"  {'(the reference itself)':24s}{'':10s}"
                + "".join(f"{log_spread(figures[k]):10.2f}" for k in own))
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
