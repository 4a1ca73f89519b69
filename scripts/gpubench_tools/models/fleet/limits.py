"""Absolute floors per GPU model: a GPU below its model's floor is flagged whatever its group.

A limits file (results/limits/*.json, written by gpubench-tools limits from our own
measurements) names one GPU model (`gpu_name`, as gpubench's context writes it) and, per
benchmark, `floor_gb_per_s` and `requires`: context keys whose value must match a regular
expression for the floor to apply (the PCIe link's maximum for copies through it, the L2 mode
of saxpy, the NVLink of a GPU pair), matched as a --filter is (name_filter): a pattern of more
than MAX_FILTER_CHARS, or one that takes longer than MATCH_SECONDS to match a value, refuses
its file. A GPU is below the floor on a sweep when --corroborate of
the sweep's floored benchmarks (all of them where it has fewer) are below their floor.

A limits file may also hold `process_losses`: per benchmark, `loss_pct`, the largest loss a
healthy separate process showed against its card's median (models/limits.py). A group of that
model flags no GPU on the benchmark for a loss within it (models/fleet/outliers.py). Its
`median_loss_pct` gives the same of the median of K processes, per K: a fleet judging each GPU
by the median of K processes (--processes-per-gpu, models/fleet/processes.py) uses those.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpubench_tools.models.fleet.identity import plain
from gpubench_tools.models.fleet.outliers import sweep
from gpubench_tools.reading.bounded_read import special_file
from gpubench_tools.reading.facts import GBPS
from gpubench_tools.reading.fleet.files import read_text
from gpubench_tools.reading.fleet.numbers import beyond_float
from gpubench_tools.reading.fleet.records import FleetInputError, Gpu
from gpubench_tools.reading.json_values import json_loads
from gpubench_tools.reading.name_filter import MATCH_SECONDS, FilterError, NameFilter, name_filter
from gpubench_tools.reading.safe_text import one_line

# The most processes a GPU's median may be of in a limits file (`median_loss_pct`): the K slowest
# of a card's processes are half of them at most, and a card of 64 separate runs is more than any
# committed set holds.
MAX_PROCESSES = 32
# The limits committed in the clone the package runs from (scripts/gpubench_tools/ sits four
# folders below the repository's root); an installed package has none and reads --limits.
DEFAULT_DIRECTORY = Path(__file__).resolve().parents[4] / "results" / "limits"


@dataclass(frozen=True)
class Floor:
    floor_gb_per_s: float
    requires: dict[str, NameFilter]

    def applies(self, context: dict[str, Any]) -> bool:
        """Whether each `requires` key is in the context with a value its pattern finds.
        FilterError, naming the pattern and the key, where one takes longer than MATCH_SECONDS
        (name_filter's timer)."""
        for key, pattern in self.requires.items():
            try:
                if key not in context or not pattern.search(str(context[key])):
                    return False
            except FilterError:
                raise FilterError(pattern.text, f"takes longer than {MATCH_SECONDS:g} s to "
                                  f"match the context's {key!r} (Python's re backtracks without "
                                  "end on nested quantifiers such as (a+)+$); write it without "
                                  "them") from None
        return True


@dataclass(frozen=True)
class Limits:
    source: str
    gpu_name: str
    floors: dict[str, Floor]  # by benchmark name
    # by benchmark name: the largest loss of a healthy process, a fraction
    process_losses: dict[str, float] = field(default_factory=dict)
    # by number of processes K (2 or more), by benchmark name: the largest loss of the median of
    # K healthy processes, a fraction
    median_losses: dict[int, dict[str, float]] = field(default_factory=dict)

    def losses_of(self, processes: int) -> dict[str, float]:
        """Per benchmark, the largest loss of a healthy GPU judged by the median of `processes`
        processes, a single process's where the file gives none of that many (a host-paced
        figure, a benchmark of cards of too few processes): the larger loss, never a
        smaller one than is known."""
        if processes == 1:
            return self.process_losses
        return {**self.process_losses, **self.median_losses.get(processes, {})}


@dataclass(frozen=True)
class BelowFloor:
    gpu: Gpu
    benchmark: str
    value: float  # GB/s
    floor: float  # GB/s
    limits: str  # the file


def _problem(path: Path, text: str) -> FleetInputError:
    return FleetInputError(f"{path}: not a limits file ({text})")


def load_limits(path: Path) -> Limits:
    try:
        doc = json_loads(read_text(path))
    except (json.JSONDecodeError, RecursionError, ValueError) as error:
        raise _problem(path, f"invalid JSON: {str(error).splitlines()[0]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("gpu_name"), str) \
            or not isinstance(doc.get("floors"), dict):
        raise _problem(path, "it needs an object with 'gpu_name' (text) and 'floors' (an object)")
    floors = {}
    for name, entry in doc["floors"].items():
        where = f"floor of {name!r}"
        if not isinstance(entry, dict):
            raise _problem(path, f"the {where} is not an object")
        value = entry.get("floor_gb_per_s")
        if why := beyond_float(value):
            raise _problem(path, f"the {where}: 'floor_gb_per_s' is {why}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise _problem(path, f"the {where} has no 'floor_gb_per_s' > 0")
        requires = entry.get("requires", {})
        if not isinstance(requires, dict) or not all(isinstance(v, str) for v in requires.values()):
            raise _problem(path, f"the {where}: 'requires' is not an object of text")
        try:
            patterns = {key: name_filter(text) for key, text in requires.items()}
        except FilterError as error:
            raise _problem(path, f"the {where}: 'requires' holds a bad expression ({error})") \
                from None
        floors[name] = Floor(float(value), patterns)
    losses, of_medians = _process_losses(path, doc)
    return Limits(str(path), doc["gpu_name"], floors, losses, of_medians)


def _loss(path: Path, name: str, key: str, value: Any) -> float:
    """A loss in percent of the file, as a fraction; refused in one line unless 0 to below
    100."""
    if why := beyond_float(value):
        raise _problem(path, f"the process loss of {name!r}: {key!r} is {why}")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 100:
        raise _problem(path, f"the process loss of {name!r} has no {key!r} from 0 to below 100")
    return float(value) / 100


def _process_losses(path: Path, doc: dict) -> tuple[dict[str, float],
                                                    dict[int, dict[str, float]]]:
    entries = doc.get("process_losses", {})
    if not isinstance(entries, dict):
        raise _problem(path, "'process_losses' is not an object")
    losses: dict[str, float] = {}
    of_medians: dict[int, dict[str, float]] = {}
    for name, entry in entries.items():
        losses[name] = _loss(path, name, "loss_pct",
                             entry.get("loss_pct") if isinstance(entry, dict) else None)
        medians = entry.get("median_loss_pct", {})
        if not isinstance(medians, dict):
            raise _problem(path, f"the process loss of {name!r}: 'median_loss_pct' is not an "
                           "object")
        for count, value in medians.items():
            if not (count.isascii() and count.isdigit() and 2 <= int(count) <= MAX_PROCESSES):
                raise _problem(path, f"the process loss of {name!r}: 'median_loss_pct' names "
                               f"{one_line(count, 40)!r}, not a number of processes from 2 to "
                               f"{MAX_PROCESSES}")
            of_medians.setdefault(int(count), {})[name] = _loss(
                path, name, f"median_loss_pct {count}", value)
    return losses, of_medians


def limits_of(limits: list[Limits], gpu_name: str) -> Limits | None:
    """The model's limits file, its name read as grouping reads it (case, spacing and
    compatibility forms aside: identity.plain); None where no file names it."""
    return next((limit for limit in limits if plain(limit.gpu_name) == plain(gpu_name)), None)


def process_losses_of(limits: list[Limits], gpu_name: str, processes: int = 1
                      ) -> dict[str, float]:
    """The process losses of the model's limits file for a GPU judged by the median of
    `processes` processes (limits_of, Limits.losses_of); none where no file names it."""
    limit = limits_of(limits, gpu_name)
    return limit.losses_of(processes) if limit is not None else {}


def load_all_limits(paths: list[Path]) -> list[Limits]:
    """The limits files, one per GPU model: a second file naming a model already given is
    refused (FleetInputError naming both), where judging by one would leave the other's floors
    silently unapplied."""
    limits: dict[str, Limits] = {}
    for path in paths:
        limit = load_limits(path)
        if earlier := limits.get(limit.gpu_name):
            raise FleetInputError(f"{path}: limits for {one_line(limit.gpu_name, 80)!r} again, as "
                                  f"in {earlier.source}: give one file per GPU model")
        limits[limit.gpu_name] = limit
    return list(limits.values())


def default_limit_files() -> list[Path]:
    """results/limits/*.json of this repository, named from the current directory. Raises
    FleetInputError for one that is no regular file, which is not opened: a FIFO's writer
    could hold gpubench-tools fleet."""
    if not DEFAULT_DIRECTORY.is_dir():
        return []
    files = [_from_here(path) for path in sorted(DEFAULT_DIRECTORY.glob("*.json"))]
    for path in files:
        if problem := special_file(path):
            raise _problem(path, problem)
    return files


def _from_here(path: Path) -> Path:
    """`path` named from the working folder, as the report shows it; absolute where the working
    folder is gone (deleted under a running shell), which every path given absolute outlives."""
    try:
        return Path(os.path.relpath(path))
    except OSError:
        return path


def judge_floors(gpus: list[Gpu], limits: list[Limits], corroborate: int) -> list[BelowFloor]:
    """Below-floor benchmarks of flagged sweeps, worst (lowest value over floor) first."""
    by_model = {limit.gpu_name: limit for limit in limits}
    flagged: list[BelowFloor] = []
    for gpu in gpus:
        limit = by_model.get(gpu.gpu_name)
        if limit is None:
            continue
        below: dict[str, list[BelowFloor]] = {}
        floored: dict[str, int] = {}
        for name, floor in limit.floors.items():
            bench = gpu.benchmarks.get(name)
            if bench is None or GBPS.key not in bench.values \
                    or not applies(limit, name, gpu.context):
                continue
            floored[sweep(name)] = floored.get(sweep(name), 0) + 1
            value = bench.value(GBPS)
            if value < floor.floor_gb_per_s:
                below.setdefault(sweep(name), []).append(
                    BelowFloor(gpu, name, value, floor.floor_gb_per_s, limit.source))
        for name, found in below.items():
            if len(found) >= min(corroborate, floored[name]):
                flagged += found
    return sorted(flagged, key=lambda b: b.value / b.floor)


def applies(limit: Limits, name: str, context: dict[str, Any]) -> bool:
    """Whether the floor of benchmark `name` applies to a GPU of this context; a pattern too
    slow to match refuses its limits file."""
    try:
        return limit.floors[name].applies(context)
    except FilterError as error:
        raise _problem(Path(limit.source), f"the floor of {name!r}: 'requires' {error}") \
            from None


def models_without_limits(gpus: list[Gpu], limits: list[Limits]) -> list[str]:
    known = {limit.gpu_name for limit in limits}
    return sorted({gpu.gpu_name for gpu in gpus} - known)
