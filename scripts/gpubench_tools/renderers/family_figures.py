"""The figures of one family over several runs, as HTML: a panel per series, single figures,
peer matrices. The report and the gallery draw with these, on the same scales.

A panel shows every run's curve with its band (smallest to largest repetition) and, given each
later run's ratios against the first, a ratio panel under it: how many times better, with the
points the verdict calls SAME hollow. All panels of a family share the argument axis, and those
of one unit share the figure axis and the ratio axis.
"""

import math
from dataclasses import dataclass

from gpubench_tools.models.comparison import SAME, Row, natural_key
from gpubench_tools.models.run_series import (
    Curve,
    PairMatrix,
    Single,
    curves_and_singles,
    pair_matrices,
)
from gpubench_tools.reading.results import Metric, Result
from gpubench_tools.renderers.comparison_text import format_ratio, format_value
from gpubench_tools.renderers.html_page import esc, table
from gpubench_tools.renderers.svg_chart import (
    CURVE_HEIGHT,
    RATIO_HEIGHT,
    DrawnPoint,
    DrawnRun,
    Frame,
    argument_scale,
    argument_text,
    colour,
    curve_chart,
    figure_scale,
    ratio_chart,
    ratio_scale,
)

# Each later run's comparison with the first (gpubench-tools compare's rows), by run index and benchmark.
Ratios = dict[int, dict[str, Row]]


@dataclass(frozen=True)
class RunFigures:
    index: int  # position among the page's runs: colour and class
    label: str
    result: Result
    curves: list[Curve]
    singles: list[Single]


def run_figures(index: int, label: str, result: Result) -> RunFigures:
    return RunFigures(index, label, result, *curves_and_singles(result))


def families(runs: list[RunFigures]) -> list[str]:
    """Every family of the runs, in the order they first appear."""
    found = [c.family for r in runs for c in r.curves] + [s.family for r in runs for s in r.singles]
    return list(dict.fromkeys(found))


def figure_title(metric: Metric) -> str:
    return f"{metric.unit}, {'higher' if metric.bigger_is_better else 'lower'} is better"


def argument_title(curve: Curve) -> str:
    """The argument axis' title; where the file declares no unit, it says the unit is read as
    bytes (docs/family-facts.md), which a count of elements in such a file is not."""
    argument = curve.argument
    if not argument.declared:
        return f"{argument.key or 'argument'} (read as bytes: no unit in the file)"
    return f"{argument.key or ('size' if argument.unit == 'bytes' else 'N')} ({argument.unit})"


def point_tip(label: str, curve: Curve, index: int) -> str:
    p = curve.points[index]
    spread = "" if p.low == p.high else \
        f", repetitions {format_value(p.low)} to {format_value(p.high)}"
    return (f"{label}: {p.benchmark}: {format_value(p.value)} {curve.metric.unit} "
            f"({p.summary}{spread})")


def series_change(runs: list[RunFigures], series: str, family: str, ratios: Ratios) -> float:
    """The largest change of any point of the series in any later run: how panels sort."""
    names = {p.benchmark for r in runs for c in r.curves
             if c.family == family and c.series == series for p in c.points}
    return max([by_name[n].size_of_change for by_name in ratios.values()
                for n in names if n in by_name], default=-1.0)


def family_curves(runs: list[RunFigures], family: str
                  ) -> dict[str, list[tuple[RunFigures, Curve]]]:
    by_series: dict[str, list[tuple[RunFigures, Curve]]] = {}
    for run in runs:
        for curve in run.curves:
            if curve.family == family:
                by_series.setdefault(curve.series, []).append((run, curve))
    return by_series


def panels_html(runs: list[RunFigures], family: str, ratios: Ratios) -> str:
    """A panel per series, the largest change first."""
    by_series = family_curves(runs, family)
    if not by_series:
        return ""
    all_curves = [c for members in by_series.values() for _, c in members]
    x_scale = argument_scale(p.argument for c in all_curves for p in c.points)
    y_scales = {unit: figure_scale(v for c in all_curves if c.metric.unit == unit
                                   for p in c.points for v in (p.value, p.low, p.high))
                for unit in {c.metric.unit for c in all_curves}}
    names = {p.benchmark for c in all_curves for p in c.points}
    r_scale = ratio_scale(row.ratio for by_name in ratios.values()
                          for n, row in by_name.items() if n in names)
    order = sorted(by_series, key=lambda s: (-series_change(runs, s, family, ratios),
                                             natural_key(s)))
    panels = []
    for series in order:
        members = by_series[series]
        first = members[0][1]
        title = f"{family}/{series}" if series else family
        drawn = [DrawnRun(run.index, [DrawnPoint(p.argument, p.value, p.low, p.high,
                                                 point_tip(run.label, c, i))
                                      for i, p in enumerate(c.points)])
                 for run, c in members]
        chart = curve_chart(Frame(CURVE_HEIGHT, x_scale, y_scales[first.metric.unit]), drawn,
                            first.argument.unit, figure_title(first.metric),
                            argument_title(first), title)
        ratio_runs = ratio_points(members, ratios)
        if ratio_runs:
            chart += ratio_chart(Frame(RATIO_HEIGHT, x_scale, r_scale), ratio_runs,
                                 first.argument.unit, "× the first run's",
                                 argument_title(first), f"{title}: ratio to the first run")
        panels.append(f'<figure class="panel" data-name="{esc(title)}"><figcaption>'
                      f'{esc(title)}</figcaption>{chart}</figure>')
    return f'<div class="panels">{"".join(panels)}</div>'


def ratio_points(members: list[tuple[RunFigures, Curve]], ratios: Ratios) -> list[DrawnRun]:
    drawn = []
    for run, curve in members:
        by_name = ratios.get(run.index, {})
        points, hollow = [], []
        for p in curve.points:
            row = by_name.get(p.benchmark)
            if row is None or not (math.isfinite(row.ratio) and row.ratio > 0):
                continue
            points.append(DrawnPoint(p.argument, row.ratio, row.ratio, row.ratio,
                                     f"{run.label}: {p.benchmark}: {format_ratio(row.ratio)} "
                                     f"than the first run, {row.verdict}"))
            hollow.append(row.verdict == SAME)
        if points:
            drawn.append(DrawnRun(run.index, points, tuple(hollow)))
    return drawn


def singles_html(runs: list[RunFigures], family: str, ratios: Ratios) -> str:
    """The family's benchmarks without an argument: a row each, a column per run."""
    by_name: dict[str, dict[int, Single]] = {}
    for run in runs:
        for single in run.singles:
            if single.family == family:
                by_name.setdefault(single.benchmark, {})[run.index] = single
    if not by_name:
        return ""
    headers = ["benchmark", "unit"]
    for run in runs:
        headers.append(run.label)
        if run.index in ratios:
            headers.append(f"{run.label}: vs first")
    rows, numeric = [], set()
    names = sorted(by_name, key=lambda n: -max(
        [by_run[n].size_of_change for by_run in ratios.values() if n in by_run], default=-1.0))
    for name in names:
        per_run = by_name[name]
        some = next(iter(per_run.values()))
        row = [esc(name), esc(some.metric.unit)]
        for run in runs:
            single = per_run.get(run.index)
            numeric.add(len(row))
            row.append("-" if single is None else
                       f'<span class="run-{run.index}" title="{esc(single.summary)}">'
                       f"{format_value(single.value)}{spread_text(single)}</span>")
            if run.index in ratios:
                row.append(verdict_cell(ratios[run.index].get(name)))
        rows.append(row)
    return table(headers, rows, names, numeric)


def spread_text(single: Single) -> str:
    if single.low == single.high:
        return ""
    return f" ({format_value(single.low)} to {format_value(single.high)})"


def verdict_cell(row: Row | None) -> str:
    if row is None:
        return "-"
    return (f'{esc(format_ratio(row.ratio))} <span class="verdict-{esc(row.verdict)}">'
            f"{esc(row.verdict)}</span>")


def matrices_html(runs: list[RunFigures], family: str) -> str:
    """For series naming an ordered pair of GPUs (`0to1`): per run and group, the figure at
    the largest argument every pair measured, source by destination."""
    out = [matrix_table(run, family, matrix) for run in runs
           for matrix in pair_matrices(run.curves, family)]
    return f'<div class="matrices">{"".join(out)}</div>' if out else ""


def matrix_table(run: RunFigures, family: str, matrix: PairMatrix) -> str:
    title = f"{family}/{matrix.group}"
    values = matrix.values
    gpus = sorted({g for pair in values for g in pair})
    top = max(values.values(), default=1.0) or 1.0
    header = "".join(f"<th>to {g}</th>" for g in gpus)
    body = []
    for source in gpus:
        cells = []
        for destination in gpus:
            value = values.get((source, destination))
            if value is None:
                cells.append('<td class="cell">—</td>')
            else:
                shade = 96 - round(50 * value / top)
                cells.append(f'<td class="cell" style="background:hsl(210,70%,{shade}%)">'
                             f"{format_value(value)}</td>")
        body.append(f"<tr><th>from {source}</th>{''.join(cells)}</tr>")
    caption = (f"{title}, {matrix.curve.metric.unit} at "
               f"{argument_text(matrix.argument, matrix.curve.argument.unit)}: {run.label}")
    return (f'<table class="matrix run-{run.index}" data-name="{esc(title)}"><caption>'
            f'<span class="swatch" style="background:{colour(run.index)}"></span>'
            f"{esc(caption)}</caption><tr><th></th>{header}</tr>{''.join(body)}</table>")


def family_html(runs: list[RunFigures], family: str, ratios: Ratios) -> str:
    """The family's figures: panels, single figures, matrices."""
    parts = [panels_html(runs, family, ratios)]
    singles = singles_html(runs, family, ratios)
    if singles:
        parts.append(f"<h3>{esc(family)}: figures without an argument</h3>{singles}")
    matrices = matrices_html(runs, family)
    if matrices:
        parts.append(f"<h3>{esc(family)}: matrices of GPU pairs</h3>{matrices}")
    return "".join(parts)
