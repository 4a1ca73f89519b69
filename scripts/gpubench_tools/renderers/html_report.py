"""The HTML report: `gpubench-tools report --format=html A.json B.json [C.json ...] -o report.html`.

One self-contained page (inline SVG, style and script; nothing loaded at view time) that opens with
the verdict of each later run against the first, as gpubench-tools compare decides it, then the runs
and the context keys that differ between them, then per family: each later run's summary against the
first, the largest changes first, a panel per series with every run's curve, its band (smallest to
largest repetition) and the ratio to the first run, the figures without an argument, the matrices of
GPU pairs and the clocks each run's benchmarks started at. Runs are labelled by GPU and driver (and
by file where those are alike); checkboxes hide a run, a filter box narrows the figures and rows to
the names holding its text. A run whose series of GPU pairs name more than pair_matrix.MAX_PAIR_GPUS
GPUs (64, the most gpubench measures at once) is refused: a matrix grows as the square of its GPUs;
so are runs of more than family_plot.MAX_FAMILIES families, a section of figures each.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubench_tools.models.comparison import (
    ANSWER_ORDER,
    FASTER,
    LEADING_CONTEXT_KEYS,
    SAME,
    SLOWER,
    UNRESOLVED,
    Comparison,
    Row,
    Rules,
    compare,
    family_summaries,
)
from gpubench_tools.models.launch_ratios import RatioRow, ratio_rows
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.name_filter import NameFilter
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.renderers.comparison_text import (
    CHANGES_SHOWN,
    NEAR_SHOWN,
    VERSION_SHOWN,
    change_text,
    cut_value,
    differing_context,
    family_counts,
    format_ratio,
    format_value,
    mode_line,
    notes_section,
    rule_text,
    uncertainty_text,
    verdict_line,
)
from gpubench_tools.renderers.family_figures import (
    Ratios,
    RunFigures,
    colour,
    families,
    family_html,
    run_figures,
    verdict_cell,
)
from gpubench_tools.renderers.figures.family_plot import check_families
from gpubench_tools.renderers.figures.pair_matrix import check_pair_gpus
from gpubench_tools.renderers.figures.plot_files import file_labels
from gpubench_tools.renderers.html_page import controls, esc, page, table
from gpubench_tools.renderers.launch_ratios_text import pooling_note
from gpubench_tools.writing.outputs import write_output

# Rows of a family's table of changes shown before the rest is folded.
TABLE_ROWS_SHOWN = 10
# Counters gpubench writes per benchmark: the SM clock at the start and end of its timed loop.
CLOCK_COUNTERS = ("sm_clock_start_mhz", "sm_clock_end_mhz")


@dataclass(frozen=True)
class Report:
    html: str
    comparisons: list[Comparison]  # of each later run against the first


def selected(result: Result, pattern: NameFilter | None) -> Result:
    if pattern is None:
        return result
    kept = {n: result.benchmarks[n] for n in pattern.select(result.benchmarks)}
    if not kept:
        raise GpubenchJsonError(f"{result.path}: no benchmark that --filter={pattern.text} "
                                "finds")
    return Result(result.path, result.context, kept)


def run_labels(results: list[Result], multi_device: list[bool]) -> list[str]:
    """GPU and driver (and which GPU of how many, for a file of several GPUs); where two runs
    read the same, their files tell them apart."""
    labels = [f"{r.gpu_name}, driver {r.driver_version}" + (gpu_of(r) if multi else "")
              for r, multi in zip(results, multi_device)]
    if len(set(labels)) < len(labels):  # the gpubench build next: commit against commit
        versions = [r.context_text("gpubench_version") for r in results]
        if len(set(versions)) > 1:
            labels = [label + (f", gpubench {one_line(v, VERSION_SHOWN)}" if v else "")
                      for label, v in zip(labels, versions)]
    if len(set(labels)) < len(labels):
        files = file_labels([r.path for r in results])
        labels = [f"{label} ({file})" for label, file in zip(labels, files)]
    return labels


def gpu_of(result: Result) -> str:
    count = result.context_text("gpu_count")
    return f", GPU {result.context_text('gpu_ordinal') or '?'}" + (f" of {count}" if count else "")


def ratios_of(comparisons: list[Comparison]) -> Ratios:
    return {index: {row.name: row for row in c.rows}
            for index, c in enumerate(comparisons, start=1)}


def change_items(rows: list[Row]) -> str:
    """Changes as list items, the first CHANGES_SHOWN of them; the rest counted by family."""
    items = "".join(f'<li data-name="{esc(r.name)}"><span class="verdict-{esc(r.verdict)}">'
                    f"{esc(r.verdict)}</span> {esc(change_text(r))}</li>"
                    for r in rows[:CHANGES_SHOWN])
    if len(rows) > CHANGES_SHOWN:
        rest = [r.name for r in rows[CHANGES_SHOWN:]]
        items += (f"<li>and {len(rest)} more ({esc(family_counts(rest))}), each in its "
                  "family's table below</li>")
    return f"<ul>{items}</ul>"


def answer_html(c: Comparison) -> str:
    """The changes under the verdict as comparison_text.answer_section gives them: SLOWER,
    then UNRESOLVED, then FASTER, then those not confirmed, each with its ratio and
    uncertainty; then how many are SAME, with the largest changes within their resolution."""
    parts = []
    for verdict in ANSWER_ORDER:
        if rows := c.changed(verdict):
            parts.append(f"<p>{verdict} ({len(rows)}), the largest first:</p>" + change_items(rows))
    if rows := c.not_confirmed:
        parts.append(f"<p>Not confirmed ({len(rows)}): changes the confirming runs did not "
                     "show, so SAME:</p>" + change_items(rows))
    same = c.changed(SAME)
    near = [r for r in same if r.size_of_change > 0 and r.confirmed is None][:NEAR_SHOWN]
    if same:
        parts.append(f"<p>{len(same)} SAME" + (", the largest changes within their "
                                               "resolution:</p>" if near else ".</p>")
                     + (change_items(near) if near else ""))
    return "".join(parts)


def verdict_section(runs: list[RunFigures], comparisons: list[Comparison]) -> str:
    parts = ["<h2>Verdict</h2>"]
    for run, c in zip(runs[1:], comparisons):
        tone = "SLOWER" if c.exit_status else ("FASTER" if c.regression_check else "")
        notes = "".join(f'<p class="note">{esc(n, 2000)}</p>' for n in notes_section(c))
        parts.append(
            f'<h3 class="run-{run.index}"><span class="swatch" style="background:'
            f'{colour(run.index)}"></span>{esc(run.label)} against {esc(runs[0].label)}</h3>'
            f'<p><b class="verdict-{tone}">{esc(verdict_line(c), 2000)}</b></p>'
            + answer_html(c) + f"<p>{esc(mode_line(c), 2000)}</p>" + notes)
    rule = rule_text(comparisons[0].rules, any(c.unresolved for c in comparisons))
    parts.append(f'<p class="note">{esc(rule, 2000)}</p>')
    return "".join(parts)


def runs_section(runs: list[RunFigures]) -> str:
    rows = []
    for run in runs:
        r = run.result
        rows.append([f'<span class="swatch" style="background:{colour(run.index)}"></span>'
                     f"{esc(run.label)}", esc(r.path), esc(r.gpu_name), esc(r.driver_version),
                     esc(r.cuda_version), esc(r.context_text("gpubench_version") or "-"),
                     esc(r.context_text("date") or "-"), str(len(r.benchmarks))])
    return "<h2>Runs</h2>" + table(["run", "file", "GPU", "driver", "CUDA", "gpubench", "date",
                                     "benchmarks"], rows, numeric={7})


def context_section(runs: list[RunFigures], comparisons: list[Comparison]) -> str:
    """The context keys in which a run differs from the first, the GPU, driver, CUDA, clocks
    and health first; the rest folded."""
    keys = list(dict.fromkeys(key for c in comparisons for key in c.context_differences))
    if not keys:
        return "<h2>Context</h2><p>The runs' contexts are identical.</p>"
    leading, other = [], []
    for key in keys:
        for field, cells in differing_context([run.result for run in runs], key):
            row = [esc(field)] + [f'<span class="run-{i}">{esc(cut_value(c), 1000)}</span>'
                                  for i, c in enumerate(cells)]
            important = key in LEADING_CONTEXT_KEYS or "health" in key or "clock" in key
            (leading if important else other).append((field, row))
    headers = ["context key"] + [run.label for run in runs]
    out = "<h2>Context differences</h2>"
    if leading:
        out += table(headers, [r for _, r in leading], [f for f, _ in leading])
    if other:
        out += (f"<details><summary>{len(other)} other context keys differ</summary>"
                + table(headers, [r for _, r in other], [f for f, _ in other]) + "</details>")
    return out


def family_summary(family: str, runs: list[RunFigures], comparisons: list[Comparison]) -> str:
    lines = []
    for run, c in zip(runs[1:], comparisons):
        rows = [r for r in c.rows if r.family == family]
        if not rows:
            lines.append(f"<li class=\"run-{run.index}\">{esc(run.label)}: no benchmark of "
                         f"{esc(family)} in common with the first run</li>")
            continue
        s = family_summaries(rows)[0]
        lines.append(f'<li class="run-{run.index}">{esc(run.label)}: {s.compared} compared, '
                     f"{esc(format_ratio(s.geomean_ratio))} (geometric mean); "
                     f'<span class="verdict-FASTER">{s.counts[FASTER]} {FASTER}</span>, '
                     f'<span class="verdict-SLOWER">{s.counts[SLOWER]} {SLOWER}</span>, '
                     f"{s.counts[SAME]} {SAME}"
                     + (f", {s.counts[UNRESOLVED]} {UNRESOLVED}" if s.counts[UNRESOLVED] else "")
                     + "</li>")
    return f"<ul>{''.join(lines)}</ul>"


def clock_range(clocks: list[float]) -> str:
    low, high = np.min(clocks), np.max(clocks)
    return f"{low:.0f} MHz" if low == high else f"{low:.0f} to {high:.0f} MHz"


def clocks_line(family: str, runs: list[RunFigures]) -> str:
    """The SM clocks each run's benchmarks of the family ran at, where the file says: NVML's
    at the ends of the timed loops, and the kernels' own reading after them."""
    parts = []
    for run in runs:
        benchmarks = run.result.family(family)
        clocks = [b.values[k] for b in benchmarks for k in CLOCK_COUNTERS if k in b.values]
        kernel = [mhz for b in benchmarks if (mhz := b.kernel_sm_clock_mhz) is not None]
        shown = [clock_range(clocks)] if clocks else []
        if kernel:
            shown.append(f"read by its kernels {clock_range(kernel)}")
        if shown:
            parts.append(f'<span class="run-{run.index}">{esc(run.label)}: '
                         f"{', '.join(shown)}</span>")
    return f"<p>SM clock during the timed loops: {'; '.join(parts)}</p>" if parts else ""


def changes_table(family: str, runs: list[RunFigures], comparisons: list[Comparison],
                  only_changed: bool) -> str:
    """Every compared benchmark of the family, the largest change in any run first, each
    with what its change had to pass (resolution, spreads, p)."""
    by_name: dict[str, dict[int, Row]] = {}
    for index, c in enumerate(comparisons, start=1):
        for row in c.rows:
            if row.family == family:
                by_name.setdefault(row.name, {})[index] = row
    if only_changed:
        by_name = {n: rows for n, rows in by_name.items()
                   if any(r.verdict != SAME for r in rows.values())}
    if not by_name:
        return ""
    names = sorted(by_name, key=lambda n: -max(r.size_of_change for r in by_name[n].values()))
    headers = ["benchmark", "unit", runs[0].label]
    for run in runs[1:]:
        headers += [run.label, "vs first", "resolution, spread (first / this), p"]
    numeric = {2} | {3 + 3 * i for i in range(len(runs) - 1)}
    rows = []
    for name in names:
        some = next(iter(by_name[name].values()))
        row = [esc(name), esc(some.metric.unit), format_value(some.baseline)]
        for index in range(1, len(runs)):
            r = by_name[name].get(index)
            row += ["-", "-", "-"] if r is None else [
                f'<span class="run-{index}">{format_value(r.contender)}</span>',
                verdict_cell(r), esc(uncertainty_text(r))]
        rows.append(row)
    shown = table(headers, rows[:TABLE_ROWS_SHOWN], names[:TABLE_ROWS_SHOWN], numeric)
    if len(rows) > TABLE_ROWS_SHOWN:
        shown += (f"<details><summary>the other {len(rows) - TABLE_ROWS_SHOWN}</summary>"
                  + table(headers, rows[TABLE_ROWS_SHOWN:], names[TABLE_ROWS_SHOWN:], numeric)
                  + "</details>")
    return f"<h3>{esc(family)}: changes, the largest first</h3>{shown}"


def family_section(family: str, runs: list[RunFigures], comparisons: list[Comparison],
                   ratios: Ratios, only_changed: bool) -> str:
    return (f'<section class="family" id="family-{esc(family)}"><h2>{esc(family)}</h2>'
            + family_summary(family, runs, comparisons) + clocks_line(family, runs)
            + changes_table(family, runs, comparisons, only_changed)
            + family_html(runs, family, ratios) + "</section>")


def paired_section(results: list[Result], labels: list[str]) -> str:
    """The launch paths' paired ratios (launch/paired/) of every run that holds them, each with
    its 95% interval, and whether all the runs' intervals share a point; empty where no run
    holds them."""
    rows_of = [{(r.benchmark, r.path, r.reference): r for r in ratio_rows(result)}
               for result in results]
    keys = list(dict.fromkeys(k for rows in rows_of for k in rows))
    if not keys:
        return ""

    def cell(row: RatioRow | None) -> str:
        return "" if row is None else esc(f"{row.ratio:.3f} ({row.lo:.3f}–{row.hi:.3f}) "
                                          f"{row.verdict}")

    lines, agreeing, measured = [], 0, 0
    for key in keys:
        found = [rows.get(key) for rows in rows_of]
        present = [r for r in found if r is not None]
        agree = ""
        if len(present) >= 2:
            measured += 1
            shared = max(r.lo for r in present) <= min(r.hi for r in present)
            agreeing += shared
            agree = "yes" if shared else "NO"
        lines.append([esc(key[0]), esc(key[1]), esc(key[2]), *map(cell, found), agree])
    notes = "".join(f"<li>{esc(label)}: {esc(pooling_note(result, list(rows.values())))}</li>"
                    for label, result, rows in zip(labels, results, rows_of) if rows)
    summary = (f"<p>{agreeing} of {measured} ratios measured by two or more runs agree (their "
               "95% intervals share a point); a ratio below 1 is the cheaper path.</p>"
               if measured else "")
    return ('<section class="family" id="launch-paired"><h2>Launch paths against each other '
            "(launch/paired/)</h2>" + summary + f"<ul>{notes}</ul>"
            + table(["benchmark", "path", "vs", *labels, "intervals share a point"], lines,
                    [k[0] for k in keys]) + "</section>")


def family_order(names: list[str], comparisons: list[Comparison]) -> list[str]:
    """Families with compared benchmarks first, the one with the largest change first."""
    def largest(family: str) -> float:
        return max((r.size_of_change for c in comparisons for r in c.rows
                    if r.family == family), default=-math.inf)
    return sorted(names, key=lambda f: -largest(f))


def build_report(results: list[Result], rules: Rules, force_report: bool,
                 multi_device: list[bool], only_changed: bool = False) -> Report:
    for result in results:
        check_pair_gpus(result)
    labels = run_labels(results, multi_device)
    runs = [run_figures(i, label, r) for i, (label, r) in enumerate(zip(labels, results))]
    check_families(families(runs))
    comparisons = [compare(results[0], r, rules, force_report) for r in results[1:]]
    if not any(c.rows for c in comparisons):
        raise GpubenchJsonError(f"{results[0].path}: no benchmark in common with "
                                + ", ".join(str(r.path) for r in results[1:]))
    ratios = ratios_of(comparisons)
    title = "gpubench report: " + " vs ".join(labels)
    body = (f"<h1>{esc(title, 1000)}</h1>"
            + controls(labels, [colour(i) for i in range(len(runs))], "benchmark name")
            + verdict_section(runs, comparisons) + runs_section(runs)
            + context_section(runs, comparisons)
            + "".join(family_section(f, runs, comparisons, ratios, only_changed)
                      for f in family_order(families(runs), comparisons))
            + paired_section(results, labels))
    return Report(page(title, body, len(runs)), comparisons)


def write_page(path: Path, text: str) -> None:
    """Writes the page; OSError naming the path where it cannot (a folder, a FIFO, a device or
    a missing folder)."""
    if (path.exists() or path.is_symlink()) and not path.is_file():
        raise OSError(21, "exists and is not a regular file", str(path))
    write_output(path, text)
