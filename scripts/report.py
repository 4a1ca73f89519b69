#!/usr/bin/env python3
"""A report comparing two gpubench runs, for a person: DIR/report.md and figures.

report.md holds what compare.py decides (the mode, the verdict rule, the context keys that
differ, a geometric-mean summary per family, the benchmarks in one file only, the table of every
benchmark) and one PNG per family that overlays both runs: colour per path, solid lines and
circles for BASE, dashed lines and crosses for NEW, the legend outside the data, log axes where
the values span a decade or more.

Exit status: 0 written (whatever the verdicts), 2 unusable input, bad usage or a report that
could not be written.
"""

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import figure_setup  # noqa: F401  (before matplotlib: the backend, mathtext off)
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from compare import (Comparison, add_comparison_options, compare, context_section,
                     family_tables, header_section, load_pair, notes_section,
                     only_in_one_section, paired_section, rules_from, summary_section,
                     verdict_line)
from figure_setup import figure_text, save_figure
from gpubench_json import (GBPS, LAUNCH_US, GpubenchJsonError, Metric, OneLineArgumentParser,
                           Result, script_error, write_stdout)
from name_filter import FilterError
from plot import colour_map, sweeps

SCRIPT = "report.py"
FILE_LABELS = ("BASE", "NEW")
FILE_STYLES = ({"linestyle": "-", "marker": "o", "markerfacecolor": "none"},
               {"linestyle": "--", "marker": "x"})
BAR_STYLES = ({"facecolor": "0.55", "edgecolor": "0.25"},
              {"facecolor": "white", "edgecolor": "0.25", "hatch": "///"})
DECADE = 10.0  # values spanning this factor or more get a log axis


@dataclass
class Panel:
    """One axes: per series label, (x, y) of each file, None where the file lacks it."""
    title: str
    xlabel: str
    ylabel: str
    series: dict[str, list[tuple[np.ndarray, np.ndarray] | None]] = field(default_factory=dict)


# How a family's sweep series ("HtoD/pinned/async", "driver/submit", "vec4") split into
# panels and labels, and what the axes show.
@dataclass(frozen=True)
class FamilyLayout:
    metric: Metric
    split: Callable[[str], tuple[str, str]]  # series -> (panel title, label in the panel)
    xlabel: str
    title: str


LAYOUTS = {
    "copy": FamilyLayout(GBPS, lambda s: (s.split("/", 1)[0], s.split("/", 1)[-1]),
                         "copy size (bytes)", "Copy bandwidth by direction"),
    "launch": FamilyLayout(LAUNCH_US, lambda s: (s.rsplit("/", 1)[-1], s.rsplit("/", 1)[0]),
                           "kernel parameter payload (bytes)", "Launch cost by measure"),
    "saxpy": FamilyLayout(GBPS, lambda s: ("saxpy", s), "N (elements)", "saxpy bandwidth"),
}


def family_panels(results: tuple[Result, Result], family: str) -> list[Panel]:
    layout = LAYOUTS[family]
    ylabel = f"{'bandwidth' if layout.metric.bigger_is_better else 'time'} ({layout.metric.unit})"
    panels: dict[str, Panel] = {}
    for index, result in enumerate(results):
        for series, points in sweeps(result, family, layout.metric).items():
            title, label = layout.split(series)
            panel = panels.setdefault(title, Panel(title, layout.xlabel, ylabel))
            panel.series.setdefault(label, [None] * len(results))[index] = points
    return list(panels.values())


def module_costs(result: Result) -> dict[str, float]:
    """launch/module/<step>: µs per load or first launch."""
    return {b.name.split("/")[2]: b.value() for b in result.family("launch")
            if b.name.startswith("launch/module/") and b.name.count("/") == 2}


def file_legend_labels(results: tuple[Result, Result]) -> list[str]:
    names = [r.path.name for r in results]
    if len(set(names)) < len(names):  # same file name in two folders
        names = [str(r.path) for r in results]
    return [f"{label}: {name} ({result.describe()})"
            for label, name, result in zip(FILE_LABELS, names, results)]


def set_scale(ax: Axes, axis: str, values: np.ndarray) -> None:
    """Log where positive values span a decade or more; symlog where zero is among them, with
    a tick at each value (a payload sweep: 0, 8, 256, ...), so 0 has a label of its own."""
    values = values[np.isfinite(values)]
    positive = values[values > 0]
    if positive.size < 2 or positive.max() / positive.min() < DECADE:
        return
    setter = ax.set_xscale if axis == "x" else ax.set_yscale
    if positive.size == values.size:
        setter("log")
        return
    setter("symlog", linthresh=float(positive.min()), linscale=0.5)
    ticks = np.unique(values)
    if ticks.size <= 10:
        set_ticks = ax.set_xticks if axis == "x" else ax.set_yticks
        set_ticks(ticks, [f"{t:g}" for t in ticks])
        set_ticks([], minor=True)


def draw_panel(ax: Axes, panel: Panel, colours: dict[str, tuple[float, ...]]) -> None:
    xs, ys = [], []
    for label, per_file in panel.series.items():
        for points, style in zip(per_file, FILE_STYLES):
            if points is None:
                continue
            x, y = points
            ax.plot(x, y, color=colours[label], markersize=4, lw=1.2, **style)
            xs.append(x)
            ys.append(y)
    set_scale(ax, "x", np.concatenate(xs).astype(float))
    set_scale(ax, "y", np.concatenate(ys).astype(float))
    ax.set(title=figure_text(panel.title), xlabel=panel.xlabel, ylabel=panel.ylabel)
    ax.grid(True, which="both", alpha=0.3)


def draw_module_bars(ax: Axes, costs: list[dict[str, float]]) -> None:
    steps = list(dict.fromkeys(step for per_file in costs for step in per_file))
    x = np.arange(len(steps))
    width = 0.4
    for index, (per_file, style) in enumerate(zip(costs, BAR_STYLES)):
        heights = [per_file.get(step, np.nan) for step in steps]
        ax.bar(x + (index - 0.5) * width, heights, width, **style)
    ax.set_xticks(x, [figure_text(step) for step in steps], rotation=20, ha="right")
    ax.set(title="module load and first launch", ylabel="time (µs)")
    set_scale(ax, "y", np.array([v for per_file in costs for v in per_file.values()]))
    ax.grid(True, axis="y", which="both", alpha=0.3)


def family_figure(results: tuple[Result, Result], family: str) -> Figure | None:
    panels = family_panels(results, family)
    modules = [module_costs(r) for r in results] if family == "launch" else []
    has_modules = any(modules)
    count = len(panels) + has_modules
    if count == 0:
        return None
    columns = min(count, 3)
    rows = -(-count // columns)
    width, height = (5.2, 4.2) if columns > 1 else (8.0, 5.0)
    fig = Figure(figsize=(width * columns, height * rows), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    labels = list(dict.fromkeys(label for p in panels for label in p.series))
    colours = colour_map(labels)
    for ax, panel in zip(axes, panels):
        draw_panel(ax, panel, colours)
    if has_modules:
        draw_module_bars(axes[len(panels)], modules)
    for ax in axes[count:]:
        ax.set_visible(False)

    file_labels = file_legend_labels(results)
    handles = [Line2D([], [], color=colours[label], lw=2, label=figure_text(label))
               for label in labels]
    handles += [Line2D([], [], color="black", label=figure_text(text, 160), **style)
                for text, style in zip(file_labels, FILE_STYLES)]
    if has_modules:
        handles += [Patch(label=f"{label} (bars)", **style)
                    for label, style in zip(FILE_LABELS, BAR_STYLES)]
    # Right of the axes (savefig's tight bounding box takes it in): a legend inside would
    # cover the data.
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
               frameon=False)
    fig.suptitle(f"{LAYOUTS[family].title}: BASE solid, NEW dashed")
    return fig


def write_figures(comparison: Comparison, directory: Path) -> list[Path]:
    results = (comparison.base, comparison.cont)
    written = []
    for family in LAYOUTS:
        if not (results[0].family(family) or results[1].family(family)):
            continue
        fig = family_figure(results, family)
        if fig is None:
            continue
        path = directory / f"{family}.png"
        save_figure(fig, path, dpi=100, bbox_inches="tight")
        written.append(path)
    return written


def report_markdown(comparison: Comparison, figures: list[Path], only_changed: bool) -> str:
    blocks = [*header_section(comparison, True, title="gpubench report", level=1),
              *summary_section(comparison, True), *context_section(comparison, True),
              *only_in_one_section(comparison, True)]
    if figures:
        blocks.append("### Figures")
        blocks += [f"![{path.stem}]({path.name})" for path in figures]
    blocks.append("### Benchmarks")
    for title, table in family_tables(comparison, True, only_changed):
        # Folded: a suite is hundreds of rows; the summary above is what is read first.
        body = table if table is not None else "No benchmark changed."
        blocks.append(f"<details><summary>{title}</summary>\n\n{body}\n\n</details>")
    blocks += [*paired_section(comparison, True), *notes_section(comparison),
               verdict_line(comparison)]
    return "\n\n".join(blocks) + "\n"


def output_directory(path: Path) -> Path:
    """The report's folder, created if its parent exists; OSError with a one-line reason
    otherwise."""
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(20, "exists and is not a directory", str(path))
    if not path.parent.is_dir():
        raise FileNotFoundError(2, f"its parent {path.parent} is not a directory", str(path))
    path.mkdir(exist_ok=True)
    return path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path, metavar="BASE.json")
    parser.add_argument("contender", type=Path, metavar="NEW.json")
    parser.add_argument("-o", "--output-dir", type=Path, required=True, metavar="DIR",
                        help="folder for report.md and the figures (created if its parent "
                             "exists)")
    add_comparison_options(parser)
    parser.add_argument("--report", action="store_true",
                        help="no regression check even when GPU, driver and CUDA match")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(errors="backslashreplace")
    try:
        base, cont = load_pair(args.baseline, args.contender, args.filter)
        comparison = compare(base, cont, rules_from(args), args.report, args.filter)
        directory = output_directory(args.output_dir)
        figures = write_figures(comparison, directory)
        report = directory / "report.md"
        # A lone surrogate in a name (JSON "\\ud800") is written as that escape.
        report.write_text(report_markdown(comparison, figures, args.only_changed),
                          encoding="utf-8", errors="backslashreplace")
        write_stdout("".join(f"wrote {path}\n" for path in [*figures, report])
                     + verdict_line(comparison) + "\n")
    except (GpubenchJsonError, OSError) as error:
        return script_error(SCRIPT, error)
    except FilterError as error:
        return script_error(SCRIPT, f"--filter={error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
