"""Run-to-run stability of a gpubench result with repetitions.

For every benchmark with two or more repetitions: the coefficient of variation (sample standard
deviation over mean) of its figure (as its family's facts say), against the limit gpubench holds
its large GPU-timed cases to: under 1% where the case's argument is 64 MiB or more (bytes) or
2^24 elements or more. A host-paced figure (Benchmark.host_paced: timed on the host clock, or
through pageable memory) has no limit: it moves with the host's speed, which on a shared machine
varies by 10% and more. In files written before host_timed every other such figure is held to
the limit. A figure whose mean is negative (a family's own counter may be) has a negative CV,
judged by its size; one whose mean is 0 has no relative spread, so no CV and no verdict.
Exit 1 if any benchmark is over its limit, 2 on bad input or bad usage.
"""

import math
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.models.stability import SCRIPT, clock, limit_pct, verdict
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.safe_text import markdown_text
from gpubench_tools.renderers.text_table import render
from gpubench_tools.writing.outputs import write_stdout


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path,
                        help="gpubench JSON written with --benchmark_repetitions >= 2 "
                             "(with or without aggregates only)")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    args = parser.parse_args(argv)
    try:
        result = load(args.result)
    except GpubenchJsonError as error:
        return script_error(SCRIPT, error)
    rows, over = [], 0
    families = result.families
    for bench in result.benchmarks.values():
        spread = bench.cv_pct()
        if spread is None:
            continue
        cv, repetitions = spread
        limit = limit_pct(bench, families)
        judged = verdict(cv, limit)
        over += judged == "OVER"
        rows.append([bench.name, clock(bench), str(repetitions),
                     "-" if math.isnan(cv) else f"{cv:.3f}",
                     "-" if limit is None else f"{limit:g}", judged])
    if not rows:
        return script_error(SCRIPT, f"{result.path}: no benchmark has two or more repetitions "
                                    "(run with --benchmark_repetitions=10)")
    # The GPU's name and driver open a line: in markdown, they render as text.
    gpu = markdown_text(result.describe()) if args.markdown else result.describe()
    try:
        write_stdout(
            f"{gpu}: coefficient of variation of each benchmark's primary figure\n"
            + render(["benchmark", "clock", "repetitions", "CV %", "limit %", "verdict"], rows,
                     markdown=args.markdown)
            + f"\n{over} of {len(rows)} benchmarks over their limit\n")
    except OSError as error:
        return script_error(SCRIPT, error)
    return 1 if over else 0
