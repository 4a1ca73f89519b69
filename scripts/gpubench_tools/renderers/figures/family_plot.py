"""The figure of one family, as gpubench-tools plot and gpubench-tools report draw it: the same panels, axes and labels.

Every benchmark the files hold is drawn, read by its family's facts (gpubench_json): a benchmark
with an argument is a point of a curve, one curve per series and device (`/device:N` its own
curve), one panel per figure the family's benchmarks carry and first series component (the whole
series where it has one component); benchmarks without an argument are bars, a panel per figure.
A benchmark's figures are its figure and each one its family declares with `panel` that it
carries (Benchmark.panel_metrics), a panel of its own beside the first.
The x axis is the argument (its unit from the facts: bytes as binary sizes, elements as powers
of two; a sweep holding 0 is evenly spaced), the y axis the figure in its unit, logarithmic where
the values are all above 0 and span a decade or more. An axis of sizes the facts declare in
bytes marks the device's L2 size (the context's l2_bytes) where its sizes reach it. A colour is
a curve, a line style and marker a file.
"""

import hashlib
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatter, LogLocator, NullFormatter

from gpubench_tools.reading.results import Argument, FamilyFacts, Metric, NameParts, Result
from gpubench_tools.renderers.figures.setup import figure_text

PANEL_SIZE_IN = (5.2, 4.3)
# What one figure can show legibly: more panels or colours than these are refused, not drawn.
MAX_PANELS = 12
# The longest figure title drawn, wrapped over lines: a family's grammar and the files' labels.
TITLE_LIMIT = 480
MAX_SERIES = 128
# The most families one run draws, a figure each: gpubench has five, and each figure takes about a
# quarter of a second and 3 MB, all of them drawn before any is written; a file of a benchmark a
# family within the loader's limits would hold tens of thousands (hours of drawing).
MAX_FAMILIES = 64
# A family name that is also a safe file name: its figure is <family>.png.
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class PlotError(Exception):
    """Nothing useful can be drawn or written; str() is the one-line message."""


@dataclass(frozen=True)
class Source:
    """One result file as drawn: its data, its legend label and its line style."""
    result: Result
    label: str
    linestyle: str | tuple[int, tuple[int, ...]]
    marker: str
    hatch: str


@dataclass
class Panel:
    """One axes: a figure, and per curve (series, device) each file's points."""
    title: str
    metric: Metric
    argument: Argument | None  # None: a panel of bars, one per benchmark without an argument
    argument_key: str = ""  # the key the names carry (params), for the axis label
    curves: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    # The L2 size of each file whose facts declare the argument in bytes, by the file's label.
    l2_bytes: dict[str, int] = field(default_factory=dict)


def curve_label(series: str, device: int | None) -> str:
    """A curve's name in a legend: its series, and the device where the name gives one."""
    return series if device is None else f"{series} (device:{device})"


def panel_and_curve(family: str, series: str, device: int | None) -> tuple[str, str]:
    """The panel (first series component, or the family for a one-component series) and the
    curve a swept benchmark is drawn in."""
    head, _, rest = series.partition("/")
    return (head, curve_label(rest, device)) if rest else (family, curve_label(series, device))


def family_panels(sources: list[Source], family: str) -> list[Panel]:
    """The panels of `family` over every source, in the order the benchmarks first appear."""
    panels: dict[tuple[str, Metric, bool], Panel] = {}
    for source in sources:
        facts = source.result.families.get(family)
        l2 = marked_l2(source.result, facts)
        for bench in source.result.family(family):
            figures = bench.panel_metrics
            for metric in figures:
                panel, label, x = panel_of(panels, family, facts, bench.parts, metric,
                                           metric == figures[0])
                if l2 is not None and panel.argument is not None:
                    panel.l2_bytes[source.label] = l2
                points = panel.curves.setdefault(label, {})
                xs, ys = points.get(source.label, (np.array([]), np.array([])))
                points[source.label] = (np.append(xs, x), np.append(ys, bench.value(metric)))
    for panel in panels.values():
        for per_file in panel.curves.values():
            for label, (xs, ys) in per_file.items():
                order = np.argsort(xs, kind="stable")
                per_file[label] = (xs[order], ys[order])
    return list(panels.values())


def panel_of(panels: dict[tuple[str, Metric, bool], Panel], family: str,
             facts: FamilyFacts | None, parts: NameParts, metric: Metric,
             first: bool) -> tuple[Panel, str, int]:
    """The panel a benchmark's figure is drawn in (added to `panels` where it is new; titled
    with the unit where the figure is not the benchmark's `first`), its curve and its x."""
    if parts.argument is None:
        key = ("", metric, False)
        title, label, x = "without an argument", curve_label(parts.series or family,
                                                             parts.device), 0
    else:
        title, label = panel_and_curve(family, parts.series, parts.device)
        key, x = (title, metric, True), parts.argument
    if key not in panels:
        argument = facts.argument if facts is not None and parts.argument is not None else None
        if parts.argument is not None and argument is None:
            argument = Argument("", "bytes")
        panels[key] = Panel(title if first else f"{title}: {metric.unit}", metric, argument,
                            parts.argument_key if argument else "")
    return panels[key], label, x


def marked_l2(result: Result, facts: FamilyFacts | None) -> int | None:
    """The L2 size a file's panels of the family mark: where its facts declare the argument in
    bytes (a file without facts may read a count of elements as bytes)."""
    if facts is None or not facts.declared or facts.argument is None \
            or facts.argument.unit != "bytes":
        return None
    return result.l2_bytes


def figure_file_name(family: str, index: int) -> str:
    """`<family>.png`, or `family<index>.png` for a name no file should carry (a NUL, a
    leading dot, hundreds of characters)."""
    return f"{family}.png" if _FILE_NAME.fullmatch(family) else f"family{index}.png"


def figure_stems(families: Iterable[str], suffixes: tuple[str, ...] = ("",)) -> list[str]:
    """A file stem per family, in order, such that no two families' files (stem + suffix +
    ".png" for each of `suffixes`) share a name, even on a file system that folds case: the stem
    of figure_file_name, or where a file of it is taken (a family `family1` beside one drawn to
    family1.png, `Copy` beside `copy`, `peer_pairs` beside the pairs of `peer`), that stem and
    the first 8 hex digits of the family name's SHA-256, then a count where that is taken too."""
    taken: set[str] = set()
    stems = []
    for index, family in enumerate(families):
        base = figure_file_name(family, index).removesuffix(".png")
        digest = hashlib.sha256(family.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        candidates = (base, f"{base}-{digest}",
                      *(f"{base}-{digest}-{n}" for n in range(2, len(taken) + 3)))
        stem = next(c for c in candidates
                    if not any(f"{c}{suffix}.png".casefold() in taken for suffix in suffixes))
        taken.update(f"{stem}{suffix}.png".casefold() for suffix in suffixes)
        stems.append(stem)
    return stems


def ordered_families(results: Iterable[Result]) -> dict[str, FamilyFacts]:
    """Every family of the results, in the first file's order of them, then the others'."""
    families: dict[str, FamilyFacts] = {}
    for result in results:
        for name, facts in result.families.items():
            families.setdefault(name, facts)
    return families


def distinct_colours(count: int) -> list[tuple[float, ...]]:
    """`count` colours no two of which are alike: tab10, then tab20's lighter shades after its
    ten darker ones, then evenly spaced samples of a perceptually ordered map."""
    if count <= 10:
        return list(matplotlib.colormaps["tab10"].colors[:count])
    if count <= 20:
        tab20 = matplotlib.colormaps["tab20"].colors
        return list(tab20[0::2] + tab20[1::2])[:count]
    return [tuple(c) for c in matplotlib.colormaps["turbo"](np.linspace(0.05, 0.95, count))]


def colour_map(keys: Iterable[str]) -> dict[str, tuple[float, ...]]:
    unique = list(dict.fromkeys(keys))
    return dict(zip(unique, distinct_colours(len(unique))))


def binary_size(value: float) -> str:
    """4 -> '4 B', 65536 -> '64 KiB', 1.5 * 2**20 -> '1.5 MiB'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if value >= 1 << shift:
            return f"{value / (1 << shift):g} {unit}"
    return f"{value:g} B"


def power_of_two(value: float) -> str:
    exponent = math.log2(value) if value > 0 else math.nan
    return "2" + f"{exponent:.0f}".translate(_SUPERSCRIPTS) if exponent.is_integer() \
        else f"{value:g}"


def value_label(metric: Metric) -> str:
    return f"{figure_text(metric.unit)} ({'higher' if metric.bigger_is_better else 'lower'} " \
           "is better)"


def argument_label(argument: Argument, key: str) -> str:
    if argument.unit == "elements":
        return f"{figure_text(key) or 'N'} (elements)"
    return f"{figure_text(key) or 'size'} (bytes)"


def check_panels(panels: int, title: str) -> None:
    if panels > MAX_PANELS:
        raise PlotError(f"{title}: {panels} panels, more than the {MAX_PANELS} a figure holds "
                        "(--filter selects fewer benchmarks)")


def check_families(families: Sequence[str]) -> None:
    if len(families) > MAX_FAMILIES:
        raise PlotError(f"{len(families)} families, more than the {MAX_FAMILIES} figures one run "
                        "draws (--filter selects fewer benchmarks)")


def check_series(colours: dict[str, tuple[float, ...]], title: str) -> None:
    if len(colours) > MAX_SERIES:
        raise PlotError(f"{title}: {len(colours)} series, more than the {MAX_SERIES} a figure "
                        "holds (--filter selects fewer benchmarks)")


def grid(panels: int, title: str) -> tuple[Figure, list[Axes], Axes]:
    """A figure of `panels` data axes and one more cell, off, for the legends: a legend there
    covers no data however many series there are."""
    check_panels(panels, title)
    ncols = min(panels + 1, 3)
    nrows = math.ceil((panels + 1) / ncols)
    widths = [1.0] * panels + [0.5] if nrows == 1 else [1.0] * ncols
    fig = Figure(figsize=(PANEL_SIZE_IN[0] * sum(widths), PANEL_SIZE_IN[1] * nrows + 0.6),
                 layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False,
                             gridspec_kw={"width_ratios": widths}).flat)
    for unused in axes[panels + 1:]:
        unused.remove()
    legend_ax = axes[panels]
    legend_ax.axis("off")
    # Wrapped to the figure's width (about nine characters an inch at 13 points): a family's
    # grammar is longer than one line of the figure.
    line = max(40, int(fig.get_figwidth() * 9))
    fig.suptitle(textwrap.fill(figure_text(title, TITLE_LIMIT), line), fontsize=13)
    return fig, axes[:panels], legend_ax


def argument_axis(ax: Axes, panel: Panel, values: np.ndarray) -> list[float] | None:
    """The x axis of a sweep: log base 2 with a labelled tick every 16x where every argument is
    > 0; where one is 0 (a payload of 0 bytes), the arguments evenly spaced, each labelled.
    Returns the positions of the arguments in the second case (None in the first)."""
    assert panel.argument is not None
    ax.set_xlabel(argument_label(panel.argument, panel.argument_key))
    unique = np.unique(values)
    formatter = power_of_two if panel.argument.unit == "elements" else binary_size
    if unique.size and unique.min() > 0:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(LogLocator(base=16))
        ax.xaxis.set_minor_locator(LogLocator(base=16, subs=(4.0,)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: formatter(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(axis="x", labelrotation=35)
        return None
    ax.xaxis.set_major_locator(FixedLocator(list(range(unique.size))))
    ax.set_xticklabels([f"{v:g}" for v in unique], rotation=35)
    return list(unique)


def value_axis(ax: Axes, values: Iterable[float], metric: Metric) -> None:
    """Log y where the values are all above 0 and span a decade or more, linear otherwise (a log
    axis leaves out a value of 0 or below, which a family's own counter may be: a gap of 0 ns);
    plain tick labels."""
    finite = np.array([v for v in values if np.isfinite(v)])
    ax.set_ylabel(value_label(metric))
    if finite.size < 2 or finite.min() <= 0 or finite.max() / finite.min() < 10:
        return
    ax.set_yscale("log")
    decades = math.log10(finite.max() / finite.min())
    subs = (1.0, 2.0, 5.0) if decades <= 4 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def draw_sweeps(ax: Axes, panel: Panel, sources: list[Source],
                colours: dict[str, tuple[float, ...]]) -> None:
    styles = {s.label: s for s in sources}
    xs = np.concatenate([x for per_file in panel.curves.values() for x, _ in per_file.values()])
    positions = argument_axis(ax, panel, xs)
    for label, per_file in panel.curves.items():
        for file_label, (x, y) in per_file.items():
            style = styles[file_label]
            shown = x if positions is None else [positions.index(v) for v in x]
            ax.plot(shown, y, color=colours[label], linestyle=style.linestyle,
                    marker=style.marker, markersize=3.5, lw=1.3)
    value_axis(ax, [v for per_file in panel.curves.values() for _, y in per_file.values()
                    for v in y], panel.metric)
    if positions is None:
        mark_l2(ax, panel, xs)


def mark_l2(ax: Axes, panel: Panel, sizes: np.ndarray) -> None:
    """A dotted vertical line at each file's L2 size that the panel's sizes reach, labelled with
    it (and with the files, where they differ)."""
    values = sorted(set(panel.l2_bytes.values()))
    for size in values:
        if not sizes.min() <= size <= sizes.max():
            continue
        files = [label for label, value in panel.l2_bytes.items() if value == size]
        text = f"GPU L2 {binary_size(size)}"
        if len(values) > 1:
            text += f" ({', '.join(files)})"
        ax.axvline(size, color="0.4", lw=0.8, linestyle=(0, (2, 2)))
        ax.annotate(figure_text(text, 80), (size, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(-3, 0), textcoords="offset points", ha="right", fontsize=8,
                    color="0.3")


def draw_bars(ax: Axes, panel: Panel, sources: list[Source]) -> None:
    """One bar per (benchmark, file), the benchmark's figure on a log axis, or a linear one
    where some bar is 0 or below (a log axis would leave it out)."""
    labels = list(panel.curves)
    x = np.arange(len(labels))
    width = 0.8 / len(sources)
    heights_all = []
    for index, source in enumerate(sources):
        heights = [float(panel.curves[label][source.label][1][0])
                   if source.label in panel.curves[label] else np.nan for label in labels]
        heights_all += [h for h in heights if np.isfinite(h)]
        ax.bar(x + (index - (len(sources) - 1) / 2) * width, heights, width, color="0.72",
               edgecolor="black", lw=0.6, hatch=source.hatch)
    if heights_all and min(heights_all) > 0:
        # Fixed limits: log autoscaling of bars that share one height is singular.
        ax.set(yscale="log", ylim=(min(heights_all) / 3, max(heights_all) * 3))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        # Minor ticks labelled where the axis spans too little for its decades to read it by,
        # in plain text: matplotlib's default writes mathtext, which text.parse_math leaves raw.
        ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False))
    ax.set_xticks(x, [figure_text(label, 40) for label in labels], rotation=30, ha="right",
                  fontsize=7)
    ax.set_ylabel(value_label(panel.metric))


def legends(ax: Axes, sections: list[tuple[str, list[object], list[str]]]) -> None:
    """One legend in the legend cell, its sections under bold headings."""
    handles: list[object] = []
    labels: list[str] = []
    headings = []
    for title, section_handles, section_labels in sections:
        if not section_handles:
            continue
        if handles:
            handles.append(Patch(visible=False))  # a blank line between sections
            labels.append(" ")
        if title:
            headings.append(len(labels))
            handles.append(Patch(visible=False))
            labels.append(title)
        handles += section_handles
        labels += section_labels
    legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, 1.0), fontsize=8,
                       frameon=False, handlelength=3.2,
                       handler_map={tuple: HandlerTuple(ndivide=None)})
    for index in headings:
        legend.get_texts()[index].set_fontweight("bold")


Decorate = Callable[[Axes, Panel, dict[str, tuple[float, ...]]], None]


def family_figure(sources: list[Source], family: str, title: str,
                  decorate: Decorate | None = None) -> Figure | None:
    """The figure of `family` over the sources that hold its benchmarks; None where none does.
    `decorate` draws more on each panel of curves (gpubench-tools plot's fits), given the curves' colours."""
    sources = [s for s in sources if s.result.family(family)]
    panels = family_panels(sources, family)
    if not panels:
        return None
    colours = colour_map(label for p in panels if p.argument is not None for label in p.curves)
    check_series(colours, title)
    fig, axes, legend_ax = grid(len(panels), title)
    for ax, panel in zip(axes, panels):
        if panel.argument is None:
            draw_bars(ax, panel, sources)
        else:
            draw_sweeps(ax, panel, sources, colours)
            if decorate is not None:
                decorate(ax, panel, colours)
        ax.set_title(figure_text(panel.title), fontsize=10)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    bars = any(p.argument is None for p in panels)
    file_handles: list[object] = []
    if len(sources) > 1:
        for s in sources:
            line = Line2D([], [], color="black", linestyle=s.linestyle, marker=s.marker)
            file_handles.append((line, Patch(facecolor="0.75", edgecolor="black", hatch=s.hatch))
                                if bars else line)
    legends(legend_ax, [
        ("curve", [Line2D([], [], color=c, lw=2.5) for c in colours.values()],
         [figure_text(key) for key in colours]),
        ("file", file_handles, [figure_text(s.label, 120) for s in sources] if file_handles
         else []),
    ])
    return fig
