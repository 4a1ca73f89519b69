import errno
import hashlib
import itertools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    SCRIPTS,
    RunScript,
    folder_files,
    largest_after_the_first,
    run_with_file_size_limit,
    written_paths,
)
from family_facts import with_facts
from gbench_builder import (
    copy_run,
    document,
    full_suite,
    launch_run,
    module_run,
    peer_run,
    run_entries,
    saxpy_run,
    write_json,
)
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from gpubench_tools.models.latency_bandwidth import fit_latency_bandwidth
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers.figures import family_plot, pair_matrix, panel_drawing, scales
from gpubench_tools.renderers.figures import plot_files as plot
from gpubench_tools.renderers.figures.panels import FILE_LINESTYLES, Source
from gpubench_tools.renderers.figures.setup import save_figure

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FIGURES = ("copy.png", "launch.png", "saxpy.png")
H200 = SCRIPTS.parent / "results" / "h200" / "gpubench.json"
ALL_DEVICES = SCRIPTS.parent / "results" / "h200x2" / "all_devices.json"
GPU_GAP = SCRIPTS.parent / "results" / "h200" / "launch_gpu_gap.json"
PAIRED = SCRIPTS.parent / "results" / "h200" / "launch_paired_a.json"
WHOLE_SUITE = SCRIPTS.parent / "results" / "h200" / "suite" / "suite.json"
L2_BYTES = 60 << 20


def test_fit_recovers_t0_and_bandwidth() -> None:
    sizes = 2.0 ** np.arange(8, 30)
    seconds = 8e-6 + sizes / 50e9
    noisy = seconds * np.random.default_rng(0).lognormal(0.0, 0.02, sizes.size)
    for times, tolerance in ((seconds, 1e-9), (noisy, 0.05)):
        fit = fit_latency_bandwidth(sizes, times)
        assert fit.t0_s == pytest.approx(8e-6, rel=tolerance)
        assert fit.bandwidth_bytes_per_s == pytest.approx(50e9, rel=tolerance)
        assert fit.half_bandwidth_bytes == pytest.approx(8e-6 * 50e9, rel=2 * tolerance)


def test_fit_needs_two_sizes() -> None:
    assert fit_latency_bandwidth(np.array([1024.0, 1024.0]), np.array([1e-5, 1.1e-5])) is None


def dtod_entries(t0_us: float, bandwidth_gbps: float, l2_speedup: float) -> list[dict[str, Any]]:
    """DtoD copies as gpubench reports them (two bytes counted per byte copied), following
    t = t0 + s/B above the L2 and `l2_speedup` times faster at and below it."""
    entries = []
    for size in 4 ** np.arange(2, 16):
        counted = 2 * int(size)
        seconds = t0_us * 1e-6 + counted / (bandwidth_gbps * 1e9)
        if size <= L2_BYTES:
            seconds /= l2_speedup
        sample = {"real_time": seconds * 1e6, "us_per_copy": seconds * 1e6,
                  "bytes_per_second": counted / seconds}
        entries += run_entries(f"copy/DtoD/device/async/{int(size)}/manual_time", [sample])
    return entries


def sources(*docs: tuple[str, dict[str, Any]], tmp_path: Path) -> list[Source]:
    return plot.make_sources([load(write_json(tmp_path / f"{stem}.json", doc))
                              for stem, doc in docs])


def test_dtod_is_fitted_above_the_l2_only(tmp_path: Path) -> None:
    entries = dtod_entries(t0_us=2.0, bandwidth_gbps=4000.0, l2_speedup=1.6)
    with_l2 = sources(("h200", document(entries, l2_bytes=str(L2_BYTES))), tmp_path=tmp_path)
    (series,) = plot.fit_series(with_l2)
    assert series.fit.bandwidth_bytes_per_s == pytest.approx(4000e9, rel=1e-6)
    assert series.fit.t0_s == pytest.approx(2e-6, rel=1e-3)
    assert "64 MiB..1 GiB" in series.fitted_sizes and "60 MiB" in series.fitted_sizes
    # What fitting every size would give: the L2-resident copies pull B above any memory figure.
    sizes = series.sizes_bytes
    all_sizes = fit_latency_bandwidth(2.0 * sizes, 2.0 * sizes / (series.gbps * 1e9))
    assert all_sizes.bandwidth_bytes_per_s > 1.05 * series.gbps[-1] * 1e9

    # Without l2_bytes no size is known to be within the L2: every size is fitted.
    without_l2 = sources(("other", document(entries)), tmp_path=tmp_path)
    (series,) = plot.fit_series(without_l2)
    assert "L2" not in series.fitted_sizes and series.fit.bandwidth_bytes_per_s > 4100e9


@pytest.mark.skipif(not H200.exists(), reason="the committed H200 result is not in this tree")
def test_h200_dtod_fit_is_not_above_the_measured_bandwidth() -> None:
    series = [s for s in plot.fit_series(plot.make_sources([load(H200)]))
              if s.curve.startswith("DtoD/")]
    assert len(series) == 2
    # B is the asymptote, above each finite size's bandwidth by 1 + s½/s, so it is held to the
    # best DtoD bandwidth measured out of L2 (4237 GB/s at 1 GiB) within 2%.
    best_gbps = max(s.gbps[s.sizes_bytes > L2_BYTES].max() for s in series)
    for s in series:
        assert s.fit.bandwidth_bytes_per_s * 1e-9 <= 1.02 * best_gbps
        # The fitted curve passes through what it fitted.
        fitted = s.fit.bytes_per_second(s.sizes_bytes * s.counted_per_copied) * 1e-9
        above = s.sizes_bytes > L2_BYTES
        np.testing.assert_allclose(fitted[above], s.gbps[above], rtol=0.1)


def test_file_labels_are_short_and_distinct() -> None:
    assert plot.file_labels([Path("/ci/run/h200.json"), Path("base/a100.json")]) == ["h200", "a100"]
    assert plot.file_labels([Path("base/gpubench.json"), Path("new/gpubench.json")]) == [
        "base/gpubench", "new/gpubench"]


@pytest.mark.parametrize("count", [1, 7, 10, 11, 20, 24, 40])
def test_colours_are_distinct(count: int) -> None:
    colours = panel_drawing.distinct_colours(count)
    assert len(colours) == count
    rgb = np.array([c[:3] for c in colours])
    closest = (min(np.abs(a - b).max() for a, b in itertools.combinations(rgb, 2))
               if count > 1 else 1)
    assert closest > 0.02


def overlapping(a: Any, b: Any) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def data_lines(ax: Axes) -> list[Any]:
    return [line for line in ax.get_lines() if len(line.get_xdata()) > 1
            and line.get_linestyle() != "--" and line.get_marker() not in ("None", "", None)]


def check_readable(fig: Figure) -> None:
    """No two series in a panel look alike, the legend covers no panel, and no tick label
    covers another or hides under the legend."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    # The title, however long the family's grammar, lies within the figure.
    if fig._suptitle is not None:
        title = fig._suptitle.get_window_extent(renderer)
        page = fig.get_window_extent(renderer)
        assert page.x0 <= title.x0 and title.x1 <= page.x1
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert len(legends) == 1
    legend_box = legends[0].get_window_extent(renderer)
    panels = [ax for ax in fig.axes if ax.has_data()]
    assert panels
    for ax in panels:
        assert not overlapping(legend_box, ax.get_tightbbox(renderer))
        looks = [(tuple(np.round(plot_colour(line), 3)), str(line.get_linestyle()),
                  line.get_marker(), str(line.get_markerfacecolor()))
                 for line in data_lines(ax)]
        assert len(looks) == len(set(looks))
        for axis in (ax.xaxis, ax.yaxis):
            shown = [t for t in axis.get_ticklabels(minor=False) + axis.get_ticklabels(minor=True)
                     if t.get_visible() and t.get_text()]
            # Text is plain: mathtext is off (renderers/figures/setup.py), so a "$" would be drawn
            # raw.
            assert not [t.get_text() for t in shown if "$" in t.get_text()]
            labels = [t.get_window_extent(renderer) for t in shown]
            for a, b in itertools.combinations(labels, 2):
                assert not overlapping(a, b)


def plot_colour(line: Any) -> tuple[float, ...]:
    return to_rgba(line.get_color())


def launch_doc(graph_us: float, **context: str) -> dict[str, Any]:
    entries = []
    for path in ("runtime", "runtime_launchkernel", "runtime_launchkernelex", "driver",
                 "driver_extra", "driver_launchkernelex", "graph"):
        for measure, base in (("submit", 3.5), ("roundtrip", 9.0)):
            for params in (0, 8, 256, 4096, 32764):
                us = graph_us if path == "graph" and measure == "submit" else base
                entries += launch_run(path, measure, params, us * (1 + params / 65536))
    entries += module_run("cubin_load", 16.7) + module_run("ptx_jit", 6300.0)
    return document(entries, **context)


def dots(ax: Axes) -> list[Any]:
    """The points of a panel of dots: one marker each."""
    return [line for line in ax.get_lines() if len(line.get_xdata()) == 1
            and line.get_marker() not in ("None", "", None, "|", "_")]  # not an interval's caps


def test_launch_figure(tmp_path: Path) -> None:
    srcs = sources(("base", with_facts(launch_doc(0.019))), ("new", with_facts(launch_doc(0.025))),
                   tmp_path=tmp_path)
    fig = family_plot.family_figure(srcs, "launch", "launch")
    check_readable(fig)
    panels = {ax.get_title(): ax for ax in fig.axes if ax.has_data()}
    assert list(panels) == ["runtime", "runtime_launchkernel", "runtime_launchkernelex",
                            "driver", "driver_extra", "driver_launchkernelex", "graph", "module"]
    # The graph's 0.019 µs submit next to its 9 µs roundtrip: a log axis; driver spans less than
    # a decade. Payloads from 0 are evenly spaced, each labelled in whole bytes.
    assert panels["graph"].get_yscale() == "log"
    assert panels["driver"].get_yscale() == "linear"
    assert [t.get_text() for t in panels["driver"].get_xticklabels()] == [
        "0 B", "8 B", "256 B", "4 KiB", "32764 B"]
    assert panels["driver"].get_xlabel() == "params (bytes)"
    assert panels["driver"].get_ylabel() == "µs (lower is better)"
    lines = data_lines(panels["graph"])
    assert len(lines) == 4  # 2 measures x 2 files
    assert len({plot_colour(line) for line in lines}) == 2
    assert len({line.get_marker() for line in lines}) == 2  # a measure: colour and marker
    assert len({str(line.get_linestyle()) for line in lines}) == 2  # a file: line style
    # Figures without an argument: a row per step, read along the x axis, never rotated names.
    module = panels["module"]
    assert len(dots(module)) == 4  # 2 module steps x 2 files
    assert [t.get_text() for t in module.get_yticklabels()] == ["cubin_load", "ptx_jit"]
    assert module.get_xlabel() == "µs (lower is better)"
    assert all(t.get_rotation() == 0 for t in module.get_yticklabels())
    texts = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
    assert {"base", "new", "submit", "roundtrip"} <= set(texts)
    assert not any(str(tmp_path) in t for t in texts)


def test_without_facts_an_argument_has_no_unit(tmp_path: Path) -> None:
    """A file without facts reads its arguments as bytes, which for saxpy are elements: its
    axis says it has no unit, and labels the number, not a size."""
    fig = family_plot.family_figure(sources(("run", document(full_suite())), tmp_path=tmp_path),
                                    "saxpy", "saxpy")
    (ax,) = [ax for ax in fig.axes if ax.has_data()]
    assert ax.get_xlabel() == "argument (no unit in the file)"
    assert not [t.get_text() for t in ax.get_xticklabels() if "B" in t.get_text()]


def test_variants_overlay_in_one_panel(tmp_path: Path) -> None:
    """saxpy's variants are one panel, each variant its colour and marker."""
    doc = with_facts(document(full_suite()))
    variants = saxpy_variants(doc)
    fig = family_plot.family_figure(sources(("run", doc), tmp_path=tmp_path), "saxpy", "saxpy")
    ax = next(ax for ax in fig.axes if ax.has_data())
    lines = data_lines(ax)
    assert len(variants) > 1 and len(lines) == len(variants)
    assert len({(plot_colour(line), line.get_marker()) for line in lines}) == len(variants)
    assert len({line.get_marker() for line in lines}) == len(variants)


def test_each_panel_fits_the_data_it_shows(tmp_path: Path) -> None:
    """55.3 against 51.5 GB/s: an axis of its own, within a factor 2 of the data, not one
    shared with a panel of 4000 GB/s or with the small sizes of a sweep."""
    entries = []
    for api, gbps in (("sync", 51.5), ("async", 55.3)):
        entries += [e for size in (1 << 26, 1 << 28, 1 << 30)
                    for e in copy_run("HtoD", "pinned", api, size, gbps)]
    entries += [e for size in (1 << 26, 1 << 28, 1 << 30)
                for e in copy_run("DtoD", "device", "async", size, 4000.0)]
    fig = family_plot.family_figure(sources(("run", with_facts(document(entries))),
                                            tmp_path=tmp_path), "copy", "copy")
    panels = {ax.get_title(): ax for ax in fig.axes if ax.has_data()}
    for title, (low, high) in (("HtoD", (51.5, 55.3)), ("DtoD", (4000.0, 4000.0))):
        bottom, top = panels[title].get_ylim()
        assert low / 2 < bottom <= low and high <= top < high * 2, (title, bottom, top)
    bottom, top = panels["HtoD"].get_ylim()
    assert (55.3 - 51.5) / (top - bottom) > 0.5  # the difference is most of the axis


def test_the_l2_is_marked_where_the_data_shows_it(tmp_path: Path) -> None:
    """A copy that stays on the device is faster within the L2: its panel marks the L2 size; a
    copy from host memory is not, and its panel marks nothing, nor do elements."""
    entries = dtod_entries(2.0, 4000.0, 1.6) + full_suite()  # HtoD: 1 KiB to 256 MiB
    doc = with_facts(document(entries, l2_bytes=str(L2_BYTES)))
    saxpy, copy = saxpy_and_copy_panels(doc, tmp_path)
    assert l2_marks(copy["DtoD"]) == [L2_BYTES]
    assert l2_marks(copy["HtoD"]) == []
    assert all(l2_marks(ax) == [] for ax in saxpy.values())


def test_single_argument_and_paired_ratios_are_dots(tmp_path: Path) -> None:
    """launch/gpu_gap (params:0 alone) is a row per path, not dots at x=0; launch/paired is
    drawn as its ratios with their intervals, not its round time."""
    doc = with_facts(json.loads(GPU_GAP.read_text()))
    paired = with_facts(json.loads(PAIRED.read_text()))
    doc["benchmarks"] += paired["benchmarks"]
    fig = family_plot.family_figure(sources(("run", doc), tmp_path=tmp_path), "launch", "launch")
    check_readable(fig)
    panels = {ax.get_title(): ax for ax in fig.axes if ax.has_data()}
    gap = panels["gpu_gap"]
    rows = [t.get_text() for t in gap.get_yticklabels()]
    assert len(rows) == len(dots(gap)) > 2 and "graph" in rows
    assert gap.get_xlabel() == "ns (lower is better)"
    near, far = panels["paired: ratios"], panels["paired: ratios far from 1"]
    assert near.get_xlabel() == far.get_xlabel() == "path ÷ reference (below 1: cheaper)"
    assert "graph vs runtime" in [t.get_text() for t in far.get_yticklabels()]
    assert "driver vs runtime" in [t.get_text() for t in near.get_yticklabels()]
    assert near.collections  # each ratio's interval, a bar
    assert near.get_xlim()[1] < 2.5 and far.get_xlim()[0] < 0.05


def test_a_comparison_draws_the_ratio_first(tmp_path: Path) -> None:
    """Given the ratios of NEW against BASE, each panel's ratios with their resolution band
    come first, the values beside them; a SAME point is hollow."""
    from gpubench_tools.models.comparison import Rules, compare
    base = with_facts(document(full_suite(8.0, 50.0)))
    new = with_facts(document(full_suite(8.0, 40.0)))
    srcs = sources(("base", base), ("new", new), tmp_path=tmp_path)
    rows = compare(srcs[0].result, srcs[1].result,
                   Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.05), True).rows
    fig = family_plot.family_figure(srcs, "copy", "copy",
                                    ratios={1: {row.name: row for row in rows}})
    check_readable(fig)
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert [ax.get_title() for ax in axes[:2]] == ["HtoD: ratio to the first", "HtoD"]
    ratio = axes[0]
    assert ratio.get_ylabel() == "× better than the first file"
    assert ratio.collections  # the resolution bands
    drawn = [y for line in ratio.get_lines() for y in line.get_ydata()
             if line.get_marker() not in ("None", "", None)]
    expected = [row.ratio for row in rows if row.name.startswith("copy/HtoD/")]
    assert sorted(drawn) == pytest.approx(sorted(expected))
    bottom, top = ratio.get_ylim()
    assert bottom < min(drawn) and max(drawn) < top and top / bottom < 4


def test_a_long_title_is_wrapped_within_the_figure() -> None:
    # A family's grammar as long as launch's, on a figure of three panels a row.
    title = "launch: " + ", ".join(f"launch/series_{i}/<path>/<measure>/params:<bytes>"
                                   for i in range(8))
    fig, _, _ = family_plot.grid([family_plot.PANEL_SIZE_IN[1]] * 4, title, 3)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    drawn = fig._suptitle.get_window_extent(renderer)
    page = fig.get_window_extent(renderer)
    assert page.x0 <= drawn.x0 and drawn.x1 <= page.x1
    assert "series_7" in fig._suptitle.get_text()


def test_dots_within_a_decade_have_a_linear_axis_fitted_to_them(tmp_path: Path) -> None:
    # 4 and 6.3 ms: a linear axis around them, not decades of empty log axis.
    doc = document(module_run("cubin_load", 4000.0) + module_run("ptx_jit", 6300.0))
    fig = family_plot.family_figure(sources(("run", doc), tmp_path=tmp_path), "launch", "launch")
    check_readable(fig)
    (drawn,) = [ax for ax in fig.axes if ax.has_data()]
    assert drawn.get_xscale() == "linear"
    left, right = drawn.get_xlim()
    assert 2000 < left < 4000 and 6300 < right < 8000


@pytest.mark.parametrize("values", [[0.0, 2.0, 40.0], [-3.0, 2.0, 40.0]])
def test_values_of_0_or_below_keep_a_linear_axis(tmp_path: Path, values: list[float]) -> None:
    """A family's own counter may be 0 (a gap of 0 ns) or below: a log axis would leave those
    bars and points out of the figure, so the axis stays linear, whatever the span above 0."""
    facts = {"schema": 1, "families": [{
        "name": "gap", "order": 1, "grammar": "gap/<case>[/<bytes>]",
        "argument": {"key": "", "unit": "bytes"},
        "figures": [{"counter": "gap_us", "unit": "µs", "scale": 1, "better": "lower"}]}]}
    entries = []
    for index, value in enumerate(values):
        sample = [{"real_time": 1.0, "gap_us": value}]
        entries += run_entries(f"gap/bar{index}/manual_time", sample)
        entries += run_entries(f"gap/sweep/{4096 << index}/manual_time", sample)
    doc = document(entries, gpubench_families=json.dumps(facts))
    fig = family_plot.family_figure(sources(("run", doc), tmp_path=tmp_path), "gap", "gap")
    bars, sweep = [ax for ax in fig.axes if ax.has_data()]
    assert (bars.get_xscale(), sweep.get_yscale()) == ("linear", "linear")


@pytest.mark.parametrize(("script", "output"), [("plot", "out"), ("report", "out"),
                                               ("report", "out.html")])
def test_more_families_than_one_run_draws_is_one_line(tmp_path: Path, run_script: RunScript,
                                                      script: str, output: str) -> None:
    """A figure per family, each drawn before any is written: a file of a benchmark a family
    would take hours and gigabytes, so more than MAX_FAMILIES is refused before drawing."""
    entries = []
    for index in range(family_plot.MAX_FAMILIES + 1):
        entries += run_entries(f"family{index}/x/4096/manual_time",
                               [{"real_time": 1.0 + index, "bytes_per_second": 1e9}])
    result = write_json(tmp_path / "r.json", document(entries))
    out = tmp_path / output
    arguments = [result, "-o", out] if script == "plot" else [result, result, "-o", out]
    proc = run_script(script, *arguments)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr == (f"gpubench-tools {script}: {family_plot.MAX_FAMILIES + 1} families, "
                           f"more than the {family_plot.MAX_FAMILIES} figures one run draws "
                           "(--filter selects fewer benchmarks)\n")
    assert not out.exists()


def test_copy_and_saxpy_figures(tmp_path: Path) -> None:
    entries = full_suite() + dtod_entries(2.0, 4000.0, 1.5)
    for memory, api in (("pageable", "sync"), ("pinned_wc", "async"), ("registered", "sync")):
        entries += copy_run("HtoD", memory, api, 1 << 20, 20.0)
    srcs = sources(("a", with_facts(document(entries, l2_bytes=str(L2_BYTES)))),
                   ("b", with_facts(document(full_suite(10.0, 25.0)))), tmp_path=tmp_path)
    copy_fig = family_plot.family_figure(srcs, "copy", "copy")
    check_readable(copy_fig)
    titles = [ax.get_title() for ax in copy_fig.axes if ax.has_data()]
    assert titles == ["HtoD", "DtoH", "DtoD"]
    for ax in copy_fig.axes[:3]:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("size (bytes)", "GB/s (higher is better)")
    saxpy_fig = family_plot.family_figure(srcs, "saxpy", "saxpy")
    check_readable(saxpy_fig)
    gbps, pct = [ax for ax in saxpy_fig.axes if ax.has_data()]
    for ax in (gbps, pct):
        assert ax.get_xlabel() == "N (elements)"  # the facts' unit; bytes where a file has none
    assert (gbps.get_ylabel(), pct.get_ylabel()) == ("GB/s (higher is better)",
                                                     "% of ceiling (higher is better)")


@pytest.mark.skipif(not ALL_DEVICES.exists(), reason="the committed two-H200 result is not here")
def test_every_benchmark_is_drawn_device_ones_included(tmp_path: Path) -> None:
    """results/h200x2/all_devices.json: 18 copies, 12 of them /device:N, each device a curve of
    its own and a fit of its own (t0 of a few µs, not one fit over both devices)."""
    srcs = plot.make_sources([load(ALL_DEVICES)])
    fig = family_plot.family_figure(srcs, "copy", "copy")
    points = sum(len(line.get_xdata()) for ax in fig.axes for line in data_lines(ax))
    assert points == 18
    fits = {s.curve: s for s in plot.fit_series(srcs)}
    assert set(fits) == {f"{d}/pinned/async{suffix}" for d in ("HtoD", "DtoH")
                         for suffix in (" (device:0)", " (device:1)", "_all_devices")}
    assert fits["DtoH/pinned/async (device:0)"].fit.t0_s > 1e-6


def peer_doc(scale: float = 1.0) -> dict[str, Any]:
    entries = []
    for engine, mode in itertools.product(("ce", "sm"), ("read", "write", "bidir")):
        for (src, dst), size in itertools.product(((0, 1), (1, 0)), (4096, 1 << 20, 1 << 28)):
            peak = (780.0 if mode == "bidir" else 390.0) * (0.95 if engine == "sm" else 1.0)
            entries += peer_run(engine, mode, src, dst, size, scale * peak * size / (size + 2e6))
    return document(entries)


def test_peer_figures(tmp_path: Path, run_script: RunScript) -> None:
    srcs = sources(("x2", peer_doc()), ("other", peer_doc(0.5)), tmp_path=tmp_path)
    fig = family_plot.family_figure(srcs, "peer", "peer")
    check_readable(fig)
    panels = {ax.get_title(): ax for ax in fig.axes if ax.has_data()}
    assert set(panels) == {"ce", "sm"}
    lines = data_lines(panels["ce"])
    assert len(lines) == 12  # 3 modes x 2 pairs x 2 files
    assert len({plot_colour(line) for line in lines}) == 6
    path = write_json(tmp_path / "peer.json", peer_doc())
    proc = run_script("plot", path, "-o", tmp_path / "figs")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "figs" / "peer.png").read_bytes().startswith(PNG_SIGNATURE)
    assert (tmp_path / "figs" / "peer_pairs.png").read_bytes().startswith(PNG_SIGNATURE)


def test_pair_matrices(tmp_path: Path) -> None:
    """A matrix per series of ordered pairs, at the largest size every pair has, each cell the
    first file's figure; a family whose names carry no pairs has none."""
    srcs = sources(("x2", peer_doc()), ("other", peer_doc(0.5)), tmp_path=tmp_path)
    fig = pair_matrix.pair_matrix_figure(srcs, "peer", "peer")
    FigureCanvasAgg(fig).draw()
    images = {ax.get_title(): np.ma.filled(ax.get_images()[0].get_array().astype(float), np.nan)
              for ax in fig.axes if ax.get_images()}
    assert set(images) == {f"{e}/{m}/* at 256 MiB" for e in ("ce", "sm")
                           for m in ("read", "write", "bidir")}
    expected = 390.0 * (1 << 28) / ((1 << 28) + 2e6)
    ce_read = images["ce/read/* at 256 MiB"]
    assert ce_read[0, 1] == pytest.approx(expected) and ce_read[1, 0] == pytest.approx(expected)
    assert np.isnan(ce_read[0, 0]) and np.isnan(ce_read[1, 1])
    copies = sources(("h200", document(full_suite(8.0, 50.0))), tmp_path=tmp_path)
    assert pair_matrix.pair_matrix_figure(copies, "copy", "copy") is None


def test_plot_two_files(tmp_path: Path, run_script: RunScript) -> None:
    h200 = write_json(tmp_path / "h200.json", document(full_suite(8.0, 50.0)))
    h100 = write_json(tmp_path / "h100.json",
                      document(full_suite(10.0, 25.0), gpu_name="NVIDIA H100",
                               driver_version="550"))
    proc = run_script("plot", h200, h100, "-o", tmp_path / "figs")
    assert proc.returncode == 0, proc.stderr
    for figure in FIGURES:
        data = (tmp_path / "figs" / figure).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000
    table = (tmp_path / "figs" / "fit.txt").read_text()
    assert table in proc.stdout
    row = next(line for line in table.splitlines() if line.startswith("copy/HtoD/pinned/async")
               and " h100 " in line)
    assert row.split()[-4:-1] == ["10.00", "25.0", "250000"]
    row = next(line for line in table.splitlines() if line.startswith("copy/HtoD/pinned/async")
               and " h200 " in line)
    assert row.split()[-4:-1] == ["8.00", "50.0", "400000"]


def test_absent_families_are_not_reported(tmp_path: Path, run_script: RunScript) -> None:
    only_launch = write_json(tmp_path / "r.json", document(launch_run("runtime", "submit", 0, 2.0)))
    proc = run_script("plot", only_launch, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert (tmp_path / "launch.png").read_bytes().startswith(PNG_SIGNATURE)
    assert not (tmp_path / "copy.png").exists()


def test_a_family_never_seen_is_drawn(tmp_path: Path, run_script: RunScript) -> None:
    launch = write_json(tmp_path / "l.json", document(launch_run("runtime", "submit", 0, 2.0)))
    other = write_json(tmp_path / "o.json", document(run_entries("other/x", [{"real_time": 1.0}])))
    proc = run_script("plot", launch, other, "-o", tmp_path / "figs")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["launch.png", "other.png"]


def test_filter(tmp_path: Path, run_script: RunScript) -> None:
    result = write_json(tmp_path / "r.json", document(full_suite()))
    proc = run_script("plot", result, "-o", tmp_path / "figs", "--filter", "^saxpy/vec4/")
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "figs").iterdir()] == ["saxpy.png"]


def one_line_error(proc: Any) -> None:
    assert proc.returncode == 2, proc.stderr
    assert (proc.stderr.startswith("gpubench-tools plot: ")
            and proc.stderr.count("\n") == 1), proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("entries,args", [
    ([], []),  # no benchmarks at all
    (saxpy_run("vec4", 1024, 10.0, peak_gbps=4000.0), ["--filter", "^copy/"]),  # empty selection
    (saxpy_run("vec4", 1024, 10.0, peak_gbps=4000.0), ["--filter", "("]),  # not a regex
])
def test_nothing_to_plot(tmp_path: Path, run_script: RunScript, entries: list[Any],
                         args: list[str]) -> None:
    result = write_json(tmp_path / "r.json", document(entries))
    proc = run_script("plot", result, "-o", tmp_path / "figs", *args)
    one_line_error(proc)
    assert not (tmp_path / "figs").exists()


@pytest.mark.parametrize("output", ["file", "under_file", "/proc/gpubench-plot-test/figs",
                                    "link to nothing", "link loop"])
def test_unusable_output_dir(tmp_path: Path, run_script: RunScript, output: str) -> None:
    result = write_json(tmp_path / "r.json", document(saxpy_run("vec4", 1024, 10.0,
                                                                peak_gbps=4000.0)))
    a_file = tmp_path / "taken"
    a_file.write_text("")
    target = {"file": a_file, "under_file": a_file / "figs"}.get(output, Path(output))
    if output.startswith("link"):
        target = tmp_path / "figs"
        target.symlink_to(tmp_path / "gone" if output == "link to nothing" else target)
    proc = run_script("plot", result, "-o", target)
    one_line_error(proc)
    assert a_file.read_text() == ""
    if output.startswith("link"):
        assert proc.stderr.endswith("; give a folder\n") and "a link" in proc.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["figs", "r.json", "taken"]


@pytest.mark.parametrize("taken, spelling", [
    ("fit.txt", "same"), ("copy.png", "same"), ("saxpy.png", "link to DIR"),
    ("launch.png", "hard link"), ("peer_pairs.png", "same")])
def test_an_output_over_an_input_is_refused_before_anything_is_written(
        tmp_path: Path, run_script: RunScript, taken: str, spelling: str) -> None:
    """Every file gpubench-tools plot writes into DIR is checked against every input, however the
    input is named: one line, and DIR as it was."""
    figures = tmp_path / "figs"
    figures.mkdir()
    other = write_json(tmp_path / "other.json", peer_doc())
    given = figures / taken
    if spelling == "hard link":
        write_json(tmp_path / "r.json", document(full_suite()))
        os.link(tmp_path / "r.json", given)
    else:
        write_json(given, document(full_suite()))
    before = {p.name: p.read_bytes() for p in figures.iterdir()}
    output = figures
    if spelling == "link to DIR":
        output = tmp_path / "link"
        output.symlink_to(figures)
    proc = run_script("plot", given, other, "-o", output)
    one_line_error(proc)
    assert proc.stderr == (f"gpubench-tools plot: {output / taken}: is also an input ({given}); "
                           "writing there would destroy it\n")
    assert {p.name: p.read_bytes() for p in figures.iterdir()} == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_figure_that_cannot_be_written_names_its_path() -> None:
    """A write that fails with no file name of its own (a full disk) names the figure's path."""
    fig = Figure()
    fig.add_subplot().plot([1, 2], [2, 1])
    with pytest.raises(OSError) as caught:
        save_figure(fig, Path("/dev/full"))
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, "/dev/full")


def test_a_file_that_cannot_be_written_leaves_the_earlier_plots_whole(
        tmp_path: Path, run_script: RunScript) -> None:
    """fit.txt and the figures are written all or none: where the disk fills as they are
    written (a file size limit, RLIMIT_FSIZE), the largest fails, named in one line, and every
    file of the earlier plots (the two runs the other way round) stays as it was, those written
    before the largest too."""
    runs = [write_json(tmp_path / "h200.json", document(full_suite(8.0, 50.0))),
            write_json(tmp_path / "h100.json", document(full_suite(10.0, 25.0)))]
    wrote = run_script("plot", *runs, "-o", tmp_path / "elsewhere").stdout
    largest, limit = largest_after_the_first(written_paths(wrote))
    out = tmp_path / "figures"
    assert run_script("plot", *reversed(runs), "-o", out).returncode == 0
    before = folder_files(out)
    proc = run_with_file_size_limit("plot", *runs, "-o", out, limit=limit)
    assert (proc.returncode, proc.stderr) == (
        2, f"gpubench-tools plot: {out / largest.name}: File too large\n")
    assert folder_files(out) == before


def test_too_many_files(tmp_path: Path, run_script: RunScript) -> None:
    paths = [write_json(tmp_path / f"r{i}.json", document(full_suite()))
             for i in range(len(FILE_LINESTYLES) + 1)]
    one_line_error(run_script("plot", *paths, "-o", tmp_path / "figs"))


def test_plot_bad_input(tmp_path: Path, run_script: RunScript) -> None:
    one_line_error(run_script("plot", tmp_path / "missing.json", "-o", tmp_path))


def test_size_labels() -> None:
    """Whole units where one divides the size, else whole bytes: a label is the exact size."""
    assert [scales.binary_size(v) for v in (0, 4, 1024, 1.5 * 2**20, 2**30, 32764)] == [
        "0 B", "4 B", "1 KiB", "1536 KiB", "1 GiB", "32764 B"]
    assert scales.power_of_two(2**20) == "2²⁰" and scales.power_of_two(1000) == "1000"


def test_a_family_name_that_is_no_file_name(tmp_path: Path, run_script: RunScript) -> None:
    """A family is its names' first component, which may hold anything but a slash: a name that
    is no safe file name gets family<N>.png, the rest <family>.png."""
    entries = [e for family in ("a\0b", ".hidden", "$\\frac", "x" * 300, "ok")
               for e in run_entries(f"{family}/x/4096/manual_time", [{"real_time": 1.0}])]
    path = write_json(tmp_path / "r.json", document(entries))
    proc = run_script("plot", path, "-o", tmp_path / "figs")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "family0.png", "family1.png", "family2.png", "family3.png", "ok.png"]


PAIRS = [e for pair in ((0, 1), (1, 0)) for e in peer_run("ce", "read", *pair, 4096, 300.0)]


@pytest.mark.parametrize(("families", "pairs", "count"), [
    (["family1", "a\0b"], False, 2),  # a safe name, and one drawn to family<index>.png
    (["Copy", "copy"], False, 2),  # one name on a file system that folds case
    (["peer_pairs", "peer"], True, 3),  # a family's name, and another's matrix of pairs
])
def test_families_whose_files_would_share_a_name_get_names_of_their_own(
        tmp_path: Path, run_script: RunScript, families: list[str], pairs: bool,
        count: int) -> None:
    """No figure is written over another: a file name taken, also by case alone, gets the
    family's short hash, and each figure is drawn once."""
    entries = [e for family in families
               for e in run_entries(f"{family}/x/4096/manual_time", [{"real_time": 1.0}])]
    path = write_json(tmp_path / "r.json", document(entries + (PAIRS if pairs else [])))
    proc = run_script("plot", path, "-o", tmp_path / "figs")
    assert (proc.returncode, proc.stderr) == (0, "")
    written = [line.removeprefix("wrote ") for line in proc.stdout.splitlines()
               if line.startswith("wrote ") and line.endswith(".png")]
    assert len(written) == count == len({w.casefold() for w in written})
    assert len([p for p in (tmp_path / "figs").iterdir() if p.suffix == ".png"]) == count


def test_figure_stems_are_distinct_whatever_the_names() -> None:
    digest = hashlib.sha256(b"X").hexdigest()[:8]
    families = [f"x-{digest}", "x", "X", "\ud800", "family3", "\ud800\ud800"]
    stems = family_plot.figure_stems(families, ("", "_pairs"))
    assert stems[:3] == [f"x-{digest}", "x", f"X-{digest}-2"]
    assert stems[3] == "family3" and stems[4].startswith("family3-")
    files = [f"{stem}{suffix}.png".casefold() for stem in stems for suffix in ("", "_pairs")]
    assert len(set(files)) == len(files) == 12
    # Names that do not meet keep their own.
    assert family_plot.figure_stems(["copy", "launch", "a\0b"]) == ["copy", "launch", "family2"]


def chain_of_pairs(gpus: int) -> dict[str, Any]:
    """Peer copies 0to1, 1to2, ...: pairs naming `gpus` GPUs, one series."""
    return document([e for gpu in range(gpus - 1)
                     for e in peer_run("ce", "read", gpu, gpu + 1, 4096, 300.0)])


def test_a_matrix_of_more_gpus_than_gpubench_measures_is_one_line(
        tmp_path: Path, run_script: RunScript) -> None:
    """A matrix grows as the square of its GPUs: pairs naming more than the 64 GPUs gpubench
    measures at once are refused, before anything is written."""
    path = write_json(tmp_path / "r.json", chain_of_pairs(pair_matrix.MAX_PAIR_GPUS + 1))
    proc = run_script("plot", path, "-o", tmp_path / "figs")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"gpubench-tools plot: {path}: peer/ce/read/*: pairs of more than 64 "
                           "GPUs, the most gpubench measures at once\n")
    assert not (tmp_path / "figs").exists()


def test_a_matrix_of_more_gpus_than_it_numbers_draws_every_gpu(tmp_path: Path) -> None:
    """Past MAX_NUMBERED GPUs a side, the cells are colour alone; no GPU is left out."""
    gpus = pair_matrix.MAX_NUMBERED + 4
    fig = pair_matrix.pair_matrix_figure(sources(("r", chain_of_pairs(gpus)), tmp_path=tmp_path),
                                         "peer", "peer")
    (ax,) = [ax for ax in fig.axes if ax.get_images()]
    assert ax.get_images()[0].get_array().shape == (gpus, gpus)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(g) for g in range(gpus)]
    assert not ax.texts


SUITE = SCRIPTS.parent / "results" / "h200" / "speed" / "suite_after.json"


def l2_marks(ax: Axes) -> list[float]:
    """The sizes a panel marks with a vertical line (axvline: x twice, y 0 to 1 of the axes)."""
    return [float(line.get_xdata()[0]) for line in ax.get_lines()
            if list(line.get_ydata()) == [0, 1] and len(set(line.get_xdata())) == 1]


def saxpy_and_copy_panels(doc: dict[str, Any], tmp_path: Path, saxpy: str = "saxpy",
                          copy: str = "copy") -> tuple[dict[str, Axes], dict[str, Axes]]:
    srcs = sources(("suite", doc), tmp_path=tmp_path)
    figures = []
    for family in (saxpy, copy):
        fig = family_plot.family_figure(srcs, family, family)
        check_readable(fig)
        figures.append({ax.get_title(): ax for ax in fig.axes if ax.has_data()})
    return figures[0], figures[1]


@pytest.mark.skipif(not SUITE.exists(), reason="the committed default suite is not in this tree")
def test_a_second_figure_and_the_l2_from_a_real_result(tmp_path: Path) -> None:
    """The default suite from the H200 with the facts gpubench declares (--describe): saxpy in
    GB/s and, beside it, in % of the memory ceiling (pct_of_peak, declared with `panel`); the
    copy that stays on the device marks the context's L2 (60 MiB), the copies from the host
    do not."""
    doc = with_facts(json.loads(SUITE.read_text()))
    saxpy, copy = saxpy_and_copy_panels(doc, tmp_path)
    assert list(saxpy) == ["saxpy", "saxpy: % of ceiling"]
    pct = saxpy["saxpy: % of ceiling"]
    assert pct.get_ylabel() == "% of ceiling (higher is better)"
    assert pct.get_xlabel() == "N (elements)"
    stored = {(b["name"].split("/")[1], int(b["name"].split("/")[2])): b["pct_of_peak"]
              for b in doc["benchmarks"] if b["name"].startswith("saxpy/")}
    drawn = {(variant, int(x)): y for line, variant in zip(data_lines(pct), saxpy_variants(doc))
             for x, y in zip(line.get_xdata(), line.get_ydata())}
    assert drawn == pytest.approx(stored) and len(drawn) == 8 * 11  # variants x sizes
    assert l2_marks(saxpy["saxpy"]) == [] and l2_marks(pct) == []  # elements, not sizes
    assert list(copy) == ["HtoD", "DtoH", "bidir", "DtoD", "HtoH"]
    assert {title: l2_marks(ax) for title, ax in copy.items()} == {
        "HtoD": [], "DtoH": [], "bidir": [], "DtoD": [60 << 20], "HtoH": []}
    assert "GPU L2 60 MiB" in [t.get_text() for t in copy["DtoD"].texts]


@pytest.mark.skipif(not WHOLE_SUITE.exists(), reason="the committed suite is not in this tree")
def test_a_comparison_of_the_whole_suite_draws_every_panel(tmp_path: Path) -> None:
    """launch's fifteen panels (more cells than a figure's panels), each beside its ratios: a ratio
    of dots is hollow where the verdict is SAME and filled where not, whichever the file; the second
    file's dots beside the first's are half filled, never hollow."""
    from gpubench_tools.models.comparison import SAME, Rules, compare
    doc = json.loads(WHOLE_SUITE.read_text())
    slower = json.loads(json.dumps(doc))
    for b in slower["benchmarks"]:
        if b["name"].startswith("launch/module/"):
            b["real_time"] *= 2
    srcs = sources(("base", doc), ("new", slower), tmp_path=tmp_path)
    rows = compare(srcs[0].result, srcs[1].result,
                   Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.05), True).rows
    fig = family_plot.family_figure(srcs, "launch", "launch",
                                    ratios={1: {row.name: row for row in rows}})
    axes = {ax.get_title(): ax for ax in fig.axes if ax.has_data()}
    assert len(axes) > family_plot.MAX_PANELS
    module = [row for row in rows if row.name.startswith("launch/module/")]
    marks = dots(axes["module: ratio to the first"])
    assert len(marks) == len(module)
    assert sorted(m.get_fillstyle() for m in marks) == sorted(
        "none" if row.verdict == SAME else "full" for row in module)
    assert {m.get_fillstyle() for m in dots(axes["module"])} == {"full", "left"}


def saxpy_variants(doc: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(b["name"].split("/")[1] for b in doc["benchmarks"]
                              if b["name"].startswith("saxpy/")))


@pytest.mark.skipif(not SUITE.exists(), reason="the committed default suite is not in this tree")
def test_facts_without_panel_and_files_without_facts_still_plot(tmp_path: Path) -> None:
    """The suite's own facts predate `panel`: saxpy in GB/s alone, copy sizes still marked. A
    file without facts reads its arguments as bytes, which for saxpy are elements: no mark."""
    doc = json.loads(SUITE.read_text())
    saxpy, copy = saxpy_and_copy_panels(doc, tmp_path)
    assert list(saxpy) == ["saxpy"] and l2_marks(copy["DtoD"]) == [60 << 20]
    del doc["context"]["gpubench_families"]
    saxpy, copy = saxpy_and_copy_panels(doc, tmp_path)
    assert list(saxpy) == ["saxpy"]
    assert all(l2_marks(ax) == [] for ax in [*saxpy.values(), *copy.values()])


def with_energy(doc: dict[str, Any], pattern: str) -> dict[str, Any]:
    """`doc` with gpubench --energy's counters on the benchmarks whose name holds `pattern`:
    joules_per_gb (saxpy, copy) or uj_per_launch (launch), each with its twin above idle; one
    twin below zero, as a launch drawing less than the idle GPU measures."""
    doc = json.loads(json.dumps(doc))
    for i, b in enumerate(b for b in doc["benchmarks"] if pattern in b["name"]):
        figure = "uj_per_launch" if b["name"].startswith("launch/") else "joules_per_gb"
        b[figure] = 0.05 + 0.001 * i
        b[f"{figure}_above_idle"] = -0.002 if i == 0 else 0.03 + 0.001 * i
        b.update(power_w=420.0, idle_power_w=120.0, energy_window_s=1.01, energy_steps=10,
                 energy_step_ms=100.7, energy_ops=1234.5)
    return doc


@pytest.mark.skipif(not SUITE.exists(), reason="the committed default suite is not in this tree")
def test_energy_figures_are_drawn_where_a_benchmark_carries_them(tmp_path: Path) -> None:
    """The energy figures --energy adds are declared by the families (--describe): drawn in
    panels of their own beside the figure for the benchmarks that carry them, the others
    unchanged; the figure of each benchmark stays its family's first."""
    doc = with_energy(with_facts(json.loads(SUITE.read_text())), "saxpy/driver/")
    result = load(write_json(tmp_path / "energy.json", doc))
    driver = result.benchmarks["saxpy/driver/16777216"]
    assert driver.metric.key == "bytes_per_second"
    assert [m.key for m in driver.panel_metrics] == [
        "bytes_per_second", "pct_of_peak", "joules_per_gb", "joules_per_gb_above_idle"]
    assert driver.panel_metrics[2].unit == "J/GB" and not driver.panel_metrics[2].bigger_is_better
    runtime = result.benchmarks["saxpy/runtime/16777216"]
    assert [m.key for m in runtime.panel_metrics] == ["bytes_per_second", "pct_of_peak"]
    saxpy, _ = saxpy_and_copy_panels(doc, tmp_path)
    assert list(saxpy) == ["saxpy", "saxpy: % of ceiling", "saxpy: J/GB",
                           "saxpy: J/GB above idle"]
    assert len(data_lines(saxpy["saxpy: J/GB"])) == 1  # the driver variant alone


@pytest.mark.skipif(not SUITE.exists(), reason="the committed default suite is not in this tree")
def test_compare_and_report_read_runs_with_and_without_energy(tmp_path: Path,
                                                               run_script: RunScript) -> None:
    doc = with_facts(json.loads(SUITE.read_text()))
    # The families that carry energy and one that does not; the rest of the suite would add
    # more of the same work.
    doc["benchmarks"] = [b for b in doc["benchmarks"]
                         if b["name"].startswith(("saxpy/", "launch/", "copy/HtoD/pinned/"))]
    base = write_json(tmp_path / "base.json", doc)
    energy = write_json(tmp_path / "energy.json",
                        with_energy(with_energy(doc, "saxpy/driver/"), "launch/driver/throughput"))
    compared = run_script("compare", base, energy, "--report")
    assert compared.returncode in (0, 1), compared.stderr
    assert "saxpy/driver/16777216" in compared.stdout and not compared.stderr
    # The families that carry energy; the others draw as they do without it.
    families = "--filter=^(saxpy|launch)/"
    report = run_script("report", base, energy, "-o", tmp_path / "report.html", families)
    assert report.returncode == 0, report.stderr
    plotted = run_script("plot", energy, "-o", tmp_path / "plots", families)
    assert plotted.returncode == 0, plotted.stderr
    assert ((tmp_path / "plots" / "saxpy.png").exists()
            and (tmp_path / "plots" / "launch.png").exists())
