"""Inline SVG charts for the HTML pages: scales, axes, curves with their spread, ratio panels.

Every chart of a family is drawn on that family's scales (`Scale`), so panels side by side
compare at a glance, in the report and the gallery alike. Arguments are on a log2 axis labelled
in KiB/MiB/GiB (bytes) or powers of two (elements), or, where 0 is among them, evenly spaced
with each value labelled; figures on a log axis where they span a decade or more, else linear
from 0. Every element drawn for a run carries the class `run-<index>`, so the page can hide a
run. Text passes through `html_page.esc` only.
"""

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from gpubench_tools.renderers.figures.family_plot import binary_size, power_of_two
from gpubench_tools.renderers.html_page import esc

# tab10, the colour of each run in order.
RUN_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf")
WIDTH, CURVE_HEIGHT, RATIO_HEIGHT = 360, 200, 110
LEFT, RIGHT, TOP, BOTTOM = 56, 26, 8, 34
DECADE = 10.0
# A ratio axis spans at least this far either side of 1.
SMALLEST_RATIO_SPAN = 1.1
RATIO_TICKS = (1.02, 1.05, 1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1e3, 1e4)
MAX_X_LABELS = 6


def colour(run: int) -> str:
    return RUN_COLOURS[run % len(RUN_COLOURS)]


def argument_text(value: float, unit: str) -> str:
    return binary_size(value) if unit == "bytes" else (
        power_of_two(value) if value > 0 else f"{value:g}")


@dataclass(frozen=True)
class Scale:
    """Where values fall along an axis: log (base 10 for figures, 2 for arguments), linear, or
    evenly spaced by `categories`."""
    low: float
    high: float
    kind: str  # "log", "linear" or "categories"
    categories: tuple[float, ...] = ()

    def fraction(self, value: float) -> float:
        if self.kind == "categories":
            index = self.categories.index(value)
            return (index + 0.5) / len(self.categories)
        if self.kind == "log":
            low, high, value = math.log(self.low), math.log(self.high), math.log(value)
        else:
            low, high = self.low, self.high
        return 0.5 if high == low else (value - low) / (high - low)

    def contains(self, value: float) -> bool:
        if self.kind == "categories":
            return value in self.categories
        return math.isfinite(value) and (value > 0 or self.kind != "log")


def argument_scale(arguments: Iterable[int]) -> Scale:
    values = sorted(set(arguments))
    if values[0] <= 0:
        return Scale(values[0], values[-1], "categories", tuple(values))
    low, high = values[0], values[-1]
    if low == high:
        low, high = low / 2, high * 2
    return Scale(low, high, "log")


def figure_scale(values: Iterable[float]) -> Scale:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Scale(0.0, 1.0, "linear")
    low, high = min(finite), max(finite)
    if low > 0 and high / low >= DECADE:
        return Scale(10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high)), "log")
    step = nice_step(max(high, 0) - min(low, 0))
    return Scale(min(0.0, math.floor(low / step) * step), max(step, math.ceil(high / step) * step),
                 "linear")


def ratio_scale(ratios: Iterable[float]) -> Scale:
    sizes = [abs(math.log(r)) for r in ratios if math.isfinite(r) and r > 0]
    extent = max([math.log(SMALLEST_RATIO_SPAN), *sizes]) * 1.08
    return Scale(math.exp(-extent), math.exp(extent), "log")


def nice_step(extent: float, ticks: int = 5) -> float:
    if extent <= 0 or not math.isfinite(extent):
        return 1.0
    raw = extent / ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def figure_ticks(scale: Scale) -> list[float]:
    if scale.kind == "log":
        first, last = round(math.log10(scale.low)), round(math.log10(scale.high))
        subs = (1, 2, 5) if last - first <= 2 else (1,)
        return [m * 10.0 ** e for e in range(first, last + 1) for m in subs
                if scale.low <= m * 10.0 ** e <= scale.high * (1 + 1e-9)]
    step = nice_step(scale.high - scale.low)
    count = int(round((scale.high - scale.low) / step))
    return [scale.low + i * step for i in range(count + 1)]


def argument_ticks(scale: Scale) -> list[float]:
    if scale.kind == "categories":
        every = max(1, math.ceil(len(scale.categories) / MAX_X_LABELS))
        return list(scale.categories[::every])
    first = math.ceil(math.log2(scale.low))
    last = math.floor(math.log2(scale.high))
    every = max(1, math.ceil((last - first + 1) / MAX_X_LABELS))
    every = next(s for s in (1, 2, 4, 5, 10, 20, 30, 60) if s >= every)
    return [2.0 ** e for e in range(first, last + 1) if e % every == 0]


def ratio_ticks(scale: Scale) -> list[float]:
    """1 and the largest round ratio inside the axis, either way."""
    inside = [t for t in RATIO_TICKS if t <= scale.high][-1:]
    return sorted([1.0, *inside, *(1 / t for t in inside)])


def ratio_text(ratio: float) -> str:
    """A ratio tick: 1.25× above 1, 1/1.25 below (as far from 1 as the tick above it)."""
    return f"{ratio:.3g}×" if ratio >= 1 else f"1/{1 / ratio:.3g}"


@dataclass(frozen=True)
class Frame:
    """A plot area inside an SVG of `height`."""
    height: int
    x: Scale
    y: Scale

    def px(self, value: float) -> float:
        return LEFT + self.x.fraction(value) * (WIDTH - LEFT - RIGHT)

    def py(self, value: float) -> float:
        fraction = min(max(self.y.fraction(value), -0.05), 1.05)  # off-scale: at the edge
        return self.height - BOTTOM - fraction * (self.height - TOP - BOTTOM)


def _n(value: float) -> str:
    return f"{value:.1f}"


def axes(frame: Frame, x_ticks: Sequence[float], x_label: Callable[[float], str],
         y_ticks: Sequence[float], y_label: Callable[[float], str], y_title: str,
         x_title: str) -> list[str]:
    bottom, top = frame.height - BOTTOM, TOP
    out = [f'<rect class="plot" x="{LEFT}" y="{top}" width="{WIDTH - LEFT - RIGHT}" '
           f'height="{bottom - top}"/>']
    for t in y_ticks:
        y = _n(frame.py(t))
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>'
                   f'<text class="tick" x="{LEFT - 4}" y="{y}" text-anchor="end" '
                   f'dominant-baseline="middle">{esc(y_label(t))}</text>')
    for t in x_ticks:
        x = _n(frame.px(t))
        out.append(f'<line class="grid" x1="{x}" x2="{x}" y1="{top}" y2="{bottom}"/>'
                   f'<text class="tick" x="{x}" y="{bottom + 12}" text-anchor="middle">'
                   f'{esc(x_label(t))}</text>')
    out.append(f'<text class="axis" x="{(LEFT + WIDTH - RIGHT) / 2}" y="{frame.height - 4}" '
               f'text-anchor="middle">{esc(x_title)}</text>')
    out.append(f'<text class="axis" transform="translate(11 {(top + bottom) / 2}) rotate(-90)" '
               f'text-anchor="middle">{esc(y_title)}</text>')
    return out


@dataclass(frozen=True)
class DrawnPoint:
    argument: float
    value: float
    low: float
    high: float
    tip: str  # the tooltip: what the point is, in words


@dataclass(frozen=True)
class DrawnRun:
    run: int  # index of the run: its colour and class
    points: list[DrawnPoint]
    hollow: tuple[bool, ...] = ()  # per point: drawn hollow (a ratio the verdict calls SAME)


def svg(height: int, body: list[str], label: str) -> str:
    return (f'<svg viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
            f'role="img" aria-label="{esc(label)}">' + "".join(body) + "</svg>")


def curve_chart(frame: Frame, runs: list[DrawnRun], unit: str, y_title: str, x_title: str,
                label: str) -> str:
    """Each run's curve over its band (smallest to largest repetition), a dot per point."""
    body = axes(frame, argument_ticks(frame.x), lambda v: argument_text(v, unit),
                figure_ticks(frame.y), lambda v: f"{v:g}", y_title, x_title)
    for run in runs:
        body += _run_marks(frame, run, band=True)
    return svg(frame.height, body, label)


def ratio_chart(frame: Frame, runs: list[DrawnRun], unit: str, y_title: str, x_title: str,
                label: str) -> str:
    """Each later run against the first: how many times better, 1 at the middle."""
    body = axes(frame, argument_ticks(frame.x), lambda v: argument_text(v, unit),
                ratio_ticks(frame.y), ratio_text, y_title, x_title)
    y_one = _n(frame.py(1.0))
    body.append(f'<line class="one" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y_one}" '
                f'y2="{y_one}"/>')
    for run in runs:
        body += _run_marks(frame, run, band=False)
    return svg(frame.height, body, label)


def _run_marks(frame: Frame, run: DrawnRun, band: bool) -> list[str]:
    points = [p for p in run.points if frame.x.contains(p.argument)
              and frame.y.contains(p.value)]
    if not points:
        return []
    c = colour(run.run)
    out = [f'<g class="run-{run.run}" stroke="{c}" fill="{c}">']
    if band and any(p.high > p.low for p in points):
        upper = [f"{_n(frame.px(p.argument))},{_n(frame.py(p.high))}" for p in points]
        lower = [f"{_n(frame.px(p.argument))},{_n(frame.py(max(p.low, frame.y.low)))}"
                 if frame.y.kind == "log" else
                 f"{_n(frame.px(p.argument))},{_n(frame.py(p.low))}" for p in reversed(points)]
        out.append(f'<polygon class="band" points="{" ".join(upper + lower)}"/>')
    if len(points) > 1:
        line = " ".join(f"{_n(frame.px(p.argument))},{_n(frame.py(p.value))}" for p in points)
        out.append(f'<polyline class="line" points="{line}"/>')
    hollow = dict(zip(run.points, run.hollow))
    for p in points:
        style = ' class="hollow"' if hollow.get(p, False) else ""
        out.append(f'<circle{style} cx="{_n(frame.px(p.argument))}" '
                   f'cy="{_n(frame.py(p.value))}" r="2.6"><title>{esc(p.tip)}</title></circle>')
    out.append("</g>")
    return out
