"""The figure of one family, as gpubench-tools plot and report draw it to PNG and the HTML pages
draw it to SVG: the same panels (panels.py), axes (scales.py) and marks (panel_drawing.py).

family_figure draws every panel of a family in one figure, its legend in a cell of its own;
panel_figure draws one panel with its own legend, as a page shows it. Given a comparison's
ratios, each panel is drawn twice side by side: the ratios to the first file with their
resolution band first, the values beside them.
"""

import hashlib
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from gpubench_tools.reading.facts import FamilyFacts
from gpubench_tools.reading.results import Result
from gpubench_tools.renderers.figures.panel_drawing import (
    FILLS,
    Ratios,
    Style,
    draw_ratios,
    draw_values,
    style_keys,
    styles,
)
from gpubench_tools.renderers.figures.panels import (
    RATIOS,
    SWEEP,
    Panel,
    Source,
    family_panels,
)
from gpubench_tools.renderers.figures.setup import figure_text

PANEL_SIZE_IN = (5.2, 4.3)
# The height of one row of dots, and the least a panel of them takes.
DOT_ROW_IN = 0.32
# What one figure can show legibly: more panels or colours than these are refused, not drawn.
MAX_PANELS = 24
# Characters of a legend line: a file's label wraps over lines, within the legend's cell.
LEGEND_LINE = 38
# The longest figure title drawn, wrapped over lines: a family's grammar and the files' labels.
TITLE_LIMIT = 480
MAX_SERIES = 128
# The most families one run draws, a figure each: gpubench has five, and each figure takes about a
# quarter of a second and 3 MB, all of them drawn before any is written; a file of a benchmark a
# family within the loader's limits would hold tens of thousands (hours of drawing).
MAX_FAMILIES = 64
# A family name that is also a safe file name: its figure is <family>.png.
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


class PlotError(Exception):
    """Nothing useful can be drawn or written; str() is the one-line message."""


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


def check_panels(panels: int, title: str) -> None:
    if panels > MAX_PANELS:
        raise PlotError(f"{title}: {panels} panels, more than the {MAX_PANELS} a figure holds "
                        "(--filter selects fewer benchmarks)")


def check_families(families: Sequence[str]) -> None:
    if len(families) > MAX_FAMILIES:
        raise PlotError(f"{len(families)} families, more than the {MAX_FAMILIES} figures one run "
                        "draws (--filter selects fewer benchmarks)")


def check_series(looks: dict[str, Style], title: str) -> None:
    if len(looks) - 1 > MAX_SERIES:  # the neutral style of a row without variants aside
        raise PlotError(f"{title}: {len(looks) - 1} series, more than the {MAX_SERIES} a "
                        "figure holds (--filter selects fewer benchmarks)")


def panel_height(panel: Panel) -> float:
    """Inches a panel's axes take: a row of dots each, at least a sweep's."""
    if panel.kind == SWEEP:
        return PANEL_SIZE_IN[1]
    rows = {label.rpartition("/")[0] or label for label in panel.curves}
    return max(PANEL_SIZE_IN[1] * 0.75, DOT_ROW_IN * len(rows) + 1.6)


def grid(heights: list[float], title: str, ncols: int) -> tuple[Figure, list[Axes], Axes]:
    """A figure of one axes per entry of `heights` (inches), `ncols` a row, and one more cell,
    off, for the legend: a legend there covers no data however many series there are."""
    cells = len(heights) + 1
    ncols = min(cells, ncols)
    nrows = math.ceil(cells / ncols)
    rows = [max(heights[r * ncols:(r + 1) * ncols] or [PANEL_SIZE_IN[1]]) for r in range(nrows)]
    fig = Figure(figsize=(PANEL_SIZE_IN[0] * ncols, sum(rows) + 0.6), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False,
                             gridspec_kw={"height_ratios": rows}).flat)
    for unused in axes[cells:]:
        unused.remove()
    legend_ax = axes[len(heights)]
    legend_ax.axis("off")
    if title:
        # Wrapped to the figure's width (about nine characters an inch at 13 points): a
        # family's grammar is longer than one line of the figure.
        line = max(40, int(fig.get_figwidth() * 9))
        fig.suptitle(textwrap.fill(figure_text(title, TITLE_LIMIT), line), fontsize=13)
    return fig, axes[:len(heights)], legend_ax


def legends(ax: Axes, sections: list[tuple[str, list[object], list[str]]],
            fontsize: float = 8) -> None:
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
    legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, 1.0),
                       fontsize=fontsize, frameon=False, handlelength=3.2)
    for index in headings:
        legend.get_texts()[index].set_fontweight("bold")


def legend_sections(panels: list[Panel], sources: Sequence[Source], looks: dict[str, Style],
                    compared: bool) -> list[tuple[str, list[object], list[str]]]:
    keys = [k for k in looks if k]
    sections: list[tuple[str, list[object], list[str]]] = [
        ("series", [Line2D([], [], color=looks[k].colour, marker=looks[k].marker, lw=2)
                    for k in keys], [figure_text(k, 60) for k in keys])]
    if len(sources) > 1:
        dots = any(p.kind != SWEEP for p in panels)
        sections.append(("file", [
            Line2D([], [], color="black", linestyle=s.linestyle, marker="o" if dots else None,
                   fillstyle=FILLS[s.index % len(FILLS)], markerfacecolor="black")
            for s in sources], [textwrap.fill(figure_text(s.label, 120), LEGEND_LINE)
                                for s in sources]))
    if compared:
        sections.append(("ratio to the first file", [
            Patch(facecolor="0.5", alpha=0.3),
            Line2D([], [], color="black", marker="o", markerfacecolor="white", linestyle="none")],
            ["band: the change the verdict can resolve", "hollow: SAME"]))
    return sections


Decorate = Callable[[Axes, Panel, dict[str, Style]], None]


def draw_panel(axes: list[Axes], panel: Panel, sources: Sequence[Source],
               looks: dict[str, Style], ratios: Ratios | None,
               decorate: Decorate | None) -> None:
    """The panel on `axes`: [ratios, values] for a comparison, [values] otherwise."""
    title = figure_text(panel.title)
    if len(axes) == 2:
        draw_ratios(axes[0], panel, sources, looks, ratios or {})
        axes[0].set_title(f"{title}: ratio to the first", fontsize=10)
    values = axes[-1]
    draw_values(values, panel, sources, looks)
    if decorate is not None and panel.kind == SWEEP:
        decorate(values, panel, looks)
    values.set_title(title, fontsize=10)
    if len(axes) == 2 and panel.kind == SWEEP:
        axes[0].set_xlim(values.get_xlim())  # the ratios at the arguments of the values
    for ax in axes:
        if ax.axison:
            ax.grid(True, which="major", alpha=0.35)
            ax.grid(True, which="minor", alpha=0.12)


def comparable(panel: Panel, ratios: Ratios | None) -> bool:
    """Whether the panel has ratios to the first file to draw: a benchmark of it compared."""
    if not ratios or panel.kind == RATIOS:
        return False
    return any(name in rows for rows in ratios.values() for name in panel.names())


def family_figure(sources: list[Source], family: str, title: str,
                  decorate: Decorate | None = None,
                  ratios: Ratios | None = None) -> Figure | None:
    """The figure of `family` over the sources that hold its benchmarks; None where none does.
    `decorate` draws more on each panel of curves (gpubench-tools plot's fits), given the
    curves' styles; `ratios` makes it a comparison, each panel's ratios beside its values."""
    sources = [s for s in sources if s.result.family(family)]
    panels = family_panels(sources, family)
    if not panels:
        return None
    looks = styles(k for p in panels for k in style_keys(p))
    check_series(looks, title)
    check_panels(len(panels), title)  # a panel of a comparison takes two cells
    cells = [(p, n) for p in panels for n in range(2 if comparable(p, ratios) else 1)]
    fig, axes, legend_ax = grid([panel_height(p) for p, _ in cells], title,
                                4 if ratios else 3)
    at = 0
    for panel in panels:
        count = 2 if comparable(panel, ratios) else 1
        draw_panel(axes[at:at + count], panel, sources, looks, ratios, decorate)
        at += count
    legends(legend_ax, legend_sections(panels, sources, looks,
                                       any(comparable(p, ratios) for p in panels)))
    return fig


def panel_figure(panel: Panel, sources: list[Source], ratios: Ratios | None) -> Figure:
    """One panel as a page shows it: its ratios to the first file (for a comparison), its
    values, and its own legend to the right."""
    looks = styles(style_keys(panel))
    check_series(looks, panel.title)
    count = 2 if comparable(panel, ratios) else 1
    width, height = 4.6, panel_height(panel) * 0.8
    fig = Figure(figsize=(width * count + 2.4, height), layout="constrained")
    axes = list(fig.subplots(1, count + 1, squeeze=False,
                             gridspec_kw={"width_ratios": [width] * count + [2.4]}).flat)
    axes[-1].axis("off")
    draw_panel(axes[:-1], panel, sources, looks, ratios, None)
    legends(axes[-1], legend_sections([panel], sources, looks, count == 2), fontsize=7)
    return fig
