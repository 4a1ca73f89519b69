"""The source × destination matrices of a family whose series name ordered pairs of GPUs.

A series component `<s>to<d>` (run_series.pair_of) names a pair; the series with that
component taken out is one matrix, drawn at the largest argument every pair of it was measured
at, each cell the figure of the first file holding it, in its unit, on a colour scale from 0. Nothing here knows a family
by name: any family whose names carry pairs gets its matrices.
"""

import math

import figure_setup  # noqa: F401  (before matplotlib: the backend, mathtext off)
import numpy as np
from matplotlib.figure import Figure

from family_plot import PANEL_SIZE_IN, Source, binary_size, check_panels, value_label
from figure_setup import figure_text
from gpubench_json import Metric
from run_series import pair_of

# Cells per side a matrix shows legibly, with its numbers written in.
MAX_DEVICES = 16


def pair_groups(sources: list[Source], family: str) -> dict[str, dict[tuple[int, int], tuple]]:
    """Per matrix (the series with its pair as `*`): (source, destination) -> the argument and
    the benchmark, at the largest argument, from the first file holding each pair."""
    groups: dict[str, dict[tuple[int, int], dict[int, object]]] = {}
    for source in sources:
        for bench in source.result.benchmarks.values():
            parts = bench.parts
            if parts.family != family or parts.argument is None or parts.device is not None:
                continue
            pair = pair_of(parts.series)
            if pair is None:
                continue
            group, src, dst = pair
            by_argument = groups.setdefault(group, {}).setdefault((src, dst), {})
            by_argument.setdefault(parts.argument, bench)
    matrices = {}
    for group, pairs in groups.items():
        common = set.intersection(*(set(b) for b in pairs.values()))
        if common:
            largest = max(common)
            matrices[group] = {p: (largest, b[largest]) for p, b in pairs.items()}
    return matrices


def pair_matrix_figure(sources: list[Source], family: str, title: str) -> Figure | None:
    """A panel per matrix of the family, or None where its names carry no pairs."""
    matrices = pair_groups(sources, family)
    if not matrices:
        return None
    check_panels(len(matrices), title)
    ncols = min(len(matrices), 3)
    nrows = math.ceil(len(matrices) / ncols)
    fig = Figure(figsize=(PANEL_SIZE_IN[0] * ncols, PANEL_SIZE_IN[1] * nrows + 0.6),
                 layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).flat)
    for unused in axes[len(matrices):]:
        unused.remove()
    for ax, (group, cells) in zip(axes, sorted(matrices.items())):
        devices = sorted({d for pair in cells for d in pair})[:MAX_DEVICES]
        index = {d: i for i, d in enumerate(devices)}
        values = np.full((len(devices), len(devices)), np.nan)
        metric: Metric | None = None
        argument = 0
        for (src, dst), (argument, bench) in cells.items():
            if src in index and dst in index:
                metric = metric or bench.metric
                values[index[src], index[dst]] = bench.value(metric)
        # From 0, so that pairs within noise of each other look alike.
        top = float(np.nanmax(values))
        image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=top)
        fig.colorbar(image, ax=ax, shrink=0.8, label=figure_text(value_label(metric), 60))
        ax.set_xticks(range(len(devices)), [str(d) for d in devices])
        ax.set_yticks(range(len(devices)), [str(d) for d in devices])
        ax.set_xlabel("destination GPU")
        ax.set_ylabel("source GPU")
        facts = next(iter(cells.values()))[1].facts
        in_bytes = facts is None or facts.argument is None or facts.argument.unit == "bytes"
        at = binary_size(argument) if in_bytes else f"{argument:,}"
        ax.set_title(figure_text(f"{group} at {at}", 60), fontsize=10)
        for (row, col), value in np.ndenumerate(values):
            if not np.isnan(value):
                ax.text(col, row, f"{value:.4g}", ha="center", va="center", fontsize=8,
                        color="black" if value > 0.6 * top else "white")
    fig.suptitle(figure_text(title, 160), fontsize=13)
    return fig
