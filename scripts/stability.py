#!/usr/bin/env python3
"""Run-to-run stability of a gpubench result with repetitions.

For every benchmark with two or more repetitions: the coefficient of variation (sample standard
deviation over mean) of its primary figure (GB/s for copies and saxpy, µs per launch for
launches), against the limits gpubench holds itself to: copies of 64 MiB and more and saxpy at
N >= 2^24 under 1%, every launch `submit` under 3%. Exit 1 if any benchmark is over its limit,
2 on bad input.
"""

import argparse
import sys

import numpy as np

from gpubench_json import Benchmark, GpubenchJsonError, load
from text_table import render

COPY_MIN_BYTES = 64 << 20
SAXPY_MIN_N = 1 << 24


def limit_pct(name: str) -> float | None:
    """The CV limit for a benchmark, in percent, or None where gpubench sets none."""
    parts = name.split("/")
    size = parts[-1]
    if parts[0] == "copy" and size.isdigit() and int(size) >= COPY_MIN_BYTES:
        return 1.0
    if parts[0] == "saxpy" and size.isdigit() and int(size) >= SAXPY_MIN_N:
        return 1.0
    if parts[0] == "launch" and len(parts) > 2 and parts[2] == "submit":
        return 3.0
    return None


def cv_pct(bench: Benchmark) -> tuple[float, int] | None:
    """CV in percent of the primary figure and the repetitions behind it: from the repetitions
    where the file has them, else from Google Benchmark's cv aggregate (aggregates only)."""
    values = bench.repetition_values()
    if values.size >= 2 and np.mean(values) != 0:
        return float(100 * np.std(values, ddof=1) / np.mean(values)), int(values.size)
    if bench.cv is not None and bench.cv_repetitions >= 2 and bench.metric.key in bench.cv:
        return 100 * bench.cv[bench.metric.key], bench.cv_repetitions
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="gpubench JSON written with --benchmark_repetitions >= 2 "
                                       "(with or without aggregates only)")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    args = parser.parse_args(argv)
    try:
        result = load(args.result)
    except GpubenchJsonError as error:
        print(f"stability.py: {error}", file=sys.stderr)
        return 2
    rows, over = [], 0
    for bench in result.benchmarks.values():
        spread = cv_pct(bench)
        if spread is None:
            continue
        cv, repetitions = spread
        limit = limit_pct(bench.name)
        verdict = "-" if limit is None else ("ok" if cv < limit else "OVER")
        over += verdict == "OVER"
        rows.append([bench.name, str(repetitions), f"{cv:.3f}",
                     "-" if limit is None else f"{limit:g}", verdict])
    if not rows:
        print(f"stability.py: {args.result}: no benchmark has two or more repetitions "
              "(run with --benchmark_repetitions=10)", file=sys.stderr)
        return 2
    print(f"{result.describe()}: coefficient of variation of each benchmark's primary figure")
    print(render(["benchmark", "repetitions", "CV %", "limit %", "verdict"], rows,
                 markdown=args.markdown))
    print(f"{over} of {len(rows)} benchmarks over their limit")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
