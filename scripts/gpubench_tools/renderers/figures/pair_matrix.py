"""The source × destination matrices of a family whose series name ordered pairs of GPUs.

A series component `<s>to<d>` names a pair; the series with that component taken out is one
matrix (run_series.pair_matrices, as the HTML report reads them), drawn at the largest argument
every pair of it was measured at, each cell the figure of the first file holding it, in its
unit, on a colour scale from 0, its numbers written in up to MAX_NUMBERED GPUs a side. Nothing
here knows a family by name: any family whose names carry pairs gets its matrices.

A series whose pairs name more than MAX_PAIR_GPUS GPUs is refused (check_pair_gpus, which the
HTML report and the gallery ask too): gpubench measures no more at once, and a matrix grows as
the square of its GPUs (a file of 10 000 pairs in a chain would make one of 10^8 cells).
"""

import math

import numpy as np
from matplotlib.figure import Figure

from gpubench_tools.models.run_series import curves_and_singles, pair_matrices
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.facts import pair_of
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.renderers.figures.family_plot import PANEL_SIZE_IN, check_panels
from gpubench_tools.renderers.figures.panels import Source
from gpubench_tools.renderers.figures.scales import argument_text, value_label
from gpubench_tools.renderers.figures.setup import figure_text

# The most GPUs the pairs of one series name: the most devices gpubench measures at once
# (max_devices, src/options.hpp).
MAX_PAIR_GPUS = 64
# Cells per side a matrix shows legibly with its numbers written in; more are colour alone.
MAX_NUMBERED = 16


def check_pair_gpus(result: Result) -> None:
    """GpubenchJsonError naming the first series of `result` whose pairs of GPUs (`<s>to<d>`,
    in a benchmark with an argument, as pair_matrices reads them) name more than MAX_PAIR_GPUS
    GPUs."""
    named: dict[tuple[str, str], set[int]] = {}
    for bench in result.benchmarks.values():
        parts = bench.parts
        if parts.argument is None or (found := pair_of(parts.series)) is None:
            continue
        group, source, destination = found
        gpus = named.setdefault((parts.family, group), set())
        gpus.update((source, destination))
        if len(gpus) > MAX_PAIR_GPUS:
            raise GpubenchJsonError(
                f"{result.path}: {one_line(f'{parts.family}/{group}', 200)}: pairs of more "
                f"than {MAX_PAIR_GPUS} GPUs, the most gpubench measures at once")


def pair_matrix_figure(sources: list[Source], family: str, title: str) -> Figure | None:
    """A panel per matrix of the family, or None where its names carry no pairs; each source
    checked by check_pair_gpus first."""
    curves = [c for source in sources for c in curves_and_singles(source.result)[0]]
    matrices = sorted(pair_matrices(curves, family), key=lambda m: m.group)
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
    for ax, matrix in zip(axes, matrices):
        devices = sorted({d for pair in matrix.values for d in pair})
        numbered = len(devices) <= MAX_NUMBERED
        index = {d: i for i, d in enumerate(devices)}
        values = np.full((len(devices), len(devices)), np.nan)
        for (src, dst), value in matrix.values.items():
            values[index[src], index[dst]] = value
        # From 0, so that pairs within noise of each other look alike.
        top = float(np.nanmax(values))
        image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=top)
        fig.colorbar(image, ax=ax, shrink=0.8,
                     label=figure_text(value_label(matrix.curve.metric), 60))
        small = {} if numbered else {"fontsize": 5}
        ax.set_xticks(range(len(devices)), [str(d) for d in devices], **small)
        ax.set_yticks(range(len(devices)), [str(d) for d in devices], **small)
        ax.set_xlabel("destination GPU")
        ax.set_ylabel("source GPU")
        at = argument_text(matrix.argument, matrix.curve.argument.unit)
        ax.set_title(figure_text(f"{matrix.group} at {at}", 60), fontsize=10)
        for (row, col), value in np.ndenumerate(values):
            if numbered and not np.isnan(value):
                ax.text(col, row, f"{value:.4g}", ha="center", va="center", fontsize=8,
                        color="black" if value > 0.6 * top else "white")
    fig.suptitle(figure_text(title, 160), fontsize=13)
    return fig
