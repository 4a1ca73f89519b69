"""The figures `gpubench-tools plot` writes: one PNG per family of every benchmark the files
hold, the pair matrices, and the fits of t = t0 + s/B with their table (cli/plot.py says what
each shows)."""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from gpubench_tools.models.latency_bandwidth import LatencyBandwidthFit, fit_latency_bandwidth
from gpubench_tools.reading.bounded_read import dangling_link
from gpubench_tools.reading.facts import GBPS, Metric
from gpubench_tools.reading.name_filter import NameFilter
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.renderers.figures.family_plot import (
    Decorate,
    PlotError,
    check_families,
    family_figure,
    figure_stems,
    ordered_families,
)
from gpubench_tools.renderers.figures.pair_matrix import check_pair_gpus, pair_matrix_figure
from gpubench_tools.renderers.figures.panel_drawing import Style
from gpubench_tools.renderers.figures.panels import (
    FILE_LINESTYLES,
    Panel,
    Source,
    curve_label,
    make_source,
    panel_and_curve,
)
from gpubench_tools.renderers.figures.scales import binary_size
from gpubench_tools.renderers.figures.setup import figure_bytes
from gpubench_tools.renderers.text_table import render
from gpubench_tools.writing.outputs import refuse_output_over_input, write_outputs, write_stdout

FIT_TABLE_NAME = "fit.txt"
PAIRS_SUFFIX = "_pairs"  # of a family's matrix of GPU pairs: DIR/<family>_pairs.png
DPI = 110
# A curve this much faster within the L2 than beyond it is served from the L2 there.
L2_SPEEDUP = 1.1


@dataclass(frozen=True)
class FitSeries:
    family: str
    curve: str  # series and device
    panel: str  # where the figure draws it, and as which curve
    label: str
    source: Source
    sizes_bytes: np.ndarray
    gbps: np.ndarray
    fit: LatencyBandwidthFit | None
    fitted_sizes: str  # which sizes the fit used, or why there is none
    fitted_range: tuple[float, float]  # the smallest and largest size fitted
    counted_per_copied: float  # bytes the bandwidth counts per byte of the argument (2: DtoD)


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
    return [make_source(r, label, i) for i, (r, label) in enumerate(zip(results, labels))]


def time_metric(bench: Benchmark) -> Metric | None:
    """The benchmark's time per operation: its family's first µs figure, lower better, that it
    carries (its first us_per_* counter in a file without facts)."""
    figures = bench.facts.figures if bench.facts is not None else [
        Metric(k, "µs", 1.0, False) for k in bench.values if k.startswith("us_per_")]
    return next((m for m in figures if m.unit == "µs" and not m.bigger_is_better
                 and m.key in bench.values), None)


def fit_series(sources: list[Source]) -> list[FitSeries]:
    """A fit per curve of GB/s against bytes, per file."""
    series = []
    for source in sources:
        curves: dict[tuple[str, str], list[Benchmark]] = {}
        families = source.result.families
        for bench in source.result.benchmarks.values():
            parts = bench.parts
            facts = families[parts.family]
            unit = facts.argument.unit if facts.argument is not None else "bytes"
            if parts.argument is not None and unit == "bytes" and bench.metric == GBPS \
                    and time_metric(bench) is not None:
                key = (parts.family, curve_label(parts.series, parts.device))
                curves.setdefault(key, []).append(bench)
        for (family, curve), benches in curves.items():
            benches.sort(key=lambda b: b.parts.argument)
            sizes = np.array([b.parts.argument for b in benches], dtype=float)
            gbps = np.array([b.value(GBPS) for b in benches])
            # The measured time per operation, against the bytes the bandwidth counts (DtoD and
            # bidir count two per byte copied): t0 is then the real fixed cost, and B is in the
            # plotted bandwidth's units so the fit overlays the data.
            seconds = np.array([b.value(time_metric(b)) for b in benches]) * 1e-6
            counted = gbps * 1e9 * seconds
            fit, fitted, span = fit_curve(sizes, gbps, counted, seconds, source.result.l2_bytes)
            ratio = float(np.median(counted / sizes)) if sizes.min() > 0 else 1.0
            panel, label = panel_and_curve(family, benches[0].parts.series,
                                           benches[0].parts.device)
            series.append(FitSeries(family, curve, panel, label, source, sizes, gbps, fit,
                                    fitted, span, ratio))
    return series


def fit_curve(sizes: np.ndarray, gbps: np.ndarray, counted: np.ndarray, seconds: np.ndarray,
              l2: int | None) -> tuple[LatencyBandwidthFit | None, str, tuple[float, float]]:
    """The fit of one curve, a description of the sizes it used, and their range."""
    usable = np.ones(sizes.size, dtype=bool)
    within = sizes <= l2 if l2 else np.zeros(sizes.size, dtype=bool)
    from_l2 = within.any() and (~within).any() and \
        gbps[within].max() > L2_SPEEDUP * gbps[~within].max()
    if from_l2:
        usable = ~within
    fit = fit_latency_bandwidth(counted[usable], seconds[usable])
    above = f" above L2 ({binary_size(l2)})" if from_l2 else ""
    fitted = (float(sizes[usable].min()), float(sizes[usable].max())) if usable.any() \
        else (1.0, 1.0)
    if fit is None:
        return None, f"none: fewer than 2 sizes{above}", fitted
    span = f"{binary_size(fitted[0])}..{binary_size(fitted[1])}"
    return fit, span + (f" (> L2, {binary_size(l2)})" if from_l2 else ""), fitted


def fit_drawer(series: list[FitSeries], family: str) -> Decorate:
    """Draws each fit of `family` dashed over its curve, in the curve's colour."""
    def draw_fits(ax: Axes, panel: Panel, looks: dict[str, Style]) -> None:
        for s in series:
            if s.fit is None or (s.family, s.panel) != (family, panel.title) \
                    or s.label not in panel.curves or panel.metric != GBPS:
                continue
            dense = np.geomspace(max(s.fitted_range[0], 1.0), s.fitted_range[1], 200)
            # The fit is in counted bytes; draw it against the argument on the x axis.
            ax.plot(dense, s.fit.bytes_per_second(dense * s.counted_per_copied) * 1e-9,
                    color=looks[s.label].colour, linestyle="--", lw=0.9, alpha=0.9)
    return draw_fits


def fit_table(series: list[FitSeries]) -> str:
    several_files = len({s.source.label for s in series}) > 1
    headers = ["curve: t(s) = t0 + s/B"] + (["file"] if several_files else []) + [
        "sizes fitted", "t0 (µs)", "B (GB/s)", "s½ = t0·B (bytes)", "GB/s at largest size"]
    rows = []
    for s in series:
        row = [f"{s.family}/{s.curve}"] + ([s.source.label] if several_files else [])
        row.append(s.fitted_sizes)
        if s.fit is None:
            row += ["-", "-", "-"]
        else:
            row += [f"{s.fit.t0_s * 1e6:.2f}", f"{s.fit.bandwidth_bytes_per_s * 1e-9:.1f}",
                    f"{s.fit.half_bandwidth_bytes:.0f}"]
        row.append(f"{s.gbps[-1]:.1f}")
        rows.append(row)
    return render(headers, rows)


def select(result: Result, pattern: NameFilter | None) -> Result:
    if pattern is None:
        return result
    kept = {name: result.benchmarks[name] for name in pattern.select(result.benchmarks)}
    return Result(result.path, result.context, kept)


def figure_title(family: str, results: list[Result]) -> str:
    facts = next(r.families[family] for r in results if family in r.families)
    return f"{family}: {facts.grammar}" if facts.grammar else family


def draw(sources: list[Source], output_dir: Path, inputs: list[Path]) -> None:
    """Write the fit table and one figure per family, all of them or none (write_outputs): each
    drawn and each output path checked first, so that nothing is written where one would
    replace an input or cannot be drawn."""
    for source in sources:
        check_pair_gpus(source.result)
    series = fit_series(sources)
    table = fit_table(series) + "\n" if series else None
    figures = family_figures(sources, series, output_dir)
    files = {output_dir / FIT_TABLE_NAME: table.encode()} if table is not None else {}
    check_outputs([*files, *(path for path, _ in figures)], inputs)
    files |= {path: figure_bytes(fig, path, dpi=DPI) for path, fig in figures}
    prepare(output_dir)
    if table is not None:
        write_stdout(table)
    write_outputs(files)
    write_stdout("".join(f"wrote {path}\n" for path in files))


def family_figures(sources: list[Source], series: list[FitSeries],
                   output_dir: Path) -> list[tuple[Path, Figure]]:
    """Each family's figure and its matrix of GPU pairs where it has one, with their paths."""
    results = [s.result for s in sources]
    figures = []
    families = list(ordered_families(results))
    check_families(families)
    for family, stem in zip(families, figure_stems(families, ("", PAIRS_SUFFIX))):
        title = figure_title(family, results)
        fig = family_figure(sources, family, title, fit_drawer(series, family))
        if fig is not None:
            figures.append((output_dir / f"{stem}.png", fig))
        matrix = pair_matrix_figure(sources, family, title)
        if matrix is not None:
            figures.append((output_dir / f"{stem}{PAIRS_SUFFIX}.png", matrix))
    return figures


def check_outputs(outputs: list[Path], inputs: list[Path]) -> None:
    """An output file may replace a file that is no input, and not a FIFO (writing would wait
    for a reader) or a device."""
    for path in outputs:
        refuse_output_over_input(path, inputs)
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise PlotError(f"{path}: exists and is not a regular file")


def prepare(output_dir: Path) -> None:
    if reason := dangling_link(output_dir):
        raise PlotError(f"{output_dir}: {reason}; give a folder")
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PlotError(f"{output_dir}: exists and is not a folder") from None
    except OSError as e:
        raise PlotError(f"{output_dir}: cannot create the output folder ({e.strerror})") from None
