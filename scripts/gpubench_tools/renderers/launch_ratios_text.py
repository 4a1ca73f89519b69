"""The paired launch ratios as text: a table, one sentence per path, two runs side by side.

The sentences are markdown (the README's launch lead): a benchmark's name renders as text
(markdown_text) and a path's as code (markdown_code), whatever either holds."""

from collections.abc import Sequence

from gpubench_tools.models.launch_ratios import NOT_RESOLVED, SAME_PATH, Agreement, RatioRow
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import markdown_code, markdown_text
from gpubench_tools.renderers.text_table import render


def pooling_note(result: Result, rows: Sequence[RatioRow]) -> str:
    """What the intervals cover: one process's blocks, repetitions of one process, or separate
    processes (a file merged by gpubench-tools merge, whose context holds `merged_runs`)."""
    runs = max((r.runs for r in rows), default=1)
    if runs == 1:
        return ("One run: each interval covers the spread between this process's blocks, not the "
                "level the host sets per process; pool separate processes for that "
                "(scripts/gpubench-tools record).")
    if "merged_runs" in result.context:
        return (f"Pooled over {runs} separate processes: each interval covers what moves between "
                "processes as well as within them.")
    return (f"Pooled over {runs} repetitions of one process: each interval covers what moves "
            "within it, not the level the host sets per process; pool separate processes for "
            "that (scripts/gpubench-tools record).")

def interval_text(row: RatioRow) -> str:
    return f"{row.lo:.3f}–{row.hi:.3f}"

def format_table(rows: Sequence[RatioRow], markdown: bool = False) -> str:
    """One line per ratio: benchmark, path, reference, ratio, 95% interval and the verdict."""
    return render(["benchmark", "path", "vs", "ratio", "95% CI", "verdict"],
                  [[r.benchmark, r.path, r.reference, f"{r.ratio:.3f}", interval_text(r), r.verdict]
                   for r in rows], markdown=markdown, align="left")

def reference_text(reference: str) -> str:
    return "itself at 0 parameter bytes" if reference == "params0" else markdown_code(reference)

def number_text(value: float) -> str:
    """Two decimals, or two significant digits below 0.1 (a graph replay per kernel)."""
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"

def phrase(row: RatioRow) -> str:
    against = reference_text(row.reference)
    interval = f"95% CI {number_text(row.lo)}–{number_text(row.hi)}"
    if not row.resolved:
        return f"{NOT_RESOLVED} against {against} ({number_text(row.ratio)}×, {interval})"
    return f"{number_text(row.ratio)}× {against} ({interval})"

def sentences(rows: Sequence[RatioRow]) -> list[str]:
    """For each benchmark, one line naming it and its host band, then one sentence per path:
    its cost against each reference it was measured with, or "no difference resolved"."""
    lines: list[str] = []
    for benchmark in dict.fromkeys(r.benchmark for r in rows):
        own = [r for r in rows if r.benchmark == benchmark]
        band = next((r for r in own if r.path == SAME_PATH), None)
        head = f"{markdown_text(benchmark)}:"
        if band is not None:
            head += (f" {markdown_code(band.reference)} against itself in the same rounds "
                     f"{band.ratio:.3f}× (95% CI {interval_text(band)}), the least difference "
                     "this host resolves.")
        lines.append(head)
        for path in dict.fromkeys(r.path for r in own if r.path != SAME_PATH):
            phrases = [phrase(r) for r in own if r.path == path]
            lines.append(f"{markdown_code(path)}: " + "; ".join(phrases) + ".")
    return lines

def format_agreements(pairs: Sequence[Agreement], markdown: bool = False,
                      labels: tuple[str, str] = ("first", "second")) -> str:
    return render(["benchmark", "path", "vs", *labels, "intervals overlap"],
                  [[p.first.benchmark, p.first.path, p.first.reference,
                    f"{p.first.ratio:.3f} ({interval_text(p.first)})",
                    f"{p.second.ratio:.3f} ({interval_text(p.second)})",
                    "yes" if p.overlap else "NO"] for p in pairs],
                  markdown=markdown, align="left")
