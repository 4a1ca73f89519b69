#!/usr/bin/env python3
"""Find the slow GPU of a fleet: compare per-GPU gpubench results, like with like.

Reads gpubench JSON files (deploy/slurm writes one per GPU) and JSON Lines pod logs (deploy/k8s:
one JSON document per line), from files or directories (*.json, *.jsonl and *.err in them).
GPUs are grouped by GPU model, driver version and gpubench version; within a group, each
benchmark's figure (GB/s for copies and saxpy, µs per launch for launches) is compared with the
group median. A benchmark flags a GPU that is worse than the median by more than --k median
absolute deviations (scaled to a normal standard deviation: 1.4826 MAD) AND by more than
--margin percent of the median: the first rule ignores a GPU inside the fleet's spread, the
second a difference too small to matter where the spread is tiny. A GPU is flagged on a sweep
(a benchmark name less its size or payload: copy/HtoD/pinned/async) when --corroborate of the
sweep's benchmarks flag it (all of them where the sweep has fewer): a fault slows a path at
every size, while one slow repetition of a host-timed benchmark is what a busy host does to one
run (on the H200 VM, launch submit runs up to 2.5x its median once in 10 repetitions).

Exit 0, or 1 with --fail-on-outlier when a GPU is flagged; 2 for unusable input (an unreadable
result, the same GPU twice, no group of --min-gpus to compare).
"""

import argparse
import re
import sys
import tempfile
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpubench_json import GpubenchJsonError, Metric, Result, load
from text_table import render

MAD_TO_SIGMA = 1.4826  # the MAD of a normal distribution is 0.6745 sigma
# The benchmarks a heatmap shows unless --headline says otherwise; sized ones at their largest
# size. Any benchmark that flagged a GPU is shown too.
DEFAULT_HEADLINES = (
    r"^copy/(HtoD|DtoH|bidir)/pinned/async/",
    r"^copy/DtoD/device/async/",
    r"^saxpy/[^/]+/",
    r"^launch/[^/]+/(submit|roundtrip)/params:0$",
)
# What a person reads first when a GPU is slow: shown beside each flagged GPU.
HINT_KEYS = ("pcie_link", "host_numa_node", "gpu_state_before")
_POD_STATUS = re.compile(r"^gpubench-pod: (.*): exit status (\d+)$")
_SIZE = re.compile(r"[0-9]+|params:[0-9]+")


class FleetInputError(Exception):
    """Input fleet.py cannot use; str() is one line."""


@dataclass(frozen=True)
class Gpu:
    source: str  # file, or file:line for a pod log
    result: Result

    @property
    def uuid(self) -> str:
        return str(self.result.context.get("gpu_uuid") or self.source)

    @property
    def node(self) -> str:
        context = self.result.context
        for key in ("slurm_node", "k8s_node", "host_name"):
            if context.get(key):
                return str(context[key])
        return "unknown host"

    @property
    def label(self) -> str:
        return f"{self.node} {self.uuid[:12]}"

    @property
    def group_key(self) -> tuple[str, str, str]:
        return (self.result.gpu_name, self.result.driver_version,
                str(self.result.context.get("gpubench_version", "unknown")))


@dataclass(frozen=True)
class FailedRun:
    """A run that exited non-zero: a .err file of deploy/slurm, a status line of a pod log."""
    source: str
    message: str
    status: str


@dataclass(frozen=True)
class Flag:
    gpu: Gpu
    benchmark: str
    value: float
    median: float
    unit: str
    speed: float  # relative to the median, 1 = median, < 1 slower
    deviations: float  # how far worse than the median, in scaled MADs (inf where the MAD is 0)


@dataclass
class Group:
    key: tuple[str, str, str]
    gpus: list[Gpu]
    benchmarks: list[str] = field(default_factory=list)  # compared: on >= min_gpus GPUs
    speed: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))  # gpus x benchmarks
    flags: list[Flag] = field(default_factory=list)
    uncorroborated: int = 0  # benchmarks that flagged a GPU no other size of its sweep did

    def describe(self) -> str:
        model, driver, version = self.key
        return f"{model}, driver {driver}, gpubench {version}"


def read_inputs(paths: Iterable[str], scratch: Path) -> tuple[list[Gpu], list[FailedRun]]:
    gpus: list[Gpu] = []
    failed: list[FailedRun] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files = sorted(p for p in path.iterdir()
                           if p.is_file() and p.suffix in (".json", ".jsonl", ".err"))
        elif path.is_file():
            files = [path]
        else:
            raise FleetInputError(f"{path}: no such file or directory")
        for file in files:
            if file.suffix == ".err":
                failed.append(read_err(file))
            elif file.suffix in (".jsonl", ".log"):
                more_gpus, more_failed = read_pod_log(file, scratch)
                gpus += more_gpus
                failed += more_failed
            else:
                gpus.append(Gpu(str(file), load_result(file)))
    return gpus, failed


def load_result(path: Path) -> Result:
    try:
        return load(path)
    except GpubenchJsonError as error:
        raise FleetInputError(str(error)) from None


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FleetInputError(f"{path}: cannot read ({error})") from None


def read_err(path: Path) -> FailedRun:
    lines = [line for line in read_text(path).splitlines() if line.strip()]
    status = lines.pop()[len("exit status "):] if lines and lines[-1].startswith("exit status ") else "?"
    return FailedRun(str(path), lines[0] if lines else "(no message)", status)


def read_pod_log(path: Path, scratch: Path) -> tuple[list[Gpu], list[FailedRun]]:
    """A JSON Lines pod log of deploy/container/gpubench-pod: a JSON document per line, and
    for a run that exited non-zero its stderr lines and a 'gpubench-pod: ... exit status N'."""
    gpus, failed, message = [], [], ""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        where = f"{path}:{number}"
        if line.startswith("{"):
            # Validation is gpubench_json's, which reads files: one per document.
            document = scratch / f"{len(list(scratch.iterdir()))}.json"
            document.write_text(line, encoding="utf-8")
            try:
                gpus.append(Gpu(where, load(document)))
            except GpubenchJsonError as error:
                raise FleetInputError(str(error).replace(str(document), where, 1)) from None
        elif status := _POD_STATUS.match(line):
            failed.append(FailedRun(f"{where} ({status[1]})", message or "(no message)",
                                    status[2]))
            message = ""
        elif line.strip() and not message:
            message = line.strip()
    return gpus, failed


def check_unique(gpus: list[Gpu]) -> None:
    seen: dict[str, Gpu] = {}
    for gpu in gpus:
        if gpu.uuid in seen:
            raise FleetInputError(f"GPU {gpu.uuid} appears twice: {seen[gpu.uuid].source} and "
                                  f"{gpu.source} (keep one result per GPU)")
        seen[gpu.uuid] = gpu


def group_gpus(gpus: list[Gpu]) -> list[Group]:
    groups: dict[tuple[str, str, str], list[Gpu]] = {}
    for gpu in gpus:
        groups.setdefault(gpu.group_key, []).append(gpu)
    return [Group(key, sorted(members, key=lambda g: g.label))
            for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def benchmark_metric(gpus: list[Gpu], name: str) -> Metric:
    return next(g.result.benchmarks[name].metric for g in gpus if name in g.result.benchmarks)


def sweep(name: str) -> str:
    """A benchmark's name less its size or payload: the benchmarks a fault would slow alike."""
    prefix, _, last = name.rpartition("/")
    return prefix if prefix and _SIZE.fullmatch(last) else name


def judge(group: Group, k: float, margin_pct: float, min_gpus: int, corroborate: int) -> None:
    """Fills group.benchmarks, group.speed, group.flags and group.uncorroborated."""
    names: list[str] = []
    for gpu in group.gpus:
        names += [n for n in gpu.result.benchmarks if n not in names]
    columns, speeds, candidates = [], [], []
    sweep_sizes: dict[tuple[int, str], int] = {}  # (GPU row, sweep): benchmarks it ran
    for name in names:
        metric = benchmark_metric(group.gpus, name)
        values = np.array([
            gpu.result.benchmarks[name].value(metric)
            if name in gpu.result.benchmarks and metric.key in gpu.result.benchmarks[name].values
            else np.nan for gpu in group.gpus])
        present = np.isfinite(values)
        if present.sum() < min_gpus:
            continue
        median = float(np.median(values[present]))
        if median <= 0:
            continue
        mad = MAD_TO_SIGMA * float(np.median(np.abs(values[present] - median)))
        worse = (median - values) if metric.bigger_is_better else (values - median)
        speed = values / median if metric.bigger_is_better else median / values
        columns.append(name)
        speeds.append(speed)
        for row in np.flatnonzero(present):
            sweep_sizes[(row, sweep(name))] = sweep_sizes.get((row, sweep(name)), 0) + 1
        with np.errstate(invalid="ignore"):
            flagged = present & (worse > k * mad) & (worse > margin_pct / 100 * median)
        candidates += [(int(row), Flag(
            group.gpus[row], name, float(values[row]), median, metric.unit, float(speed[row]),
            float(worse[row] / mad) if mad > 0 else float("inf"))) for row in np.flatnonzero(flagged)]
    per_sweep: dict[tuple[int, str], int] = {}
    for row, flag in candidates:
        per_sweep[(row, sweep(flag.benchmark))] = per_sweep.get((row, sweep(flag.benchmark)), 0) + 1
    for row, flag in candidates:
        key = (row, sweep(flag.benchmark))
        if per_sweep[key] >= min(corroborate, sweep_sizes[key]):
            group.flags.append(flag)
        else:
            group.uncorroborated += 1
    group.benchmarks = columns
    group.speed = np.array(speeds).T if speeds else np.empty((len(group.gpus), 0))


def headline_benchmarks(groups: list[Group], patterns: list[re.Pattern[str]]) -> list[str]:
    """Benchmarks matching a pattern (sized ones at their largest size), in pattern order, then,
    for a flagged GPU none of these show, the benchmark it is slowest on."""
    compared: list[str] = []
    for group in groups:
        compared += [n for n in group.benchmarks if n not in compared]
    chosen: list[str] = []
    for pattern in patterns:
        largest: dict[str, tuple[int, str]] = {}
        for name in compared:
            if not pattern.search(name):
                continue
            prefix, _, last = name.rpartition("/")
            if last.isdigit():
                if prefix not in largest or int(last) > largest[prefix][0]:
                    largest[prefix] = (int(last), name)
            elif name not in chosen:
                chosen.append(name)
        chosen += [name for _, name in largest.values() if name not in chosen]
    for group in groups:
        by_gpu: dict[str, list[Flag]] = {}
        for flag in group.flags:
            by_gpu.setdefault(flag.gpu.uuid, []).append(flag)
        for flags in by_gpu.values():
            if not any(f.benchmark in chosen for f in flags):
                chosen.append(min(flags, key=lambda f: f.speed).benchmark)
    return chosen


def figure_value(value: float, unit: str) -> str:
    return f"{value:.4g} {unit}"


def size_label(name: str) -> str:
    last = name.rpartition("/")[2]
    if not last.isdigit():
        return last
    size = int(last)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return last


def flag_rows(group: Group) -> list[list[str]]:
    """One row per flagged GPU and sweep: the sizes that flagged it, and the worst of them."""
    by_sweep: dict[tuple[str, str], list[Flag]] = {}
    for flag in group.flags:
        by_sweep.setdefault((flag.gpu.label, sweep(flag.benchmark)), []).append(flag)
    rows = []
    for (label, name), flags in sorted(by_sweep.items(), key=lambda kv: (kv[0][0], min(f.speed for f in kv[1]))):
        worst = min(flags, key=lambda f: f.speed)
        flags = sorted(flags, key=lambda f: int(re.sub(r"\D", "", f.benchmark.rpartition("/")[2]) or 0))
        sizes = ", ".join(size_label(f.benchmark) for f in flags) if name != worst.benchmark else ""
        rows.append([label, name, sizes, f"{worst.speed:.3f}",
                     f"{figure_value(worst.value, worst.unit)} / {figure_value(worst.median, worst.unit)}",
                     "inf" if np.isinf(worst.deviations) else f"{worst.deviations:.1f}"])
    return rows


def report(gpus: list[Gpu], failed: list[FailedRun], groups: list[Group],
           args: argparse.Namespace) -> str:
    lines = [f"fleet.py: {len(gpus)} GPUs in {len(groups)} group(s) of one GPU model, driver and "
             f"gpubench version. A benchmark flags a GPU worse than the group median by more than "
             f"{args.k:g} MADs and {args.margin:g}%; a GPU is flagged on a sweep where "
             f"{args.corroborate} of its sizes (or all it has) flag it."]
    if failed:
        lines.append(f"{len(failed)} run(s) exited non-zero:")
        lines += [f"  {f.source}: {f.message} (exit status {f.status})" for f in failed]
    for group in groups:
        head = f"\n{group.describe()}: {len(group.gpus)} GPUs"
        if not group.benchmarks:
            lines.append(f"{head}: too few to compare (--min-gpus={args.min_gpus})")
            lines += [f"  {g.label}: {g.source}" for g in group.gpus]
            continue
        flagged = sorted({f.gpu.uuid: f.gpu for f in group.flags}.values(), key=lambda g: g.label)
        lines.append(f"{head}, {len(group.benchmarks)} benchmarks compared: {len(flagged)} GPU(s) "
                     f"flagged" + (f"; {group.uncorroborated} benchmark(s) flagged a GPU no other "
                                   f"size of the sweep did (not counted)"
                                   if group.uncorroborated else ""))
        if not flagged:
            continue
        lines.append(render(["GPU", "sweep", "sizes", "speed", "value / group median", "MADs"],
                            flag_rows(group), markdown=args.markdown, align="left"))
        for gpu in flagged:
            context = gpu.result.context
            hints = ", ".join(f"{key} {context[key]}" for key in HINT_KEYS if key in context)
            lines.append(f"  {gpu.label}: {gpu.source}" + (f" ({hints})" if hints else ""))
    return "\n".join(lines)


def draw_heatmap(groups: list[Group], columns: list[str], path: Path,
                 args: argparse.Namespace) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    rows, labels, blocks, flagged = [], [], [], set()
    for group in groups:
        if not group.benchmarks:
            continue
        index = {name: i for i, name in enumerate(group.benchmarks)}
        blocks.append((len(rows), group))
        for r, gpu in enumerate(group.gpus):
            rows.append([group.speed[r, index[c]] if c in index else np.nan for c in columns])
            labels.append(gpu.label)
        flagged |= {(f.gpu.label, f.benchmark) for f in group.flags}
    speed = np.array(rows, dtype=float)
    finite = speed[np.isfinite(speed)]
    low = min(0.8, float(finite.min())) if finite.size else 0.8
    high = max(1.2, float(finite.max())) if finite.size else 1.2
    fig, ax = plt.subplots(figsize=(max(9.0, 5.5 + 0.45 * len(columns)), 3.0 + 0.28 * len(rows)),
                           layout="constrained")
    image = ax.imshow(np.ma.masked_invalid(speed), cmap="RdBu", aspect="auto",
                      norm=TwoSlopeNorm(vcenter=1.0, vmin=low, vmax=high))
    for r, label in enumerate(labels):
        for c, column in enumerate(columns):
            if (label, column) in flagged:
                ax.text(c, r, f"{speed[r, c]:.2f}", ha="center", va="center", fontsize=7,
                        color="white", fontweight="bold")
                ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, lw=1.5,
                                           ec="black"))
    for start, group in blocks:
        if start:
            ax.axhline(start - 0.5, color="black", linewidth=2)
        model, driver, version = group.key
        ax.annotate(f"{model}, driver {driver}, gpubench {version[:20]}: {len(group.gpus)} GPUs",
                    (1.01, start - 0.5), xycoords=("axes fraction", "data"), va="top",
                    fontsize=7)
    ax.set_xticks(range(len(columns)), columns, rotation=35, ha="right", fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    bar = fig.colorbar(image, ax=ax, location="bottom", shrink=0.6, aspect=40,
                       label="speed relative to the group median (GB/s ratio; inverse for µs)")
    bar.set_ticks([low, (low + 1) / 2, 1.0, high], labels=[f"{t:.2f}" for t in (low, (low + 1) / 2, 1.0, high)])
    fig.suptitle(f"GPU fleet: each benchmark against its group's median\nboxed: flagged (> {args.k:g} "
                 f"MADs and > {args.margin:g}% worse, on {args.corroborate} sizes of its sweep)",
                 fontsize=9)
    try:
        fig.savefig(path, dpi=130)
    except OSError as error:
        raise FleetInputError(f"{path}: cannot write the heatmap ({error.strerror or error})") from None
    finally:
        plt.close(fig)


class OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line on stderr and exit 2, like every other unusable input."""

    def error(self, message: str) -> typing.NoReturn:
        print(f"fleet.py: {message} (--help for usage)", file=sys.stderr)
        sys.exit(2)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                        help="result directories (*.json, *.jsonl, *.err) or files")
    parser.add_argument("--k", type=float, default=5.0,
                        help="MADs (scaled to sigma) a GPU must be worse than the median by (5)")
    parser.add_argument("--margin", type=float, default=15.0,
                        help="percent of the median a GPU must be worse than it by (15)")
    parser.add_argument("--corroborate", type=int, default=2,
                        help="sizes of a sweep that must flag a GPU (2; 1: every benchmark alone)")
    parser.add_argument("--min-gpus", type=int, default=4,
                        help="GPUs a group needs for its median to be compared against (4)")
    parser.add_argument("--headline", action="append", metavar="REGEX",
                        help="a benchmark pattern for the heatmap's columns (repeatable; "
                             "default: large pinned copies, saxpy, launch at 0 bytes)")
    parser.add_argument("-o", "--output", type=Path, help="draw the heatmap to this file (.png, .svg, .pdf)")
    parser.add_argument("--fail-on-outlier", action="store_true",
                        help="exit 1 when any GPU is flagged")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)
    for name in ("k", "margin"):
        value = getattr(args, name)
        if not (np.isfinite(value) and value >= 0):
            parser.error(f"--{name}={value}: must be a finite number >= 0")
    if args.corroborate < 1:
        parser.error(f"--corroborate={args.corroborate}: must be 1 or more")
    if args.min_gpus < 3:
        parser.error(f"--min-gpus={args.min_gpus}: a median and its MAD need 3 GPUs or more")
    patterns = []
    for text in args.headline or DEFAULT_HEADLINES:
        try:
            patterns.append(re.compile(text))
        except re.error as error:
            parser.error(f"--headline={text}: not a regular expression ({error})")
    args.patterns = patterns
    if args.output is not None and args.output.is_dir():
        parser.error(f"-o {args.output}: is a directory (name the image file)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            gpus, failed = read_inputs(args.inputs, Path(scratch))
        if not gpus:
            raise FleetInputError("no gpubench result in " + " ".join(args.inputs)
                                  + (f" ({len(failed)} failed run(s))" if failed else ""))
        check_unique(gpus)
        groups = group_gpus(gpus)
        for group in groups:
            if len(group.gpus) >= args.min_gpus:
                judge(group, args.k, args.margin, args.min_gpus, args.corroborate)
        if not any(group.benchmarks for group in groups):
            raise FleetInputError(
                f"no group of {args.min_gpus} or more GPUs (same model, driver and gpubench "
                f"version) with a benchmark in common: nothing to compare "
                f"({', '.join(f'{len(g.gpus)} x {g.describe()}' for g in groups)})")
        print(report(gpus, failed, groups, args))
        if args.output is not None:
            draw_heatmap(groups, headline_benchmarks(groups, args.patterns), args.output, args)
            print(f"heatmap: {args.output}")
    except FleetInputError as error:
        print(f"fleet.py: {error}", file=sys.stderr)
        return 2
    flagged = sum(len({f.gpu.uuid for f in g.flags}) for g in groups)
    return 1 if flagged and args.fail_on_outlier else 0


if __name__ == "__main__":
    sys.exit(main())
