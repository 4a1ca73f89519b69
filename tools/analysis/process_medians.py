#!/usr/bin/env python3
"""Per benchmark and figure, the median over separate processes and their range, as a markdown
table: the interval a results README gives beside a figure.

  tools/analysis/process_medians.py RUN.json... [--filter REGEX] [--counter NAME]...

Each file is one process's `--benchmark_out`; a figure its family declares is shown in the
declared unit. With five processes, the range of their figures
holds the median of the processes' distribution with 94% confidence (1 - 2 / 2^5, the order
statistics' interval), whatever that distribution is. A benchmark that failed or was skipped in
any process is listed as such, not summarised over the rest.
"""

import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("process_medians.py", "numpy", "scipy")

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)
from gpubench_tools.reading.errors import GpubenchJsonError  # noqa: E402
from gpubench_tools.reading.result_file import load  # noqa: E402

SCRIPT = "process_medians.py"


def shown(value: float) -> str:
    """Four significant digits, without an exponent."""
    return f"{value:.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


def main() -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--filter", default="", help="benchmarks whose name this matches")
    parser.add_argument("--counter", action="append", default=[],
                        help="a figure's counter (repeatable); default: real_time")
    args = parser.parse_args()
    counters = args.counter or ["real_time"]
    lines: list[str] = []
    out = lines.append
    try:
        pattern = re.compile(args.filter)
    except re.error as error:
        return script_error(SCRIPT, f"--filter {args.filter!r}: {error}")
    try:
        runs = [load(path) for path in args.runs]
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    out(f"| benchmark | figure | median of {len(runs)} processes | range |")
    out("| --- | --- | ---: | --- |")
    for name in runs[0].benchmarks:
        if not pattern.search(name):
            continue
        found = [run.benchmarks.get(name) for run in runs]
        if any(b is None for b in found):
            out(f"| `{name}` | - | not measured in every process | |")
            continue
        declared = {m.key: m for m in (found[0].facts.figures if found[0].facts else ())}
        for counter in counters:
            values = [b.values.get(counter) for b in found]
            if any(v is None for v in values):
                continue
            figure = counter
            if counter in declared:  # in the unit its family declares
                values = [v * declared[counter].scale for v in values]
                figure = f"{counter} ({declared[counter].unit})"
            out(f"| `{name}` | {figure} | {shown(statistics.median(values))} | "
                f"{shown(min(values))} .. {shown(max(values))} |")
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
