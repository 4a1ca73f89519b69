"""What a family's figure shows, panel by panel: the one model of the data every figure draws,
the PNGs of gpubench-tools plot and report and the SVG of the HTML pages alike.

Every benchmark the files hold is read by its family's facts (reading/results): its family,
series, argument and device. The first series component names the panel (the family, where
the series has one component), the rest the curve: the variants of one panel overlay there
(saxpy's eight, copy's memories and APIs), one curve each, a `/device:N` benchmark a curve of
its own. A benchmark's figures are its figure and each one its family declares with `panel`,
a panel of its own beside the first.

A panel is one of three kinds:
- `sweep`: curves against the argument, two or more arguments among them;
- `dots`: figures without a sweep (no argument, or one argument for all, as launch/gpu_gap's
  params:0): a row per curve, the curve's last component (launch/floor's measure) its colour
  within the rows of the rest (the path);
- `ratios`: benchmarks that carry paired ratios with their 95% intervals (launch/paired,
  models/launch_ratios): those ratios, a row per path and reference, not the benchmark's own
  time; ratios beyond RATIO_SPLIT of 1 in a panel of their own, so the ones near 1 stay readable.

A panel of sizes declared in bytes marks the device's L2 size (the context's l2_bytes) where
a curve that the host does not pace is served from the L2 there (faster within the L2 than at
every size beyond it): a copy that stays on the device, not a copy from host memory.
"""

from dataclasses import dataclass, field

import numpy as np

from gpubench_tools.models.launch_ratios import ratio_rows
from gpubench_tools.models.run_series import spread
from gpubench_tools.reading.errors import BadValueError
from gpubench_tools.reading.facts import Argument, FamilyFacts, Metric, NameParts
from gpubench_tools.reading.results import Benchmark, Result

SWEEP, DOTS, RATIOS = "sweep", "dots", "ratios"
# How much faster within the L2 than beyond it a curve is served from the L2 there.
L2_SPEEDUP = 1.05
# Paired ratios further than this from 1 are drawn in a panel of their own.
RATIO_SPLIT = 2.0
RATIO_METRIC = Metric("ratio", "ratio to the reference path", 1.0, False)


# A file's line style, in the order of the files; dashed is kept for gpubench-tools plot's fits.
FILE_LINESTYLES = ("-", ":", "-.", (0, (8, 2, 1, 2, 1, 2)), (0, (1, 4)), (0, (6, 3)))


@dataclass(frozen=True)
class Source:
    """One result file as drawn: its data, its legend label, and its position among the files
    compared (its line style and marker fill; on a page, its class run-<index>)."""
    result: Result
    label: str
    index: int

    @property
    def linestyle(self) -> str | tuple[int, tuple[int, ...]]:
        return FILE_LINESTYLES[self.index % len(FILE_LINESTYLES)]


def make_source(result: Result, label: str, index: int) -> Source:
    return Source(result, label, index)


@dataclass
class Trace:
    """One file's points of one curve, by argument: the figure, the spread of its repetitions
    (or a ratio's interval) and the benchmarks behind them."""
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    names: list[str] = field(default_factory=list)
    host_paced: bool = False


@dataclass
class Panel:
    """One axes: a figure, and per curve (series, device) each file's points."""
    title: str
    metric: Metric
    kind: str
    argument: Argument | None  # the sweep's; for dots, that of the one argument (or None)
    argument_key: str = ""
    curves: dict[str, dict[str, Trace]] = field(default_factory=dict)
    # The L2 size of each file whose facts declare the argument in bytes, by the file's label.
    l2_bytes: dict[str, int] = field(default_factory=dict)

    @property
    def argument_unit(self) -> str:
        return self.argument.unit if self.argument is not None else ""

    def traces(self) -> list[Trace]:
        return [t for per_file in self.curves.values() for t in per_file.values()]

    def arguments(self) -> np.ndarray:
        traces = self.traces()
        return np.concatenate([t.x for t in traces]) if traces else np.array([])

    def names(self) -> list[str]:
        return [n for t in self.traces() for n in t.names]


def curve_label(series: str, device: int | None) -> str:
    """A curve's name in a legend: its series, and the device where the name gives one."""
    return series if device is None else f"{series} (device:{device})"


def panel_and_curve(family: str, series: str, device: int | None) -> tuple[str, str]:
    """The panel (first series component, or the family for a one-component series) and the
    curve a benchmark is drawn in."""
    head, _, rest = series.partition("/")
    return (head, curve_label(rest, device)) if rest else (family, curve_label(series, device))


def family_panels(sources: list[Source], family: str) -> list[Panel]:
    """The panels of `family` over every source, in the order the benchmarks first appear."""
    panels: dict[tuple[str, Metric, bool], Panel] = {}
    l2_of: dict[str, int] = {}
    for source in sources:
        facts = source.result.families.get(family)
        if (l2 := marked_l2(source.result, facts)) is not None:
            l2_of[source.label] = l2
        paired = paired_ratios(source.result, family)
        for bench in source.result.family(family):
            if bench.name in paired:
                add_ratios(panels, family, bench, source.label, paired[bench.name])
                continue
            for metric in bench.panel_metrics:
                add_point(panels, family, facts, bench, metric, source.label,
                          metric == bench.panel_metrics[0])
    for panel in panels.values():
        finish(panel, l2_of)
    return list(panels.values())


def add_point(panels: dict[tuple[str, Metric, bool], Panel], family: str, facts: FamilyFacts | None,
              bench: Benchmark, metric: Metric, file_label: str, first: bool) -> None:
    """A benchmark's figure as a point of its curve, in its panel (added where it is new,
    titled with the unit where the figure is not the benchmark's first)."""
    parts: NameParts = bench.parts
    title, label = panel_and_curve(family, parts.series or family, parts.device)
    key = (title, metric, parts.argument is not None)
    argument = None
    if parts.argument is not None:
        argument = facts.argument if facts is not None and facts.declared \
            and facts.argument is not None else Argument(parts.argument_key, "")
    if key not in panels:
        panels[key] = Panel(title if first else f"{title}: {metric.unit}", metric, SWEEP,
                            argument, parts.argument_key)
    elif argument is not None and argument.unit and not panels[key].argument_unit:
        panels[key].argument = argument  # a later file declares the unit an earlier did not
    low, high = spread(bench, metric)
    x = parts.argument if parts.argument is not None else 0
    append(panels[key], label, file_label, x, bench.value(metric), low, high, bench.name,
           bool(bench.host_paced))


def add_ratios(panels: dict[tuple[str, Metric, bool], Panel], family: str, bench: Benchmark,
               file_label: str, rows: list[tuple[str, float, float, float, bool]]) -> None:
    title, _ = panel_and_curve(family, bench.parts.series, None)
    x = bench.parts.argument if bench.parts.argument is not None else 0
    argument = None
    if bench.parts.argument is not None:
        facts = bench.facts
        argument = facts.argument if facts is not None and facts.argument is not None \
            else Argument(bench.parts.argument_key, "")
    for label, ratio, lo, hi, far in rows:
        key = (f"{title}: ratios{' far from 1' if far else ''}", RATIO_METRIC, True)
        if key not in panels:
            panels[key] = Panel(key[0], RATIO_METRIC, RATIOS, argument,
                                bench.parts.argument_key)
        elif argument is not None and argument.unit and not panels[key].argument_unit:
            panels[key].argument = argument  # a later file declares the unit an earlier did not
        append(panels[key], label, file_label, x, ratio, lo, hi, bench.name, False)


def append(panel: Panel, label: str, file_label: str, x: float, y: float, low: float,
           high: float, name: str, host_paced: bool) -> None:
    per_file = panel.curves.setdefault(label, {})
    trace = per_file.setdefault(file_label, Trace(*(np.array([]) for _ in range(4))))
    trace.x, trace.y = np.append(trace.x, x), np.append(trace.y, y)
    trace.low, trace.high = np.append(trace.low, low), np.append(trace.high, high)
    trace.names.append(name)
    trace.host_paced |= host_paced


def paired_ratios(result: Result, family: str
                  ) -> dict[str, list[tuple[str, float, float, float, bool]]]:
    """The paired ratios of the family's benchmarks that carry them, by benchmark: (path vs
    reference, ratio, low, high, whether that path and reference is ever further than
    RATIO_SPLIT from 1); none for a file whose ratios are unusable (a ratio outside its
    interval): its benchmarks are then drawn by their own figure."""
    family_only = Result(result.path, result.context,
                         {b.name: b for b in result.family(family)})
    try:
        rows = ratio_rows(family_only)
    except BadValueError:
        return {}
    far = {(r.path, r.reference) for r in rows if max(r.ratio, 1 / r.ratio) > RATIO_SPLIT}
    found: dict[str, list[tuple[str, float, float, float, bool]]] = {}
    for row in rows:
        found.setdefault(row.benchmark, []).append(
            (f"{row.path} vs {row.reference}", row.ratio, row.lo, row.hi,
             (row.path, row.reference) in far))
    return found


def finish(panel: Panel, l2_of: dict[str, int]) -> None:
    """Points by argument; one argument for all makes dots; the L2 marked where shown."""
    for per_file in panel.curves.values():
        for trace in per_file.values():
            order = np.argsort(trace.x, kind="stable")
            trace.x, trace.y = trace.x[order], trace.y[order]
            trace.low, trace.high = trace.low[order], trace.high[order]
            trace.names = [trace.names[i] for i in order]
    if panel.kind == SWEEP and (panel.argument is None or np.unique(panel.arguments()).size < 2):
        panel.kind = DOTS
    if panel.kind == SWEEP and panel.argument_unit == "bytes":
        for file_label, l2 in l2_of.items():
            if any(served_from_l2(t, l2, panel.metric.bigger_is_better)
                   for per_file in panel.curves.values()
                   if (t := per_file.get(file_label)) is not None):
                panel.l2_bytes[file_label] = l2


def served_from_l2(trace: Trace, l2: int, bigger_is_better: bool) -> bool:
    """Whether a curve the host does not pace is faster at some size within the L2 than at
    every size beyond it, by L2_SPEEDUP."""
    within = trace.x <= l2
    if trace.host_paced or within.all() or not within.any():
        return False
    if bigger_is_better:
        return bool(trace.y[within].max() > L2_SPEEDUP * trace.y[~within].max())
    return bool(trace.y[within].min() * L2_SPEEDUP < trace.y[~within].min())


def marked_l2(result: Result, facts: FamilyFacts | None) -> int | None:
    """The L2 size a file's panels of the family may mark: where its facts declare the argument
    in bytes (a file without facts may read a count of elements as bytes)."""
    if facts is None or not facts.declared or facts.argument is None \
            or facts.argument.unit != "bytes":
        return None
    return result.l2_bytes
