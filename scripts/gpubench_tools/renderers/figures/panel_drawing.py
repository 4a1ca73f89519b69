"""One panel drawn on matplotlib axes: its values, and for a comparison its ratios to the first
file as the main view beside them.

- A sweep's curves overlay, each variant its colour and marker, each file its line style, the
  spread of the repetitions a band; the L2 size a dotted line where the panel shows it.
- Dots: a row per curve, read left to right on the figure's axis; a row's variants (its last
  name component) side by side in their colours and markers, each file its marker fill; the
  spread or interval a bar. Never a rotated name under a bar.
- A comparison: each later file's ratio to the first (how many times better) per point, with
  the band of its resolution (the smallest change the verdict can resolve there) around it; a
  point the verdict calls SAME hollow; 1 a line.
Every artist of a file carries the gid run-<index>, so a page can show or hide a file.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.axes import Axes

from gpubench_tools.models.comparison import SAME, Row
from gpubench_tools.renderers.figures.panels import DOTS, RATIOS, SWEEP, Panel, Source, Trace
from gpubench_tools.renderers.figures.scales import (
    argument_axis,
    argument_text,
    binary_size,
    ratio_axis,
    value_axis,
)
from gpubench_tools.renderers.figures.setup import figure_text

# Each later file's comparison rows against the first, by the file's position and benchmark.
Ratios = dict[int, dict[str, Row]]
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p")
# A file's marker fill, in the order of the files: half filled, not hollow, which marks SAME.
FILLS = ("full", "left", "bottom", "right", "top", "none")
NEUTRAL = (0.25, 0.25, 0.25, 1.0)
ROW_SPAN = 0.55  # of the space between two rows, shared by the dots of one row


@dataclass(frozen=True)
class Style:
    colour: tuple[float, ...]
    marker: str


def distinct_colours(count: int) -> list[tuple[float, ...]]:
    """`count` colours no two of which are alike: tab10, then tab20's lighter shades after its
    ten darker ones, then evenly spaced samples of a perceptually ordered map."""
    if count <= 10:
        return list(matplotlib.colormaps["tab10"].colors[:count])
    if count <= 20:
        tab20 = matplotlib.colormaps["tab20"].colors
        return list(tab20[0::2] + tab20[1::2])[:count]
    return [tuple(c) for c in matplotlib.colormaps["turbo"](np.linspace(0.05, 0.95, count))]


def styles(keys: Iterable[str]) -> dict[str, Style]:
    """A colour and a marker per variant; "" (a row of no variants) neutral."""
    unique = [k for k in dict.fromkeys(keys) if k]
    found = {k: Style(c, MARKERS[i % len(MARKERS)])
             for i, (k, c) in enumerate(zip(unique, distinct_colours(len(unique))))}
    return found | {"": Style(NEUTRAL, "o")}


def row_and_variant(panel: Panel, label: str, x: float) -> tuple[str, str]:
    """A dot's row and variant: the curve's last name component is its variant where it has
    several (launch/floor's measure), the argument where the panel's dots have several (the
    payload of a paired ratio)."""
    row, _, last = label.rpartition("/")
    variant = last if row else ""
    row = row or label
    if np.unique(panel.arguments()).size > 1:
        at = argument_text(x, panel.argument_unit)
        variant = f"{variant} {at}".strip()
    return row, variant


def style_keys(panel: Panel) -> list[str]:
    if panel.kind == SWEEP:
        return list(panel.curves)
    return [row_and_variant(panel, label, x)[1] for label, per_file in panel.curves.items()
            for t in per_file.values() for x in t.x]


def positions(panel: Panel) -> list[float] | None:
    """Where a sweep's arguments lie on its x axis: evenly spaced where one is 0, else None
    (the arguments themselves on a log axis)."""
    unique = np.unique(panel.arguments())
    return None if unique.min() > 0 else list(unique)


def shown_x(x: np.ndarray, evenly: list[float] | None) -> np.ndarray:
    return x if evenly is None else np.array([evenly.index(v) for v in x], dtype=float)


def file_index(sources: Sequence[Source]) -> dict[str, Source]:
    return {s.label: s for s in sources}


def draw_values(ax: Axes, panel: Panel, sources: Sequence[Source],
                looks: dict[str, Style]) -> None:
    if panel.kind == SWEEP:
        draw_sweep(ax, panel, sources, looks)
    else:
        draw_dots(ax, panel, sources, looks,
                  [(label, file, t.x, t.y, t.low, t.high, None)
                   for label, per_file in panel.curves.items() for file, t in per_file.items()])
        values = [v for t in panel.traces() for v in np.concatenate([t.y, t.low, t.high])]
        if panel.kind == RATIOS:
            ratio_axis(ax, values, "path ÷ reference (below 1: cheaper)", axis="x")
        else:
            value_axis(ax, values, panel.metric, axis="x")
            if panel.argument is not None:
                ax.set_title(f"at {figure_text(panel.argument_key or 'argument')} "
                             f"{argument_text(panel.arguments()[0], panel.argument_unit)}",
                             fontsize=8, loc="right")



def draw_sweep(ax: Axes, panel: Panel, sources: Sequence[Source],
               looks: dict[str, Style]) -> None:
    index = file_index(sources)
    evenly = argument_axis(ax, panel.argument_unit, panel.argument_key, panel.arguments())
    for label, per_file in panel.curves.items():
        look = looks[label]
        for file_label, t in per_file.items():
            source = index[file_label]
            i = source.index
            x = shown_x(t.x, evenly)
            if (t.high > t.low).any():
                band = ax.fill_between(x, t.low, t.high, color=look.colour, alpha=0.15, lw=0)
                band.set_gid(f"run-{i}")
            (line,) = ax.plot(x, t.y, color=look.colour, marker=look.marker, markersize=4,
                              linestyle=source.linestyle, lw=1.3)
            line.set_gid(f"run-{i}")
    value_axis(ax, [v for t in panel.traces() for v in np.concatenate([t.y, t.low, t.high])],
               panel.metric)
    if evenly is None:
        mark_l2(ax, panel)


def draw_dots(ax: Axes, panel: Panel, sources: Sequence[Source], looks: dict[str, Style],
              points: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                 list[bool] | None]]) -> None:
    """`points`: (curve, file, arguments, values, lows, highs, hollow per point or None); a
    row per curve's row, its dots side by side."""
    index = file_index(sources)
    slots: dict[str, list[tuple[str, str]]] = {}
    for label, file_label, xs, *_ in points:
        for x in xs:
            row, variant = row_and_variant(panel, label, x)
            slot = (variant, file_label)
            if slot not in slots.setdefault(row, []):
                slots[row].append(slot)
    rows = list(slots)
    for label, file_label, xs, ys, lows, highs, hollow in points:
        i = index[file_label].index
        for j, (x, y, low, high) in enumerate(zip(xs, ys, lows, highs)):
            row, variant = row_and_variant(panel, label, x)
            within = slots[row]
            k = within.index((variant, file_label))
            offset = 0.0 if len(within) == 1 else (k / (len(within) - 1) - 0.5) * ROW_SPAN
            look = looks[variant]
            if hollow is None:
                fill = FILLS[i % len(FILLS)]
            else:  # a ratio: hollow where the verdict is SAME, whichever the file
                fill = "none" if hollow[j] else "full"
            position = rows.index(row) + offset
            error = [[max(y - low, 0.0)], [max(high - y, 0.0)]] if high > low else None
            drawn = ax.errorbar([y], [position], xerr=error, color=look.colour,
                                marker=look.marker, markersize=5, fillstyle=fill,
                                markerfacecolor="white" if fill == "none" else look.colour,
                                linestyle="none", elinewidth=1.0, capsize=2)
            data_line, caps, bars = drawn.lines
            for artist in (data_line, *caps, *bars):
                artist.set_gid(f"run-{i}")
    ax.set_yticks(range(len(rows)), [figure_text(r, 40) for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.grid(True, axis="y", alpha=0.2)


def mark_l2(ax: Axes, panel: Panel) -> None:
    """A dotted vertical line at each file's L2 size that the panel shows, labelled with it
    (and with the files, where they differ)."""
    values = sorted(set(panel.l2_bytes.values()))
    sizes = panel.arguments()
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


def ratio_point(row: Row | None) -> tuple[float, float, float, bool] | None:
    """(ratio, band low, band high, SAME) of a compared benchmark; None where it has no ratio
    to draw (absent, or a figure of 0 on one side)."""
    if row is None or not (math.isfinite(row.ratio) and row.ratio > 0):
        return None
    resolution = 1 + (row.resolution_pct / 100 if math.isfinite(row.resolution_pct) else 0)
    return row.ratio, row.ratio / resolution, row.ratio * resolution, row.verdict == SAME


def compared(trace: Trace, rows: dict[str, Row]) -> tuple[np.ndarray, ...]:
    """A trace's points that have a ratio: arguments, ratios, band lows, band highs, SAME."""
    found = [(x, *p) for x, name in zip(trace.x, trace.names)
             if (p := ratio_point(rows.get(name))) is not None]
    return tuple(np.array(column) for column in zip(*found)) if found else ()


def draw_ratios(ax: Axes, panel: Panel, sources: Sequence[Source], looks: dict[str, Style],
                ratios: Ratios) -> bool:
    """Each later file's ratio to the first, with its resolution band; False where the panel
    has none to draw (a panel of paired ratios, or no benchmark compared, a figure of 0)."""
    if panel.kind == RATIOS:
        return False
    index = file_index(sources)
    drawn: list[tuple[str, str, Trace, tuple[np.ndarray, ...]]] = []
    for label, per_file in panel.curves.items():
        for file_label, t in per_file.items():
            i = index[file_label].index
            if i > 0 and i in ratios and (found := compared(t, ratios[i])):
                drawn.append((label, file_label, t, found))
    if not drawn:
        return False
    values = [v for *_, found in drawn for column in found[1:4] for v in column]
    title = "× better than the first file"
    if panel.kind == DOTS:
        draw_dots(ax, panel, sources, looks,
                  [(label, file, x, r, lo, hi, list(same))
                   for label, file, _, (x, r, lo, hi, same) in drawn])
        ratio_axis(ax, values, title, axis="x")
        return True
    evenly = argument_axis(ax, panel.argument_unit, panel.argument_key, panel.arguments())
    for label, file_label, _, (x, r, lo, hi, same) in drawn:
        i = index[file_label].index
        look = looks[label]
        shown = shown_x(x, evenly)
        band = ax.fill_between(shown, lo, hi, color=look.colour, alpha=0.15, lw=0)
        (line,) = ax.plot(shown, r, color=look.colour, linestyle=index[file_label].linestyle,
                          lw=1.3)
        filled = ~same.astype(bool)
        marks = [ax.plot(shown[m], r[m], linestyle="none", marker=look.marker, markersize=4.5,
                         color=look.colour, markerfacecolor=face)[0]
                 for m, face in ((filled, look.colour), (~filled, "white")) if m.any()]
        for artist in (band, line, *marks):
            artist.set_gid(f"run-{i}")
    ratio_axis(ax, values, title)
    if evenly is None:
        mark_l2(ax, panel)
    return True
