"""GPUs the screen did not screen as it screened the others, each named rather than passed.

- Another model or driver than the fleet's largest group, in a group large enough to compare
  within (a whole node of another model, a node on another driver): judged among its like, but
  not by the fleet's standard, and the sign of a node not updated or a job given the wrong nodes.
- Two nodes under one host name: two GPUs of one host at one PCI bus id, or one host name over
  results that give it other CPUs (count, caches): the host in each row is no machine's.
- Throttled during the run: a benchmark gpubench saw clock-limited (its clock_limited_ms above
  0, or the SM clock at its timed loop's end more than 10% below its start:
  Benchmark.throttled), or a power or thermal slowdown among the clock event reasons NVML
  recorded during the run. The figures are those of a held-down GPU, whether or not they are
  slower than the group's yet; none of the 84 healthy separate processes committed (63 on four
  H200 cards, 21 on an H100) has either.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from gpubench_tools.models.fleet.groups import Group
from gpubench_tools.models.fleet.identity import PARTS, identity_of
from gpubench_tools.reading.fleet.records import Gpu

# NVML's clock event reasons (src/gpu_health.cpp) that hold the clocks down for power or heat.
SLOWDOWNS = ("sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
             "hw_power_brake_slowdown")
OTHER_KIND = ("GPU", "driver")  # parts of a group key (identity.PARTS) a fleet shares


@dataclass(frozen=True)
class Unscreened:
    gpu: Gpu
    what: str  # "other model or driver", "two nodes, one name", "throttled"
    detail: str


def other_kind(groups: Sequence[Group], min_gpus: int) -> list[Unscreened]:
    """The GPUs of groups of min_gpus or more whose GPU model or driver is not the largest
    group's (a smaller group is named by groups.apart)."""
    if not groups:
        return []
    largest = groups[0].key
    found = []
    for number, group in enumerate(groups[1:], start=2):
        if len(group.gpus) < min_gpus:
            continue
        parts = [f"{part} {its} (group 1: {theirs})" for part, its, theirs
                 in zip(PARTS, group.key, largest) if part in OTHER_KIND and its != theirs]
        if parts:
            found += [Unscreened(gpu, "other model or driver",
                                 f"group {number} of {len(group.gpus)}: " + "; ".join(parts))
                      for gpu in group.gpus]
    return found


def _cpu(gpu: Gpu) -> tuple[object, object]:
    """The host's CPU count and caches, read for what they mean (identity.py)."""
    identity = identity_of(gpu)
    return identity.cpus, identity.caches


def one_name_two_nodes(gpus: Sequence[Gpu]) -> list[Unscreened]:
    by_host: dict[str, list[Gpu]] = {}
    for gpu in gpus:
        by_host.setdefault(gpu.host, []).append(gpu)
    found = []
    for host, members in by_host.items():
        buses: dict[str, list[Gpu]] = {}
        for gpu in members:
            bus = str(gpu.context.get("gpu_pci_bus_id") or "")
            if bus:
                buses.setdefault(bus, []).append(gpu)
        shared = {id(g): bus for bus, at in buses.items() if len(at) > 1 for g in at}
        cpus = {_cpu(g) for g in members}
        for gpu in members:
            if id(gpu) in shared:
                found.append(Unscreened(gpu, "two nodes, one name", (
                    f"host {host} has another GPU at PCI bus {shared[id(gpu)]}: two machines "
                    "answer to this name")))
            elif len(cpus) > 1:
                found.append(Unscreened(gpu, "two nodes, one name", (
                    f"host {host}'s results give {len(cpus)} CPUs (count, caches): two machines "
                    "answer to this name")))
    return found


def throttled(gpus: Sequence[Gpu], clock_events: dict[str, list[str]]) -> list[Unscreened]:
    """GPUs clock-limited in a benchmark, or slowed for power or heat during the run
    (clock_events: UUID to the reasons NVML recorded during the run, models/fleet/health.py)."""
    found = []
    for gpu in gpus:
        held = [name for name, bench in gpu.benchmarks.items() if bench.throttled]
        slowdowns = [r for r in clock_events.get(gpu.uuid, []) if r in SLOWDOWNS]
        if held or slowdowns:
            parts = ([f"{len(held)} benchmark(s) clock-limited, e.g. {held[0]}"] if held else [])
            parts += [f"NVML during the run: {', '.join(slowdowns)}"] if slowdowns else []
            found.append(Unscreened(gpu, "throttled", "; ".join(parts)))
    return found
