"""The heatmap of gpubench-tools fleet: GPUs x headline benchmarks, colour = speed against the
benchmark's reference (the group median, or the median of its faster part where the group splits in
two)."""

from pathlib import Path

import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from gpubench_tools.models.fleet.outliers import Flag, Group, Rule, sweep
from gpubench_tools.reading.facts import split_name
from gpubench_tools.reading.fleet.records import FleetInputError
from gpubench_tools.reading.name_filter import NameFilter
from gpubench_tools.renderers.figures.setup import figure_text, save_figure

# The most GPUs a heatmap draws: a row each, 36 pixels high, 9 000 pixels in all, drawn in about 5 s
# (docs/usage.md, "What the toolkit reads, and its limits"; results/cpu/script_limits.txt). A larger
# fleet is refused before its report is written.
MAX_HEATMAP_GPUS = 256
# Without --headline, the heatmap's columns are each device-timed sweep at its largest argument
# (host-paced figures move with the host, not the GPU), the first this many.
MAX_DEFAULT_COLUMNS = 24


def largest_of_sweeps(names: list[str]) -> list[str]:
    """Per sweep, its benchmark of the largest argument; a benchmark without one as it is."""
    chosen: dict[str, tuple[int, str]] = {}
    for name in names:
        argument = split_name(name, None).argument
        key = sweep(name)
        if key not in chosen or (argument or 0) > chosen[key][0]:
            chosen[key] = (argument or 0, name)
    return [name for _, name in chosen.values()]


def headline_benchmarks(groups: list[Group], patterns: list[NameFilter]) -> list[str]:
    """Benchmarks matching a pattern (sized ones at their largest size), in pattern order, or
    without patterns the default columns; then, for a flagged GPU none of these show, the
    benchmark it is slowest on. None where benchmarks were compared is a FleetInputError: the
    heatmap would have no column."""
    compared: list[str] = []
    for group in groups:
        compared += [n for n in group.benchmarks if n not in compared]
    chosen: list[str] = []
    for pattern in patterns:
        chosen += [n for n in largest_of_sweeps(pattern.select(compared)) if n not in chosen]
    if not patterns:
        device_timed = [n for n in compared
                        if not any(g.host_timed.get(n, False) for g in groups)]
        chosen = largest_of_sweeps(device_timed)[:MAX_DEFAULT_COLUMNS]
    for group in groups:
        by_gpu: dict[str, list[Flag]] = {}
        for flag in group.flags:
            by_gpu.setdefault(flag.gpu.uuid, []).append(flag)
        for flags in by_gpu.values():
            if not any(f.benchmark in chosen for f in flags):
                chosen.append(min(flags, key=lambda f: f.speed).benchmark)
    if compared and not chosen:
        raise FleetInputError(
            f"no heatmap column: --headline selects none of the {len(compared)} benchmarks "
            "compared" if patterns else f"no heatmap column: the {len(compared)} benchmarks "
            "compared are host-timed (give --headline)")
    return chosen


def heatmap_gpus(groups: list[Group]) -> int:
    """The rows a heatmap of these groups has: the GPUs of every group that was compared."""
    return sum(len(group.gpus) for group in groups if group.benchmarks)


def check_heatmap_size(groups: list[Group], path: Path) -> None:
    if (gpus := heatmap_gpus(groups)) > MAX_HEATMAP_GPUS:
        raise FleetInputError(f"-o {path}: {gpus} GPUs to draw, more than the "
                              f"{MAX_HEATMAP_GPUS} a heatmap holds (leave out -o for the report, "
                              "or give a part of the fleet)")


def draw_heatmap(groups: list[Group], columns: list[str], path: Path, rule: Rule) -> None:
    rows, labels, blocks, flagged = [], [], [], set()
    for number, group in enumerate(groups, start=1):
        if not group.benchmarks:
            continue
        index = {name: i for i, name in enumerate(group.benchmarks)}
        blocks.append((len(rows), number, group))
        for r, gpu in enumerate(group.gpus):
            rows.append([group.speed[r, index[c]] if c in index else np.nan for c in columns])
            labels.append(f"{gpu.host} {gpu.uuid[:12]}")
            flagged |= {(len(rows) - 1, f.benchmark) for f in group.flags if f.gpu is gpu}
    if not rows:
        raise FleetInputError(f"{path}: no group to draw (every group is smaller than --min-gpus)")
    speed = np.array(rows, dtype=float)
    finite = speed[np.isfinite(speed)]
    low = min(0.8, float(finite.min())) if finite.size else 0.8
    high = max(1.2, float(finite.max())) if finite.size else 1.2
    fig = Figure(figsize=(max(9.0, 5.5 + 0.45 * len(columns)), 3.0 + 0.28 * len(rows)),
                 layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(np.ma.masked_invalid(speed), cmap="RdBu", aspect="auto",
                      norm=TwoSlopeNorm(vcenter=1.0, vmin=low, vmax=high))
    for r in range(len(labels)):
        for c, column in enumerate(columns):
            if (r, column) in flagged:
                ax.text(c, r, f"{speed[r, c]:.2f}", ha="center", va="center", fontsize=7,
                        color="white", fontweight="bold")
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, lw=1.5,
                                       ec="black"))
    for start, number, group in blocks:
        if start:
            ax.axhline(start - 0.5, color="black", linewidth=2)
        model, driver, version, *_ = group.key
        ax.annotate(figure_text(f"group {number}: {model}, driver {driver}, gpubench "
                                f"{version[:20]}: {len(group.gpus)} GPUs", limit=160),
                    (1.01, start - 0.5), xycoords=("axes fraction", "data"), va="top", fontsize=7)
    ax.set_xticks(range(len(columns)), [figure_text(c) for c in columns], rotation=35, ha="right",
                  fontsize=7)
    ax.set_yticks(range(len(labels)), [figure_text(label) for label in labels], fontsize=7)
    bar = fig.colorbar(image, ax=ax, location="bottom", shrink=0.6, aspect=40,
                       label="speed relative to the group median, or its faster part's where "
                             "the group splits (GB/s ratio; inverse for µs)")
    ticks = [low, (low + 1) / 2, 1.0, high]
    bar.set_ticks(ticks, labels=[f"{t:.2f}" for t in ticks])
    fig.suptitle(f"GPU fleet: each benchmark against its group's median\nboxed: flagged (slower "
                 f"than max({rule.margin_pct:g}%, {rule.k:g} x noise); host-timed max("
                 f"{rule.host_margin_pct:g}%, {rule.host_k:g} x noise); on {rule.corroborate} "
                 f"sizes of a sweep)", fontsize=9)
    try:
        save_figure(fig, path, dpi=130)
    except OSError as error:
        raise FleetInputError(f"{path}: cannot write the heatmap ({error.strerror or error})") \
            from None
