#!/usr/bin/env python3
"""Plot gpubench results: copy bandwidth, launch cost and saxpy bandwidth, one PNG each.

Each figure is faceted by family and measure: copy by direction, launch by measure plus module
loading, saxpy by GB/s and % of the measured ceiling. Within a figure a colour is one path
(memory/api, launch API, saxpy variant); with several result files each file has its own line
style and marker, named by its file stem. Axes are logarithmic where values span a decade or more.

Also fits t(s) = t0 + s/B to every copy path, prints t0, B and s_half = t0*B and writes that
table to DIR/copy_fit.txt. Device-to-device copies are fitted only above the L2 size (the
context's l2_bytes): smaller copies are served from L2 and would pull B above what memory gives.

Names from the files are drawn as text, cut to 80 characters. A figure holds at most 12 panels
and 128 series (--filter selects fewer); a file none of whose benchmarks is drawn gets one line
on stderr.

Exit status: 0 figures written, 2 unusable input, nothing to plot, more than a figure holds, or
an unwritable DIR.
"""

import argparse
import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import figure_setup  # noqa: F401  (before matplotlib: the backend, mathtext off)
import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from gpubench_json import (GBPS, LAUNCH_US, US_PER_COPY, GpubenchJsonError, Metric,
                           OneLineArgumentParser, Result, load, script_error, write_stdout)
from figure_setup import figure_text, save_figure
from name_filter import FilterError, NameFilter, name_filter
from latency_bandwidth import LatencyBandwidthFit, fit_latency_bandwidth
from safe_text import ascii_decimal, one_line
from text_table import render

FAMILIES = ("copy", "launch", "saxpy", "peer")
FIGURE_NAMES = {"copy": "copy_bandwidth.png", "launch": "launch_cost.png",
                "saxpy": "saxpy_bandwidth.png", "peer": "peer_bandwidth.png"}
PEER_MATRIX_NAME = "peer_matrix.png"
PEER_MODE_TITLES = {
    "read": "read: the destination GPU pulls",
    "write": "write: the source GPU pushes",
    "bidir": "bidir: both GPUs push at once (summed)",
}
FIT_TABLE_NAME = "copy_fit.txt"
# Dashed is kept for the copy fits, so no file is drawn dashed.
FILE_LINESTYLES = ("-", ":", "-.", (0, (8, 2, 1, 2, 1, 2)), (0, (1, 4)), (0, (6, 3)))
FILE_MARKERS = ("o", "s", "^", "D", "v", "P")
FILE_HATCHES = ("", "//", "..", "xx", "\\\\", "++")
DIRECTION_TITLES = {
    "HtoD": "HtoD: host to device",
    "DtoH": "DtoH: device to host",
    "bidir": "bidir: HtoD + DtoH at once (summed)",
    "DtoD": "DtoD: device to device (read + write)",
    "HtoH": "HtoH: host memcpy",
}
LAUNCH_MEASURE_TITLES = {
    "submit": "submit: host time per launch",
    "throughput": "throughput: launches + final sync",
    "roundtrip": "roundtrip: launch + sync",
}
# Copies that never leave the device, so the L2 can hold them.
L2_RESIDENT_DIRECTIONS = ("DtoD",)
PANEL_SIZE_IN = (5.2, 4.3)
PCT_OF_PEAK = Metric("pct_of_peak", "%", 1.0, True)
DPI = 110
# What one figure can show legibly: more panels or colours than these are refused, not drawn.
MAX_PANELS = 12
MAX_SERIES = 128
MAX_MATRIX_GPUS = 32
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Source:
    """One result file as drawn: its data, its legend label and its line style."""
    result: Result
    label: str
    linestyle: str | tuple[int, tuple[int, ...]]
    marker: str
    hatch: str


@dataclass(frozen=True)
class CopySeries:
    direction: str
    path: str  # host memory/api, e.g. pinned/async
    source: Source
    sizes_bytes: np.ndarray
    gbps: np.ndarray
    fit: LatencyBandwidthFit | None
    fitted_sizes: str  # which sizes the fit used, or why there is none
    counted_per_copied: float  # bytes the bandwidth counts per byte copied (2 for DtoD, bidir)


class PlotError(Exception):
    """Nothing useful can be drawn or written; str() is the one-line message."""


def sweeps(result: Result, family: str, metric: Metric) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(sizes, values) per series of `family`, where the last name component is the size
    (bytes, N or params:bytes) and the components between name the series."""
    points: dict[str, list[tuple[int, float]]] = {}
    for bench in result.family(family):
        parts = bench.name.split("/")
        size = ascii_decimal(parts[-1].removeprefix("params:"))
        if len(parts) >= 3 and size is not None and metric.key in bench.values:
            points.setdefault("/".join(parts[1:-1]), []).append((size, bench.value(metric)))
    by_series = {}
    for series, pts in points.items():
        sizes, values = zip(*sorted(pts))
        by_series[series] = (np.array(sizes), np.array(values))
    return by_series


def file_labels(paths: list[Path]) -> list[str]:
    """Short legend labels: the file stem, with as many parent folders as tell files apart."""
    for depth in range(1, max(len(p.parts) for p in paths) + 1):
        labels = ["/".join(p.with_suffix("").parts[-depth:]) for p in paths]
        if len(set(labels)) == len(labels):
            return labels
    return [str(p) for p in paths]  # the same path given twice


def make_sources(results: list[Result]) -> list[Source]:
    if len(results) > len(FILE_LINESTYLES):
        raise PlotError(f"at most {len(FILE_LINESTYLES)} result files can share a figure "
                        f"and stay distinguishable; got {len(results)}")
    labels = file_labels([r.path for r in results])
    return [Source(r, label, FILE_LINESTYLES[i], FILE_MARKERS[i], FILE_HATCHES[i])
            for i, (r, label) in enumerate(zip(results, labels))]


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


def l2_bytes(result: Result) -> int | None:
    value = ascii_decimal(str(result.context.get("l2_bytes", "")))
    return value if value else None


def copy_series(sources: list[Source]) -> list[CopySeries]:
    series = []
    for source in sources:
        times_us = sweeps(source.result, "copy", US_PER_COPY)
        for name, (sizes, gbps) in sweeps(source.result, "copy", GBPS).items():
            direction, _, path = name.partition("/")
            counted = sizes.astype(float)
            seconds = counted / (gbps * 1e9)
            if name in times_us and np.array_equal(times_us[name][0], sizes):
                # The measured time per copy, against the bytes the bandwidth counts (DtoD and
                # bidir count two per byte copied): t0 is then the real fixed cost, and B is in
                # the plotted bandwidth's units so the fit overlays the data.
                seconds = times_us[name][1] * 1e-6
                counted = gbps * 1e9 * seconds
            fit, fitted = fit_copy(direction, sizes, counted, seconds, l2_bytes(source.result))
            ratio = float(np.median(counted / sizes)) if sizes.min() > 0 else 1.0
            series.append(CopySeries(direction, path, source, sizes, gbps, fit, fitted, ratio))
    return series


def fit_copy(direction: str, sizes: np.ndarray, counted: np.ndarray, seconds: np.ndarray,
             l2: int | None) -> tuple[LatencyBandwidthFit | None, str]:
    """The fit of one copy path and a description of the sizes it used."""
    usable = np.ones(sizes.size, dtype=bool)
    if direction in L2_RESIDENT_DIRECTIONS:
        if l2 is None:
            return None, "none: no l2_bytes in the context"
        usable = sizes > l2
    fit = fit_latency_bandwidth(counted[usable], seconds[usable])
    if fit is None:
        above = f" above L2 ({binary_size(l2)})" if l2 and direction in L2_RESIDENT_DIRECTIONS else ""
        return None, f"none: fewer than 2 sizes{above}"
    span = f"{binary_size(sizes[usable].min())}..{binary_size(sizes[usable].max())}"
    if direction in L2_RESIDENT_DIRECTIONS:
        span += f" (> L2, {binary_size(l2)})"
    return fit, span


def fit_table(series: list[CopySeries]) -> str:
    several_files = len({s.source.label for s in series}) > 1
    headers = ["copy path: t(s) = t0 + s/B"] + (["file"] if several_files else []) + [
        "sizes fitted", "t0 (µs)", "B (GB/s)", "s½ = t0·B (bytes)", "GB/s at largest size"]
    rows = []
    for s in series:
        row = [f"{s.direction}/{s.path}"] + ([s.source.label] if several_files else [])
        row.append(s.fitted_sizes)
        if s.fit is None:
            row += ["-", "-", "-"]
        else:
            row += [f"{s.fit.t0_s * 1e6:.2f}", f"{s.fit.bandwidth_bytes_per_s * 1e-9:.1f}",
                    f"{s.fit.half_bandwidth_bytes:.0f}"]
        row.append(f"{s.gbps[-1]:.1f}")
        rows.append(row)
    return render(headers, rows)


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


def grid(panels: int, title: str) -> tuple[Figure, list[Axes], Axes]:
    """A figure of `panels` data axes and one more cell, off, for the legends: a legend there
    covers no data however many series there are."""
    check_panels(panels, title)
    ncols = min(panels + 1, 3)
    nrows = math.ceil((panels + 1) / ncols)
    # On one row the legend has a column of its own, narrower than a panel.
    widths = [1.0] * panels + [0.5] if nrows == 1 else [1.0] * ncols
    fig = Figure(figsize=(PANEL_SIZE_IN[0] * sum(widths), PANEL_SIZE_IN[1] * nrows + 0.6),
                 layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False,
                             gridspec_kw={"width_ratios": widths}).flat)
    for unused in axes[panels + 1:]:
        unused.remove()
    legend_ax = axes[panels]
    legend_ax.axis("off")
    fig.suptitle(title, fontsize=13)
    return fig, axes[:panels], legend_ax


def check_panels(panels: int, title: str) -> None:
    if panels > MAX_PANELS:
        raise PlotError(f"{title}: {panels} panels, more than the {MAX_PANELS} a figure holds "
                        "(--filter selects fewer benchmarks)")


def check_series(colours: dict[str, tuple[float, ...]], title: str) -> None:
    if len(colours) > MAX_SERIES:
        raise PlotError(f"{title}: {len(colours)} series, more than the {MAX_SERIES} a figure "
                        "holds (--filter selects fewer benchmarks)")


def size_axis(ax: Axes, label: str, formatter: Callable[[float], str], rotation: float = 0) -> None:
    """Log x axis of sizes: a labelled tick every 16x, unlabelled ticks every 4x between."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=16))
    ax.xaxis.set_minor_locator(LogLocator(base=16, subs=(4.0,)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: formatter(v)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="x", labelrotation=rotation)
    ax.set_xlabel(label)


def value_axis(ax: Axes, values: Iterable[float], label: str) -> None:
    """Log y where the values span a decade or more (a graph launch's 0.02 µs beside the 3.5 µs
    of the others), linear otherwise; tick labels are plain numbers either way."""
    finite = np.array([v for v in values if np.isfinite(v) and v > 0])
    ax.set_ylabel(label)
    if finite.size < 2 or finite.max() / finite.min() < 10:
        return
    ax.set_yscale("log")
    decades = math.log10(finite.max() / finite.min())
    subs = (1.0, 2.0, 5.0) if decades <= 4 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


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
    legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, 1.0), fontsize=9,
                       frameon=False, handlelength=3.2,
                       handler_map={tuple: HandlerTuple(ndivide=None)})
    for index in headings:
        legend.get_texts()[index].set_fontweight("bold")


def colour_handles(colours: dict[str, tuple[float, ...]]) -> tuple[list[object], list[str]]:
    return ([Line2D([], [], color=c, lw=2.5) for c in colours.values()],
            [figure_text(key) for key in colours])


def file_handles(sources: list[Source], bars: bool = False) -> tuple[list[object], list[str]]:
    if len(sources) < 2:
        return [], []
    handles: list[object] = []
    for s in sources:
        line = Line2D([], [], color="black", linestyle=s.linestyle, marker=s.marker)
        handles.append((line, Patch(facecolor="0.75", edgecolor="black", hatch=s.hatch))
                       if bars else line)
    return handles, [figure_text(s.label) for s in sources]


def plot_copy(series: list[CopySeries], sources: list[Source]) -> Figure:
    directions = list(dict.fromkeys(s.direction for s in series))
    colours = colour_map(s.path for s in series)
    check_series(colours, "Copy bandwidth")
    fig, axes, legend_ax = grid(len(directions), "Copy bandwidth against copy size")
    for ax, direction in zip(axes, directions):
        in_panel = [s for s in series if s.direction == direction]
        for s in in_panel:
            colour = colours[s.path]
            ax.plot(s.sizes_bytes, s.gbps, color=colour, linestyle=s.source.linestyle,
                    marker=s.source.marker, markersize=3.5, lw=1.4)
            if s.fit:
                dense = np.geomspace(max(float(s.sizes_bytes.min()), 1.0),
                                     float(s.sizes_bytes.max()), 200)
                # The fit is in counted bytes; draw it against the copy size on the x axis.
                ax.plot(dense, s.fit.bytes_per_second(dense * s.counted_per_copied) * 1e-9,
                        color=colour, linestyle="--", lw=0.9, alpha=0.9)
        l2 = {l2_bytes(s.source.result) for s in in_panel} - {None}
        if direction in L2_RESIDENT_DIRECTIONS and len(l2) == 1:
            (size,) = l2
            ax.axvline(size, color="0.4", lw=0.8, linestyle=(0, (2, 2)))
            ax.annotate(f"L2 {binary_size(size)}", (size, 0.02), xycoords=("data", "axes fraction"),
                        xytext=(-3, 0), textcoords="offset points", ha="right", fontsize=8,
                        color="0.3")
        ax.set_title(DIRECTION_TITLES.get(direction, figure_text(direction)), fontsize=10)
        size_axis(ax, "copy size", binary_size, rotation=35)
        value_axis(ax, np.concatenate([s.gbps for s in in_panel]), "bandwidth (GB/s)")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    fit_handle = [Line2D([], [], color="0.3", linestyle="--", lw=0.9)]
    legends(legend_ax, [
        ("host memory / API", *colour_handles(colours)),
        ("file", *file_handles(sources)),
        ("", fit_handle, [f"fit t = t0 + s/B ({FIT_TABLE_NAME})"]),
    ])
    return fig


def plot_launch(sources: list[Source]) -> Figure:
    measures: dict[str, dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]] = {}
    for source in sources:
        for series, (params, us) in sweeps(source.result, "launch", LAUNCH_US).items():
            path, _, measure = series.rpartition("/")
            if path != "module":
                measures.setdefault(measure, {})[(path, source.label)] = (params, us)
    module = {s.label: costs for s in sources if (costs := module_costs(s.result))}
    panels = len(measures) + bool(module)
    fig, axes, legend_ax = grid(panels, "Launch cost: µs per launch (median batch)")
    colours = colour_map(path for by_path in measures.values() for path, _ in by_path)
    check_series(colours, "Launch cost")
    style = {s.label: s for s in sources}

    for ax, (measure, by_path) in zip(axes, measures.items()):
        payloads = sorted({int(p) for params, _ in by_path.values() for p in params})
        position = {p: i for i, p in enumerate(payloads)}
        for (path, label), (params, us) in by_path.items():
            ax.plot([position[int(p)] for p in params], us, color=colours[path],
                    linestyle=style[label].linestyle, marker=style[label].marker, markersize=4)
        # Payloads are a handful of chosen sizes: evenly spaced, each labelled.
        ax.xaxis.set_major_locator(FixedLocator(list(range(len(payloads)))))
        ax.set_xticklabels([str(p) for p in payloads])
        ax.set_xlabel("kernel parameter payload (bytes)")
        ax.set_title(LAUNCH_MEASURE_TITLES.get(measure, figure_text(measure)), fontsize=10)
        value_axis(ax, np.concatenate([us for _, us in by_path.values()]), "µs per launch")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)

    if module:
        plot_module(axes[-1], module, style)
    legends(legend_ax, [("launch API", *colour_handles(colours)),
                        ("file", *file_handles(sources, bars=bool(module)))])
    return fig


def plot_module(ax: Axes, module: dict[str, dict[str, float]], style: dict[str, Source]) -> None:
    """One bar per (step, file): getting a kernel ready, from a cubin load to a PTX JIT."""
    steps = list(dict.fromkeys(step for costs in module.values() for step in costs))
    x = np.arange(len(steps))
    width = 0.8 / len(module)
    for index, (label, costs) in enumerate(module.items()):
        heights = [costs.get(step, np.nan) for step in steps]
        bars = ax.bar(x + (index - (len(module) - 1) / 2) * width, heights, width,
                      color="0.72", edgecolor="black", lw=0.6, hatch=style[label].hatch)
        ax.bar_label(bars, labels=[duration(h) for h in heights], fontsize=7, padding=1)
    all_us = [us for costs in module.values() for us in costs.values()]
    # Fixed limits: log autoscaling of bars that share one height is singular; the headroom
    # keeps the value labels inside the axes.
    ax.set(yscale="log", ylim=(min(all_us) / 3, max(all_us) * 6))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xticks(x, [figure_text(step) for step in steps], rotation=20, ha="right")
    ax.set_ylabel("µs")
    ax.set_title("getting a kernel ready (module load, JIT, first launch)", fontsize=10)
    ax.grid(True, axis="y", which="major", alpha=0.3)


def duration(us: float) -> str:
    if not np.isfinite(us):
        return ""
    return f"{us / 1000:#.3g} ms" if us >= 1000 else f"{us:#.3g} µs"


def module_costs(result: Result) -> dict[str, float]:
    return {b.name.split("/")[2]: b.value() for b in result.family("launch")
            if b.name.startswith("launch/module/") and b.name.count("/") == 2}


def plot_saxpy(sources: list[Source]) -> Figure:
    fig, (gbps_ax, pct_ax), legend_ax = grid(2, "saxpy: y = a·x + y, 12 bytes per element")
    variants = {s.label: sweeps(s.result, "saxpy", GBPS) for s in sources}
    colours = colour_map(v for by_variant in variants.values() for v in by_variant)
    check_series(colours, "saxpy")
    ceilings: list[tuple[Source, float]] = []
    for source in sources:
        for variant, (n, gbps) in variants[source.label].items():
            kwargs = dict(color=colours[variant], linestyle=source.linestyle,
                          marker=source.marker, markersize=3.5)
            gbps_ax.plot(n, gbps, **kwargs)
            pct = sweeps(source.result, "saxpy", PCT_OF_PEAK).get(variant)
            if pct is not None:
                pct_ax.plot(*pct, **kwargs)
        peaks = [b.values["peak_bytes_per_second"] for b in source.result.family("saxpy")
                 if "peak_bytes_per_second" in b.values]
        if peaks:
            ceiling = float(np.median(peaks)) * 1e-9
            ceilings.append((source, ceiling))
            gbps_ax.axhline(ceiling, color="black", lw=1.0, linestyle=source.linestyle)
    pct_ax.axhline(100, color="black", lw=1.0)

    gbps_ax.set_title("bandwidth (black: measured DtoD ceiling)", fontsize=10)
    value_axis(gbps_ax, np.concatenate([g for by_v in variants.values() for _, g in by_v.values()]
                                       + [np.array([c for _, c in ceilings])]),
               "bandwidth (GB/s)")
    pct_ax.set_title("% of the measured DtoD ceiling", fontsize=10)
    pct_ax.set_ylabel("% of ceiling")
    pct_ax.set_ylim(0, 110)
    for ax in (gbps_ax, pct_ax):
        size_axis(ax, "N (elements)", power_of_two)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    several = len(sources) > 1
    ceiling_labels = [f"{ceiling:.0f} GB/s" + (f" ({figure_text(s.label)})" if several else "")
                      for s, ceiling in ceilings]
    ceiling_handles = [Line2D([], [], color="black", linestyle=s.linestyle) for s, _ in ceilings]
    legends(legend_ax, [("variant", *colour_handles(colours)),
                        ("file", *file_handles(sources)),
                        ("measured DtoD ceiling", ceiling_handles, ceiling_labels)])
    return fig



def peer_pairs(result: Result) -> dict[tuple[str, str], dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]]:
    """(engine, mode) -> (source, destination) -> (sizes, GB/s), from peer/<engine>/<mode>/<s>to<d>."""
    pairs: dict[tuple[str, str], dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]] = {}
    for series, sweep in sweeps(result, "peer", GBPS).items():
        engine, mode, pair = (series.split("/") + ["", "", ""])[:3]
        source_text, _, destination_text = pair.partition("to")
        source, destination = ascii_decimal(source_text), ascii_decimal(destination_text)
        if source is not None and destination is not None:
            pairs.setdefault((engine, mode), {})[(source, destination)] = sweep
    return pairs


def plot_peer(sources: list[Source]) -> Figure:
    """Peer bandwidth against copy size: a panel per mode, a colour per engine and pair."""
    by_source = {s.label: peer_pairs(s.result) for s in sources}
    modes = list(dict.fromkeys(mode for pairs in by_source.values() for _, mode in pairs))
    keys = [f"{engine} {src}→{dst}" for pairs in by_source.values()
            for (engine, _), by_pair in pairs.items() for src, dst in by_pair]
    colours = colour_map(keys)
    check_series(colours, "Peer copies")
    fig, axes, legend_ax = grid(len(modes), "Peer copies: bandwidth against copy size")
    for ax, mode in zip(axes, modes):
        values = []
        for source in sources:
            for (engine, m), by_pair in by_source[source.label].items():
                if m != mode:
                    continue
                for (src, dst), (sizes, gbps) in by_pair.items():
                    ax.plot(sizes, gbps, color=colours[f"{engine} {src}→{dst}"],
                            linestyle=source.linestyle, marker=source.marker, markersize=3.5)
                    values.append(gbps)
        ax.set_title(PEER_MODE_TITLES.get(mode, figure_text(mode)), fontsize=10)
        size_axis(ax, "copy size", binary_size, rotation=35)
        value_axis(ax, np.concatenate(values), "bandwidth (GB/s)")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    legends(legend_ax, [("engine, source → destination", *colour_handles(colours)),
                        ("file", *file_handles(sources))])
    return fig


def plot_peer_matrix(source: Source) -> Figure:
    """The bandwidth matrix at the largest size measured: GB/s, source × destination, one panel
    per engine and mode."""
    pairs = peer_pairs(source.result)
    panels = list(pairs)
    check_panels(len(panels), "Peer bandwidth matrix")
    ncols = min(len(panels), 3)
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(4.6 * ncols, 4.0 * nrows + 0.6), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).flat)
    for unused in axes[len(panels):]:
        unused.remove()
    largest = min(int(sizes.max()) for by_pair in pairs.values() for sizes, _ in by_pair.values())
    fig.suptitle(f"Peer bandwidth (GB/s) at {binary_size(largest)}: source × destination "
                 f"({figure_text(source.label)})", fontsize=12)
    for ax, (engine, mode) in zip(axes, panels):
        by_pair = pairs[(engine, mode)]
        gpus = sorted({g for pair in by_pair for g in pair})
        if len(gpus) > MAX_MATRIX_GPUS:
            raise PlotError(f"Peer bandwidth matrix: {len(gpus)} GPUs, more than the "
                            f"{MAX_MATRIX_GPUS} a matrix holds (--filter selects fewer)")
        matrix = np.full((len(gpus), len(gpus)), np.nan)
        for (src, dst), (sizes, gbps) in by_pair.items():
            at = np.flatnonzero(sizes == largest)
            if at.size:
                matrix[gpus.index(src), gpus.index(dst)] = gbps[at[0]]
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.88")
        image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=0)
        for (i, j), value in np.ndenumerate(matrix):
            dark = not np.isnan(value) and value < np.nanmax(matrix) / 2
            ax.text(j, i, "—" if np.isnan(value) else f"{value:.0f}", ha="center", va="center",
                    color="white" if dark else "black", fontsize=10)
        ax.set_xticks(range(len(gpus)), [f"GPU{g}" for g in gpus])
        ax.set_yticks(range(len(gpus)), [f"GPU{g}" for g in gpus])
        ax.set_xlabel("destination")
        ax.set_ylabel("source")
        ax.set_title(figure_text(f"{engine} / {mode}"), fontsize=10)
        fig.colorbar(image, ax=ax, shrink=0.8, label="GB/s")
    return fig


def select(result: Result, pattern: NameFilter | None) -> Result:
    if pattern is None:
        return result
    kept = {name: result.benchmarks[name] for name in pattern.select(result.benchmarks)}
    return Result(result.path, result.context, kept)


def draw(sources: list[Source], output_dir: Path) -> list[str]:
    """Write every figure there is data for; returns a note for each file none of whose
    benchmarks is drawn."""
    present = {family: [s for s in sources if s.result.family(family)] for family in FAMILIES}
    notes = [f"plot.py: {s.result.path}: no copy, launch, saxpy or peer benchmark; not drawn"
             for s in sources if not any(s in with_family for with_family in present.values())]
    if not any(present.values()):
        files = ", ".join(str(s.result.path) for s in sources)
        raise PlotError(f"nothing to plot: no copy, launch, saxpy or peer benchmark in {files}")
    prepare(output_dir)

    if present["copy"]:
        series = copy_series(present["copy"])
        table = fit_table(series)
        write_stdout(table + "\n")
        write_text(output_dir / FIT_TABLE_NAME, table + "\n")
        save(plot_copy(series, present["copy"]), output_dir / FIGURE_NAMES["copy"])
    if present["launch"]:
        save(plot_launch(present["launch"]), output_dir / FIGURE_NAMES["launch"])
    if present["saxpy"]:
        save(plot_saxpy(present["saxpy"]), output_dir / FIGURE_NAMES["saxpy"])
    if present["peer"]:
        save(plot_peer(present["peer"]), output_dir / FIGURE_NAMES["peer"])
        # One matrix, of the first file with peer copies: matrices of several files do not overlay.
        save(plot_peer_matrix(present["peer"][0]), output_dir / PEER_MATRIX_NAME)
    return notes


def prepare(output_dir: Path) -> None:
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PlotError(f"{output_dir}: exists and is not a folder") from None
    except OSError as e:
        raise PlotError(f"{output_dir}: cannot create the output folder ({e.strerror})") from None


def check_replaceable(path: Path) -> None:
    """An output file may replace a file, not a FIFO (writing would wait for a reader) or a
    device."""
    if (path.exists() or path.is_symlink()) and not path.is_file():
        raise PlotError(f"{path}: exists and is not a regular file")


def write_text(path: Path, text: str) -> None:
    check_replaceable(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise PlotError(f"{path}: cannot write ({e.strerror})") from None
    write_stdout(f"wrote {path}\n")


def save(fig: Figure, path: Path) -> None:
    check_replaceable(path)
    try:
        save_figure(fig, path, dpi=DPI)
    except OSError as e:
        raise PlotError(f"{path}: cannot write ({e.strerror})") from None
    write_stdout(f"wrote {path}\n")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json",
                        help="gpubench JSON (Google Benchmark --benchmark_out_format=json)")
    parser.add_argument("-o", "--output-dir", type=Path, required=True, metavar="DIR",
                        help="folder for the PNGs and copy_fit.txt (created if missing)")
    parser.add_argument("--filter", metavar="REGEX",
                        help="plot only benchmarks whose name (without Google Benchmark's "
                             "suffixes) this regular expression matches, e.g. '^copy/(HtoD|DtoH)'")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        pattern = name_filter(args.filter) if args.filter is not None else None
        results = [select(load(path), pattern) for path in args.results]
        if pattern is not None and not any(r.benchmarks for r in results):
            raise PlotError(f"--filter={args.filter} matches no benchmark")
        notes = draw(make_sources(results), args.output_dir)
    except PlotError as e:
        return script_error("plot.py", str(e))
    except (GpubenchJsonError, OSError) as e:
        return script_error("plot.py", e)
    except FilterError as e:
        return script_error("plot.py", f"--filter={e}")
    for note in notes:
        print(one_line(note), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
