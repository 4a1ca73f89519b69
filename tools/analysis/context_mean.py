#!/usr/bin/env python3
"""Does the mean over several contexts of a process take out the level each context draws?

Reads the output of tools/probes/context_mean_probe.cu from separate processes (one file each:
per figure a line of its name and each context's µs per operation) and prints, per figure, the
spread between the processes (1.4826 x the median absolute deviation of log(value / its median
over the processes), in %) of the first context alone and of the mean over the first k
contexts, k = 2, 4, ... up to the contexts every process holds, with the median over the
processes of each. A level drawn per context and not per process shrinks with k as 1 / sqrt(k).

  tools/analysis/context_mean.py PROBE_OUTPUT.txt...   (two or more)
"""

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import script_output  # noqa: E402
from probe_text import log_spread, numbered_words, positive_values, read_processes  # noqa: E402

SCRIPT = "context_mean.py"


def read_probe(path: str) -> dict[str, list[float]]:
    """Each figure's per-context values of one process. ValueError names what is wrong."""
    figures: dict[str, list[float]] = {}
    for number, words in numbered_words(path):
        values = positive_values(words[1:])
        if not values:
            raise ValueError(f"{path}: line {number}: not a figure's name and positive values")
        figures[words[0]] = values
    if not figures:
        raise ValueError(f"{path}: holds no figure")
    return figures


def table(processes: list[dict[str, list[float]]]) -> list[str]:
    lines = [f"{len(processes)} processes; spread between them, in % (median µs):"]
    names = [name for name in processes[0] if all(name in p for p in processes)]
    for name in names:
        contexts = min(len(p[name]) for p in processes)
        counts = [1]
        while counts[-1] * 2 <= contexts:
            counts.append(counts[-1] * 2)
        cells = []
        for k in counts:
            means = [statistics.fmean(p[name][:k]) for p in processes]
            label = "first context" if k == 1 else f"mean of {k}"
            cells.append(f"{label} {log_spread(means):.2f} ({statistics.median(means):.4g})")
        lines.append(f"  {name}: " + ", ".join(cells))
    return lines


def main(argv: list[str]) -> int:
    processes = read_processes(SCRIPT, __doc__.splitlines()[0], argv, read_probe)
    if isinstance(processes, int):
        return processes
    return script_output(SCRIPT, "\n".join(table([output for _, output in processes])) + "\n")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
