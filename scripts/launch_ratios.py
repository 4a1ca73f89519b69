#!/usr/bin/env python3
"""Paired launch-path ratios with their 95% confidence intervals, from a gpubench result.

gpubench's launch/paired/ benchmarks time every launch path in the same rounds and report each
path's cost relative to others as counters `<path>_vs_<reference>` with `_lo`, `_hi` (the 95%
interval) and `_resolved` (1 where the interval clears both 1 and the host's own band:
`same_path_vs_runtime`, <<<>>> against itself in the same rounds). This prints them as a table,
or as one sentence per path (--sentences), with "no difference resolved" where the interval
does not clear that band. Given a second result, it also checks that the two runs agree: every
ratio's intervals overlap. Exit 1 if some do not, 2 on bad input or bad usage.

This script is about one benchmark by purpose: it reads the `_vs_` counters that only
launch/paired/ writes (in any benchmark that holds them, whatever its name), not a family's
figure, so the family facts have nothing to tell it.
"""

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpubench_json import (BadValueError, GpubenchJsonError, OneLineArgumentParser, Result, load,
                           script_error, write_stdout)
from text_table import render

SCRIPT = "launch_ratios.py"
VS = "_vs_"
# The ratio of a path to itself, measured in the same rounds: the host's resolution band.
SAME_PATH = "same_path"
NOT_RESOLVED = "no difference resolved"


@dataclass(frozen=True)
class RatioRow:
    benchmark: str  # the gpubench name, e.g. launch/paired/submit/params:0
    path: str
    reference: str  # a path, or params0: the same path at 0 parameter bytes
    ratio: float
    lo: float
    hi: float
    resolved: bool | None  # None for the same-path band, which is not a comparison

    @property
    def verdict(self) -> str:
        if self.resolved is None:
            return "the host's band"
        if not self.resolved:
            return NOT_RESOLVED
        return "cheaper" if self.ratio < 1 else "dearer"


def ratio_rows(result: Result) -> list[RatioRow]:
    """Every `<path>_vs_<reference>` ratio with its interval, in file order. Raises
    BadValueError for a ratio outside its own interval or one that is not > 0."""
    rows = []
    for bench in result.benchmarks.values():
        values = bench.values
        for key in values:
            if VS not in key or key.endswith(("_lo", "_hi", "_resolved")):
                continue
            if key + "_lo" not in values or key + "_hi" not in values:
                continue
            path, reference = key.split(VS, 1)
            ratio, lo, hi = values[key], values[key + "_lo"], values[key + "_hi"]
            if not (0 < lo <= ratio <= hi and math.isfinite(hi)):
                raise BadValueError(f"{result.path}: {bench.name}: {key} = {ratio:g} lies outside "
                                    f"its interval [{lo:g}, {hi:g}] or is not > 0")
            resolved = None if path == SAME_PATH else values.get(key + "_resolved") == 1.0
            rows.append(RatioRow(bench.name, path, reference, ratio, lo, hi, resolved))
    return rows


def _interval(row: RatioRow) -> str:
    return f"{row.lo:.3f}–{row.hi:.3f}"


def format_table(rows: Sequence[RatioRow], markdown: bool = False) -> str:
    """One line per ratio: benchmark, path, reference, ratio, 95% interval and the verdict."""
    return render(["benchmark", "path", "vs", "ratio", "95% CI", "verdict"],
                  [[r.benchmark, r.path, r.reference, f"{r.ratio:.3f}", _interval(r), r.verdict]
                   for r in rows], markdown=markdown, align="left")


def _reference_text(reference: str) -> str:
    return "itself at 0 parameter bytes" if reference == "params0" else f"`{reference}`"


def _number(value: float) -> str:
    """Two decimals, or two significant digits below 0.1 (a graph replay per kernel)."""
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def _phrase(row: RatioRow) -> str:
    against = _reference_text(row.reference)
    interval = f"95% CI {_number(row.lo)}–{_number(row.hi)}"
    if not row.resolved:
        return f"{NOT_RESOLVED} against {against} ({_number(row.ratio)}×, {interval})"
    return f"{_number(row.ratio)}× {against} ({interval})"


def sentences(rows: Sequence[RatioRow]) -> list[str]:
    """For each benchmark, one line naming it and its host band, then one sentence per path:
    its cost against each reference it was measured with, or "no difference resolved"."""
    lines: list[str] = []
    for benchmark in dict.fromkeys(r.benchmark for r in rows):
        own = [r for r in rows if r.benchmark == benchmark]
        band = next((r for r in own if r.path == SAME_PATH), None)
        head = f"{benchmark}:"
        if band is not None:
            head += (f" `{band.reference}` against itself in the same rounds {band.ratio:.3f}×"
                     f" (95% CI {_interval(band)}), the least difference this host resolves.")
        lines.append(head)
        for path in dict.fromkeys(r.path for r in own if r.path != SAME_PATH):
            phrases = [_phrase(r) for r in own if r.path == path]
            lines.append(f"`{path}`: " + "; ".join(phrases) + ".")
    return lines


@dataclass(frozen=True)
class Agreement:
    first: RatioRow
    second: RatioRow

    @property
    def overlap(self) -> bool:
        """The intervals share a point; this holds wherever either contains the other's ratio."""
        return max(self.first.lo, self.second.lo) <= min(self.first.hi, self.second.hi)


def agreements(first: Sequence[RatioRow], second: Sequence[RatioRow]) -> list[Agreement]:
    """The ratios both runs measured, paired by benchmark, path and reference."""
    by_key = {(r.benchmark, r.path, r.reference): r for r in second}
    return [Agreement(r, by_key[(r.benchmark, r.path, r.reference)]) for r in first
            if (r.benchmark, r.path, r.reference) in by_key]


def format_agreements(pairs: Sequence[Agreement], markdown: bool = False,
                      labels: tuple[str, str] = ("first", "second")) -> str:
    return render(["benchmark", "path", "vs", *labels, "intervals overlap"],
                  [[p.first.benchmark, p.first.path, p.first.reference,
                    f"{p.first.ratio:.3f} ({_interval(p.first)})",
                    f"{p.second.ratio:.3f} ({_interval(p.second)})",
                    "yes" if p.overlap else "NO"] for p in pairs],
                  markdown=markdown, align="left")


def _rows_of(path: Path) -> list[RatioRow]:
    result = load(path)
    rows = ratio_rows(result)
    if not rows:
        raise GpubenchJsonError(f"{path}: no paired launch ratios "
                                "(run gpubench with --benchmark_filter=launch/paired/)")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path, help="gpubench JSON with launch/paired/ benchmarks")
    parser.add_argument("second", type=Path, nargs="?",
                        help="a second run's JSON: check that every ratio's intervals overlap")
    parser.add_argument("--sentences", action="store_true",
                        help="one sentence per path (the README's launch lead) instead of a table")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(errors="backslashreplace")
    try:
        rows = _rows_of(args.result)
        second = _rows_of(args.second) if args.second is not None else None
    except GpubenchJsonError as error:
        return script_error(SCRIPT, error)
    if args.sentences:
        text = "\n".join(sentences(rows)) + "\n"
    else:
        text = format_table(rows, markdown=args.markdown) + "\n"
    disagreeing = 0
    if second is not None:
        pairs = agreements(rows, second)
        if not pairs:
            return script_error(SCRIPT, f"{args.second}: no ratio in common with {args.result}")
        disagreeing = sum(not p.overlap for p in pairs)
        text += ("\n" + format_agreements(pairs, markdown=args.markdown)
                 + f"\n{len(pairs) - disagreeing} of {len(pairs)} ratios agree between the runs"
                 " (their 95% intervals overlap)\n")
    try:
        write_stdout(text)
    except OSError as error:
        return script_error(SCRIPT, error)
    return 1 if disagreeing else 0


if __name__ == "__main__":
    sys.exit(main())
