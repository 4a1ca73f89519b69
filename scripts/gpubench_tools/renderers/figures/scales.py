"""The axes of every figure: each in its family's unit, each fitted to the data it shows.

An argument in bytes is labelled in whole units (4 KiB, 1 MiB) and as a whole number of bytes
where no unit divides it (32764 B, never 31.9961 KiB); one in elements as a power of two; one
whose unit the file does not declare as a plain number, its axis saying so. A figure axis is
logarithmic where its values are all above 0 and span a decade or more, linear otherwise, and
either way spans the data it shows, not a range shared with other panels: 55.3 against 51.5 GB/s
reads as the 7% it is. A ratio axis is centred on its data and 1, labelled in ×.
"""

import math
from collections.abc import Iterable

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    LogFormatter,
    LogLocator,
    MaxNLocator,
    NullFormatter,
)

from gpubench_tools.reading.facts import Metric
from gpubench_tools.renderers.figures.setup import figure_text

_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
# The axis of ratios turns logarithmic where its data spans more than this factor.
RATIO_LOG_SPAN = 2.0
# The ticks of a logarithmic axis of ratios: round ratios either side of 1, the most shown.
RATIO_TICKS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.67, 0.8, 0.9, 1.0, 1.1,
               1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0)
MAX_RATIO_TICKS = 6


def binary_size(value: float) -> str:
    """4 -> '4 B', 65536 -> '64 KiB', 1.5 * 2**20 -> '1536 KiB', 32764 -> '32764 B': the largest
    unit that divides the size, so a label is the exact size."""
    if value > 0 and float(value).is_integer():
        for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
            if value >= 1 << shift and int(value) % (1 << shift) == 0:
                return f"{int(value) >> shift} {unit}"
        return f"{int(value)} B"
    return f"{value:g} B"


def power_of_two(value: float) -> str:
    exponent = math.log2(value) if value > 0 else math.nan
    return "2" + f"{exponent:.0f}".translate(_SUPERSCRIPTS) if exponent.is_integer() \
        else f"{value:g}"


def argument_text(value: float, unit: str) -> str:
    """An argument as a tick or a title shows it: bytes exactly, elements as powers of two, an
    argument of no declared unit ("") as the number, a power of two as one."""
    if unit == "bytes":
        return binary_size(value)
    return power_of_two(value) if value > 0 else f"{value:g}"


def value_label(metric: Metric) -> str:
    return f"{figure_text(metric.unit)} ({'higher' if metric.bigger_is_better else 'lower'} " \
           "is better)"


def argument_label(unit: str, key: str) -> str:
    """`unit` "" is an argument the file declares no unit for: its axis says so rather than
    calling a count of elements bytes."""
    if unit == "elements":
        return f"{figure_text(key) or 'N'} (elements)"
    if unit == "bytes":
        return f"{figure_text(key) or 'size'} (bytes)"
    return f"{figure_text(key) or 'argument'} (no unit in the file)"


def argument_axis(ax: Axes, unit: str, key: str, values: np.ndarray) -> list[float] | None:
    """The x axis of a sweep: log base 2 where every argument is > 0, a labelled tick every 16x
    (every 2x where the sweep spans less); where one is 0 (a payload of 0 bytes), the arguments
    evenly spaced, each labelled. Returns the positions of the arguments in the second case
    (None in the first)."""
    ax.set_xlabel(argument_label(unit, key))
    unique = np.unique(values)
    if unique.size and unique.min() > 0:
        ax.set_xscale("log", base=2)
        span = math.log2(unique.max() / unique.min())
        base = 16 if span > 12 else 4 if span > 6 else 2
        ax.xaxis.set_major_locator(LogLocator(base=base))
        ax.xaxis.set_minor_locator(LogLocator(base=2))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: argument_text(v, unit)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(axis="x", labelrotation=35)
        return None
    ax.xaxis.set_major_locator(FixedLocator(list(range(unique.size))))
    ax.set_xticklabels([argument_text(v, unit) for v in unique], rotation=35)
    ax.set_xlim(-0.5, unique.size - 0.5)
    return list(unique)


def value_axis(ax: Axes, values: Iterable[float], metric: Metric, axis: str = "y") -> None:
    """Log where the values are all above 0 and span a decade or more, linear otherwise (a log
    axis leaves out a value of 0 or below, which a family's own counter may be: a gap of 0 ns);
    either way fitted to the values, plain tick labels."""
    finite = np.array([v for v in values if np.isfinite(v)])
    scale = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(value_label(metric))
    if finite.size == 0:
        return
    low, high = float(finite.min()), float(finite.max())
    if low <= 0 or high / low < 10:
        pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
        (ax.set_ylim if axis == "y" else ax.set_xlim)(low - pad, high + pad)
        scale.set_major_locator(MaxNLocator(6))
        return
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    # Fixed limits a little outside the data: log autoscaling of equal values is singular.
    (ax.set_ylim if axis == "y" else ax.set_xlim)(low / 1.25, high * 1.25)
    decades = math.log10(high / low)
    subs = (1.0, 2.0, 5.0) if decades <= 2 else (1.0,)
    scale.set_major_locator(LogLocator(base=10, subs=subs))
    scale.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    # Minor ticks labelled where the axis spans too little for its decades to read it by, in
    # plain text: matplotlib's default writes mathtext, which text.parse_math leaves raw.
    scale.set_minor_formatter(LogFormatter(labelOnlyBase=False) if decades < 1.2
                              else NullFormatter())


def ratio_text(ratio: float) -> str:
    return f"{ratio:.3g}×"


def ratio_axis(ax: Axes, values: Iterable[float], label: str, axis: str = "y") -> None:
    """An axis of ratios: fitted to them and to 1 (drawn as a line), log where they span more
    than RATIO_LOG_SPAN, ticks in ×."""
    finite = [v for v in values if np.isfinite(v) and v > 0]
    low, high = min([1.0, *finite]), max([1.0, *finite])
    scale = ax.yaxis if axis == "y" else ax.xaxis
    set_limits = ax.set_ylim if axis == "y" else ax.set_xlim
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(label)
    (ax.axhline if axis == "y" else ax.axvline)(1.0, color="0.35", lw=0.9, zorder=1)
    if high / low > RATIO_LOG_SPAN:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        set_limits(low / 1.15, high * 1.15)
        inside = [t for t in RATIO_TICKS if low / 1.15 <= t <= high * 1.15]
        while len(inside) > MAX_RATIO_TICKS:  # every other, keeping 1
            at = inside.index(1.0)
            inside = inside[at % 2::2]
        scale.set_major_locator(FixedLocator(inside))
        scale.set_minor_formatter(NullFormatter())
    else:
        pad = (high - low) * 0.1 or 0.01
        set_limits(low - pad, high + pad)
        scale.set_major_locator(MaxNLocator(6))
    scale.set_major_formatter(FuncFormatter(lambda v, _: ratio_text(v)))
