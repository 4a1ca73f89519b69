#!/usr/bin/env python3
"""Plot gpubench results: copy bandwidth, launch cost and saxpy bandwidth, one PNG each.

Also fits t(s) = t0 + s/B to every copy path and prints t0, B and s_half = t0*B.
With several result files, series carry the GPU and driver so they can share axes.
"""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from gpubench_json import GBPS, LAUNCH_US, US_PER_COPY, GpubenchJsonError, Metric, Result, load
from latency_bandwidth import LatencyBandwidthFit, fit_latency_bandwidth
from text_table import render

# One result file and the text appended to its series labels.
Source = tuple[Result, str]


@dataclass(frozen=True)
class CopySeries:
    label: str  # direction/host memory/api, plus the file's suffix
    sizes_bytes: np.ndarray
    gbps: np.ndarray
    fit: LatencyBandwidthFit | None


def sweeps(result: Result, family: str, metric: Metric) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(sizes, values) per series of `family`, where the last name component is the size
    (bytes, N or params:bytes) and the components between name the series."""
    points: dict[str, list[tuple[int, float]]] = {}
    for bench in result.family(family):
        parts = bench.name.split("/")
        size = parts[-1].removeprefix("params:")
        if len(parts) >= 3 and size.isdigit() and metric.key in bench.values:
            points.setdefault("/".join(parts[1:-1]), []).append((int(size), bench.value(metric)))
    by_series = {}
    for series, pts in points.items():
        sizes, values = zip(*sorted(pts))
        by_series[series] = (np.array(sizes), np.array(values))
    return by_series


def file_suffixes(results: list[Result]) -> list[str]:
    if len(results) == 1:
        return [""]
    names = [r.describe() for r in results]
    if len(set(names)) < len(names):  # same GPU and driver twice: tell the files apart
        names = [f"{n}, {r.path}" for n, r in zip(names, results)]
    return [f" [{n}]" for n in names]


def copy_series(sources: list[Source]) -> list[CopySeries]:
    series = []
    for result, suffix in sources:
        times_us = sweeps(result, "copy", US_PER_COPY)
        for path, (sizes, gbps) in sweeps(result, "copy", GBPS).items():
            counted = sizes.astype(float)
            seconds = counted / (gbps * 1e9)
            if path in times_us and np.array_equal(times_us[path][0], sizes):
                # The measured time per copy, against the bytes the bandwidth counts (DtoD and
                # bidir count two per byte copied): t0 is then the real fixed cost, and B is in
                # the plotted bandwidth's units so the fit overlays the data.
                seconds = times_us[path][1] * 1e-6
                counted = gbps * 1e9 * seconds
            fit = fit_latency_bandwidth(counted, seconds)
            series.append(CopySeries(path + suffix, sizes, gbps, fit))
    return series


def fit_table(series: list[CopySeries]) -> str:
    rows = []
    for s in series:
        if s.fit is None:
            rows.append([s.label, "-", "-", "-"])
            continue
        rows.append([
            s.label,
            f"{s.fit.t0_s * 1e6:.2f}",
            f"{s.fit.bandwidth_bytes_per_s * 1e-9:.1f}",
            f"{s.fit.half_bandwidth_bytes:.0f}",
        ])
    return render(["copy path: t(s) = t0 + s/B", "t0 (µs)", "B (GB/s)", "s½ = t0·B (bytes)"], rows)


def plot_copy(series: list[CopySeries]) -> Figure:
    fig = Figure(figsize=(12, 7))
    ax = fig.add_subplot()
    for s in series:
        label = s.label
        if s.fit:
            label += (f"  (t0={s.fit.t0_s * 1e6:.2f} µs, "
                      f"B={s.fit.bandwidth_bytes_per_s * 1e-9:.1f} GB/s)")
        (line,) = ax.plot(s.sizes_bytes, s.gbps, marker="o", markersize=3, label=label)
        if s.fit:
            dense = np.geomspace(max(s.sizes_bytes.min(), 1), s.sizes_bytes.max(), 200)
            # The fit is in counted bytes; draw it against the copy size on the x axis.
            factor = float(np.median(s.gbps * 1e9 * s.fit.seconds(s.sizes_bytes) / s.sizes_bytes))
            ax.plot(dense, s.fit.bytes_per_second(dense * factor) * 1e-9, ls="--", lw=0.8,
                    color=line.get_color())
    ax.set(xscale="log", yscale="log", xlabel="copy size (bytes)", ylabel="bandwidth (GB/s)",
           title="Copy bandwidth (dashed: fit of t = t0 + s/B)")
    _finish(ax)
    return fig


def plot_launch(sources: list[Source]) -> Figure:
    module_costs = {"module" + sfx: costs for r, sfx in sources if (costs := _module_costs(r))}
    fig = Figure(figsize=(19 if module_costs else 13, 6))
    axes = fig.subplots(1, 3 if module_costs else 2)

    at_zero: dict[str, dict[str, float]] = {}
    for result, suffix in sources:
        for series, (params, us) in sweeps(result, "launch", LAUNCH_US).items():
            path, _, measure = series.rpartition("/")
            if 0 in params:
                at_zero.setdefault(measure + suffix, {})[path] = float(us[params == 0][0])
            axes[1].plot(params, us, marker="o", markersize=3, label=series + suffix)
    _grouped_bars(axes[0], at_zero)
    axes[0].set(ylabel="µs per launch", title="Launch cost at params:0")
    # symlog: payloads run from 0 to tens of KiB.
    axes[1].set_xscale("symlog", linthresh=64)
    axes[1].set(xlabel="kernel parameter payload (bytes)", ylabel="µs per launch",
                title="Launch cost vs parameter payload")
    _finish(axes[1])

    if module_costs:
        all_us = [us for per_file in module_costs.values() for us in per_file.values()]
        # Fixed limits: log autoscaling of bars that share one height is singular.
        axes[2].set(yscale="log", ylim=(min(all_us) / 3, max(all_us) * 3), ylabel="µs",
                    title="Module load and first launch")
        _grouped_bars(axes[2], module_costs)
    return fig


def plot_saxpy(sources: list[Source]) -> Figure:
    fig = Figure(figsize=(11, 6))
    ax = fig.add_subplot()
    for index, (result, suffix) in enumerate(sources):
        for variant, (n, gbps) in sweeps(result, "saxpy", GBPS).items():
            ax.plot(n, gbps, marker="o", markersize=3, label=variant + suffix)
        peaks = [b.values["peak_bytes_per_second"] for b in result.family("saxpy")
                 if "peak_bytes_per_second" in b.values]
        if peaks:
            ceiling_gbps = float(np.median(peaks)) * 1e-9
            ax.axhline(ceiling_gbps, color="black", lw=1, ls=("--", ":", "-.")[index % 3],
                       label=f"measured DtoD ceiling{suffix}: {ceiling_gbps:.0f} GB/s")
    ax.set(xscale="log", xlabel="N (elements)", ylabel="bandwidth (GB/s)",
           title="saxpy bandwidth")
    _finish(ax)
    return fig


def _module_costs(result: Result) -> dict[str, float]:
    return {b.name.split("/")[2]: b.value() for b in result.family("launch")
            if b.name.startswith("launch/module/") and b.name.count("/") == 2}


def _grouped_bars(ax: Axes, bars: dict[str, dict[str, float]]) -> None:
    """One bar per (label, group) pair; groups on the x axis, labels in the legend."""
    groups = list(dict.fromkeys(g for values in bars.values() for g in values))
    x = np.arange(len(groups))
    width = 0.8 / max(len(bars), 1)
    for index, (label, values) in enumerate(bars.items()):
        heights = [values.get(g, np.nan) for g in groups]
        ax.bar(x + (index - (len(bars) - 1) / 2) * width, heights, width, label=label)
    ax.set_xticks(x, groups, rotation=30, ha="right")
    _finish(ax)


def _finish(ax: Axes) -> None:
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        # Below the axes: a sweep of many paths would hide its own data behind the legend.
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15))


def with_family(results: list[Result], suffixes: list[str], family: str,
                filename: str) -> list[Source]:
    present = [(r, s) for r, s in zip(results, suffixes) if r.family(family)]
    for result in results:
        if not result.family(family):
            print(f"plot.py: {result.path} has no {family} benchmarks", file=sys.stderr)
    if not present:
        print(f"plot.py: skipping {filename}: no {family} benchmarks", file=sys.stderr)
    return present


def save(fig: Figure, path: Path) -> None:
    fig.savefig(path, dpi=110, bbox_inches="tight")
    print(f"wrote {path}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json",
                        help="gpubench JSON (Google Benchmark --benchmark_out_format=json)")
    parser.add_argument("-o", "--output-dir", type=Path, required=True, metavar="DIR",
                        help="folder for the PNGs (created if missing)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        results = [load(path) for path in args.results]
    except GpubenchJsonError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    suffixes = file_suffixes(results)
    args.output_dir.mkdir(parents=True, exist_ok=True)

    if copies := with_family(results, suffixes, "copy", "copy_bandwidth.png"):
        series = copy_series(copies)
        print(fit_table(series))
        save(plot_copy(series), args.output_dir / "copy_bandwidth.png")
    if launches := with_family(results, suffixes, "launch", "launch_cost.png"):
        save(plot_launch(launches), args.output_dir / "launch_cost.png")
    if saxpys := with_family(results, suffixes, "saxpy", "saxpy_bandwidth.png"):
        save(plot_saxpy(saxpys), args.output_dir / "saxpy_bandwidth.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
