"""The source × destination matrices of a family whose series name ordered pairs of GPUs.

A series component `<s>to<d>` names a pair; the series with that component taken out is one
matrix (run_series.pair_matrices, as the HTML report reads them), drawn at the largest argument
every pair of it was measured at, each cell the figure of the first file holding it, in its
unit, on a colour scale from 0. Nothing here knows a family by name: any family whose names
carry pairs gets its matrices.
"""

import math

import figure_setup  # noqa: F401  (before matplotlib: the backend, mathtext off)
import numpy as np
from matplotlib.figure import Figure

from family_plot import PANEL_SIZE_IN, Source, check_panels, value_label
from figure_setup import figure_text
from run_series import curves_and_singles, pair_matrices
from svg_chart import argument_text

# Cells per side a matrix shows legibly, with its numbers written in.
MAX_DEVICES = 16


def pair_matrix_figure(sources: list[Source], family: str, title: str) -> Figure | None:
    """A panel per matrix of the family, or None where its names carry no pairs."""
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
        devices = sorted({d for pair in matrix.values for d in pair})[:MAX_DEVICES]
        index = {d: i for i, d in enumerate(devices)}
        values = np.full((len(devices), len(devices)), np.nan)
        for (src, dst), value in matrix.values.items():
            if src in index and dst in index:
                values[index[src], index[dst]] = value
        # From 0, so that pairs within noise of each other look alike.
        top = float(np.nanmax(values))
        image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=top)
        fig.colorbar(image, ax=ax, shrink=0.8,
                     label=figure_text(value_label(matrix.curve.metric), 60))
        ax.set_xticks(range(len(devices)), [str(d) for d in devices])
        ax.set_yticks(range(len(devices)), [str(d) for d in devices])
        ax.set_xlabel("destination GPU")
        ax.set_ylabel("source GPU")
        at = argument_text(matrix.argument, matrix.curve.argument.unit)
        ax.set_title(figure_text(f"{matrix.group} at {at}", 60), fontsize=10)
        for (row, col), value in np.ndenumerate(values):
            if not np.isnan(value):
                ax.text(col, row, f"{value:.4g}", ha="center", va="center", fontsize=8,
                        color="black" if value > 0.6 * top else "white")
    fig.suptitle(figure_text(title, 160), fontsize=13)
    return fig
