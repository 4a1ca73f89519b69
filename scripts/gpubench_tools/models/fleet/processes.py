"""Several processes per GPU: a GPU judged by the median of K separate processes of it.

A separate process of gpubench lands on a level of its own (a healthy one of the H200 as far as
4% below its card on host-to-device copies), and a single-process screen cannot resolve a loss
within that level. Run K processes per GPU (`gpubench-tools fleet --processes-per-gpu K`, each
process a result naming the GPU's UUID) and each GPU is judged by the median of its processes,
per benchmark and figure, against the largest loss the median of K healthy processes shows (the
limits file's `median_loss_pct`, models/limits.py): the median of K levels lies nearer the card's
than the slowest single one.

Of a GPU with more than K results, the K latest are its processes (by the context's `date`, as
duplicates.py orders them) and each earlier one is a `duplicate` row. A GPU with fewer is a
`too few` row naming its results, and is not judged: its median is of fewer processes than its
threshold allows for. A benchmark that not all K processes ran is left out of the GPU's figures,
so it is named as lacking it (groups.lacking). The processes of one GPU must be of one build and
one setting (identity_of): ProcessesError names the GPU and the part that differs.
"""

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpubench_tools.models.fleet.duplicates import later_of_each, started
from gpubench_tools.models.fleet.identity import Identity, identity_of
from gpubench_tools.reading.fleet.records import FleetInputError, Gpu, RunRecord
from gpubench_tools.reading.results import Benchmark
from gpubench_tools.reading.safe_text import one_line

TOO_FEW = "too few"


class ProcessesError(FleetInputError):
    """Processes of one GPU that cannot be combined; str() is one line."""


@dataclass(frozen=True)
class PerGpu:
    gpus: list[Gpu]  # one per UUID: the median of its K processes (K = 1: its latest result)
    records: list[RunRecord]  # `duplicate` and `too few` rows


def median_benchmark(processes: Sequence[Benchmark]) -> Benchmark:
    """One benchmark of K processes: per figure and counter, the median of the processes' values
    (those that hold it); their repetitions together (noise_pct, host_timed, throttled and the
    kernels' clock read over all of them); the latest process's facts."""
    latest = processes[0]
    keys = dict.fromkeys(key for bench in processes for key in bench.values)
    values = {key: statistics.median([b.values[key] for b in processes if key in b.values])
              for key in keys}
    # A single run keeps no repetition (reading/fleet/compact.py): its value is its repetition.
    repetitions = [r for b in processes for r in b.repetitions or (b.values,)]
    return Benchmark(latest.name, values, repetitions, f"median of {len(processes)} processes",
                     facts=latest.facts)


def median_gpu(processes: Sequence[Gpu]) -> Gpu:
    """A GPU of K processes, the latest first: the latest's context and names, per benchmark
    that every process ran the median of the processes (median_benchmark)."""
    latest = processes[0]
    names = [name for name in latest.benchmarks
             if all(name in gpu.benchmarks for gpu in processes[1:])]
    benchmarks = {name: median_benchmark([gpu.benchmarks[name] for gpu in processes])
                  for name in names}
    return replace(latest, source=" + ".join(gpu.source for gpu in processes),
                   benchmarks=benchmarks, processes=tuple(gpu.result for gpu in processes))


def _differing(one: Identity, other: Identity) -> str:
    """The first part in which two identities differ, with both values."""
    for part in ("gpu", "driver", "version", "cpus", "caches", "settings"):
        if getattr(one, part) != getattr(other, part):
            return f"{part} ({one_line(str(getattr(one, part)), 120)} against " \
                   f"{one_line(str(getattr(other, part)), 120)})"
    return "nothing"


def check_one_build(uuid: str, processes: Sequence[Gpu]) -> None:
    """ProcessesError where the processes of one GPU differ in build or setting: their median
    would mix what a group keeps apart."""
    first = identity_of(processes[0])
    for gpu in processes[1:]:
        if (its := identity_of(gpu)) != first:
            raise ProcessesError(
                f"--processes-per-gpu: the processes of GPU {one_line(uuid, 80)} differ in "
                f"{_differing(first, its)}: {one_line(processes[0].source, 200)} and "
                f"{one_line(gpu.source, 200)}; give a GPU's processes of one build and setting")


def per_gpu(gpus: Sequence[Gpu], count: int) -> PerGpu:
    """Each GPU judged by the median of its `count` latest results; `duplicate` rows of earlier
    ones, a `too few` row of a GPU with fewer. ProcessesError where no GPU has `count` results
    (the option does not fit the fleet), and where a GPU's processes differ in build or
    setting."""
    if count == 1:
        kept, duplicates = later_of_each(list(gpus))
        return PerGpu(kept, duplicates)
    by_uuid: dict[str, list[Gpu]] = {}
    for gpu in gpus:
        by_uuid.setdefault(gpu.uuid, []).append(gpu)
    most = max((len(results) for results in by_uuid.values()), default=0)
    if most < count:
        raise ProcessesError(f"--processes-per-gpu={count}: no GPU has {count} results (the "
                             f"most: {most}); give each GPU's processes, one result each")
    combined: list[Gpu] = []
    records: list[RunRecord] = []
    for uuid, results in by_uuid.items():
        ordered = sorted(results, key=lambda g: (started(g), g.source), reverse=True)
        if len(ordered) < count:
            records.append(RunRecord(
                TOO_FEW, ordered[0].host, uuid,
                f"{len(ordered)} of the {count} processes --processes-per-gpu asks for: not "
                "judged (its median would be of fewer processes than its threshold allows for)",
                ", ".join(gpu.source for gpu in ordered), job=ordered[0].job))
            continue
        processes = ordered[:count]
        check_one_build(uuid, processes)
        combined.append(median_gpu(processes))
        records += [RunRecord(
            "duplicate", earlier.host, uuid,
            f"a result beyond the {count} latest processes of the GPU (started "
            f"{earlier.context.get('date', 'at a time not stated')}), not judged",
            earlier.source, job=earlier.job) for earlier in ordered[count:]]
    return PerGpu(combined, records)
