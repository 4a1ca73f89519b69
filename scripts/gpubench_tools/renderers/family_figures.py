"""The figures of one family over several runs, as HTML: a panel per group of series, the
figures without an argument, peer matrices. The report and the gallery draw with these.

Each panel is the figure gpubench-tools plot draws (figures/panels.py, drawn by
figures/family_plot.panel_figure), inlined as SVG: the variants of the panel overlaid, each in
its colour and marker, each run in its line style; given each later run's ratios against the
first, the ratios with their resolution band beside the values, the points the verdict calls
SAME hollow. Every panel's axes fit the data it shows. Panels sort by their largest change.
"""

from dataclasses import dataclass

from gpubench_tools.models.comparison import Row
from gpubench_tools.models.run_series import (
    Curve,
    PairMatrix,
    Single,
    curves_and_singles,
    pair_matrices,
)
from gpubench_tools.reading.results import Result
from gpubench_tools.renderers.comparison_text import format_ratio, format_value
from gpubench_tools.renderers.figures.family_plot import panel_figure
from gpubench_tools.renderers.figures.panel_drawing import Ratios
from gpubench_tools.renderers.figures.panels import (
    RATIOS,
    SWEEP,
    Panel,
    family_panels,
    make_source,
)
from gpubench_tools.renderers.figures.scales import argument_text
from gpubench_tools.renderers.figures.svg_markup import svg_markup
from gpubench_tools.renderers.html_page import esc, table

__all__ = ["Ratios", "RunFigures", "colour", "families", "family_html", "run_figures",
           "verdict_cell"]

# tab10, the colour of each run's swatch on a page, in order.
RUN_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf")
# Characters of a panel's data-name: the names of all its series, for the page's filter.
NAME_LIMIT = 4000


def colour(run: int) -> str:
    return RUN_COLOURS[run % len(RUN_COLOURS)]


@dataclass(frozen=True)
class RunFigures:
    index: int  # position among the page's runs: line style and class
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


def panel_change(panel: Panel, ratios: Ratios) -> float:
    """The largest change of any benchmark of the panel in any later run: how panels sort."""
    names = set(panel.names())
    return max([row.size_of_change for by_name in ratios.values()
                for name, row in by_name.items() if name in names], default=-1.0)


def series_names(family: str, panel: Panel) -> list[str]:
    """The series a panel draws, as the filter matches them: family/series; for paired ratios,
    the benchmarks' names without their argument (a curve there is `path vs reference`)."""
    if panel.kind == RATIOS:
        return list(dict.fromkeys(name.rsplit("/", 1)[0] for name in panel.names()))
    prefix = family if panel.title.split(":")[0] == family \
        else f"{family}/{panel.title.split(':')[0]}"
    return [f"{prefix}/{label}" for label in panel.curves]


def panels_html(runs: list[RunFigures], family: str, ratios: Ratios) -> str:
    """A panel per group of series (figures/panels.py), the largest change first."""
    sources = [make_source(run.result, run.label, run.index) for run in runs
               if run.result.family(family)]
    panels = family_panels(sources, family)
    if not panels:
        return ""
    order = sorted(panels, key=lambda p: (-panel_change(p, ratios), p.kind != SWEEP))
    out = []
    for panel in order:
        title = f"{family}: {panel.title}" if panel.title != family else family
        fig = panel_figure(panel, sources, ratios or None)
        name = " ".join([f"{family}/{panel.title}", *series_names(family, panel)])
        out.append(f'<figure class="panel" data-name="{esc(name, NAME_LIMIT)}"><figcaption>'
                   f"{esc(title)}</figcaption>{svg_markup(fig, esc(title))}</figure>")
    return f'<div class="panels">{"".join(out)}</div>'


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
