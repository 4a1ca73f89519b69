#!/usr/bin/env python3
"""Fleets of GPUs built from real H200 repetitions, for gpubench-tools fleet's tests and its \
example figure.

Each source set is runs of one gpubench build on the H200s, with repetitions:

- COPY_LAUNCH (results/h200/stability): the 64 MiB-1 GiB copies and the launch submit family,
  10 repetitions each, interleaved over the run;
- CI_PAIR (results/h200/comparison/ci_new_*): saxpy at 2^20, 2^24, 2^28, copies at 4 KiB and
  64 MiB, launches and a module load, 5 repetitions in each of two runs a minute apart (10);
- PEER (results/h200x2/peer.json): every peer copy of the two-H200 machine from 4 KiB to 1 GiB,
  5 repetitions.

The sets were recorded before gpubench wrote its host_timed counter; each run gets the counter a
gpubench that writes it gave the same benchmark (CLOCKS, results/h200/ci_baseline.json), as a
fleet running today's gpubench has it. A fleet GPU is one run of all of a set's benchmarks: for
each benchmark it takes one repetition, each repetition once over the first GPUs of a fleet
and again over the next (shuffled per benchmark, so GPUs differ by the real run-to-run noise
and no GPU is a copy of another). What a test plants on top is named by the GPU's host:

    fleet_builder.py OUTDIR [--seed=N]

writes the example fleet (one slow GPU on a PCIe link trained at x4, four GPUs on another
driver whose launches are slower, one GPU whose PCIe replays grow during the run, one node
without a driver) as deploy/slurm does: <host>_<uuid>.json and .status per GPU,
<host>_task<P>.err and .status for the node without a driver.
"""

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import fleet_processes as fp

RESULTS = Path(__file__).resolve().parents[2] / "results"
COPY_LAUNCH = ("h200/stability/copy_64m_256m_interleaved_10rep.json",
               "h200/stability/copy_1g_interleaved_10rep.json",
               "h200/stability/launch_submit_interleaved_10rep.json")
CI_PAIR = ("h200/comparison/ci_new_1.json", "h200/comparison/ci_new_2.json")
PEER = ("h200x2/peer.json",)
CLOCKS = "h200/ci_baseline.json"

Entry = dict[str, Any]
Document = dict[str, Any]

# A healthy H200 as `nvidia-smi -q` showed it on the H200 machine: PCIe Gen5 x16 at its maximum,
# 3 replays since reset, ECC on with no error, no remapped row, idle. Its retired pages are N/A
# (the H200 remaps rows instead) and a lone GPU in a VM has no NVLink: "not reported".
RUN_START_MS = 1_796_054_400_000  # when set_health's records are read, Unix time in ms
HEALTHY = {
    "ecc_mode": "enabled",
    "ecc_volatile_corrected": 0, "ecc_volatile_uncorrected": 0,
    "ecc_aggregate_corrected": 0, "ecc_aggregate_uncorrected": 0,
    "retired_pages_sbe": "not reported", "retired_pages_dbe": "not reported",
    "retired_pages_pending": "not reported",
    "remapped_rows_correctable": 0, "remapped_rows_uncorrectable": 0,
    "remap_pending": False, "remap_failed": False,
    "pcie_replay_count": 3,
    "pcie_link_gen_current": 5, "pcie_link_gen_max": 5,
    "pcie_link_width_current": 16, "pcie_link_width_max": 16,
    "nvlink_crc_errors": "not reported", "nvlink_replay_errors": "not reported",
    "nvlink_recovery_errors": "not reported",
    "clock_event_reasons": ["gpu_idle"],
}


@functools.lru_cache(maxsize=None)
def host_timed_counters() -> dict[str, int]:
    """The host_timed counter of each run of CLOCKS, by run name."""
    doc = json.loads((RESULTS / CLOCKS).read_text())
    return {entry["run_name"]: entry["host_timed"] for entry in doc["benchmarks"]
            if entry.get("run_type") == "iteration" and "host_timed" in entry}


@functools.lru_cache(maxsize=None)
def real_repetitions(sources: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, list[Entry]]]:
    """The shared context and, per run name, its repetitions (iteration entries)."""
    context: dict[str, Any] = {}
    runs: dict[str, list[Entry]] = {}
    for name in sources:
        doc = json.loads((RESULTS / name).read_text())
        if context and doc["context"]["gpubench_version"] != context["gpubench_version"]:
            raise ValueError(f"{name}: another gpubench build than {sources[0]}")
        context = context or doc["context"]
        clocks = host_timed_counters()
        for entry in doc["benchmarks"]:
            if entry.get("run_type") == "iteration":
                if "host_timed" not in entry and entry["run_name"] in clocks:
                    entry = dict(entry, host_timed=clocks[entry["run_name"]])
                runs.setdefault(entry["run_name"], []).append(entry)
    return context, runs


def uuid_of(gpu: int) -> str:
    return f"GPU-{gpu:08x}-f1ee-4000-8000-000000000000"


def build_fleet(size: int = 16, seed: int = 0, sources: tuple[str, ...] = COPY_LAUNCH,
                process_levels: bool = True) -> list[Document]:
    """`size` GPUs, GPU i on host node{i:02d} with uuid_of(i), noise only. With process_levels
    each GPU is also one real separate H200 process of the default suite, drawn at random
    (fleet_processes.figures: 63 processes on four cards, each card's median taken out): each
    figure that process has is its figure times the repetition's over the median of its run's
    repetitions, so a GPU carries both the level a whole process lands on, which repetitions
    inside one never hold, and the noise of one repetition."""
    context, runs = real_repetitions(sources)
    rng = np.random.default_rng(seed)
    picks: dict[str, np.ndarray] = {}
    for run, reps in runs.items():
        n = len(reps)
        order = np.concatenate([rng.permutation(n) for _ in range(-(-size // n))])
        picks[run] = rng.permutation(order[:size])
    levels = fp.figures("h200") if process_levels else ({},)
    process = rng.integers(0, len(levels), size)
    medians = {(run, key): float(np.median([r[key] for r in reps]))
               for run, reps in runs.items() for key in fp.figure_keys(reps[0])}
    fleet = []
    for gpu in range(size):
        gpu_context = dict(context, host_name=f"node{gpu:02d}", gpu_uuid=uuid_of(gpu),
                           gpu_pci_bus_id=f"0000:{gpu:02x}:00.0")
        benchmarks = []
        for run, reps in runs.items():
            entry = dict(reps[picks[run][gpu]])
            entry.update(repetitions=1, repetition_index=0)
            level = levels[process[gpu]]
            for key in fp.figure_keys(entry):
                if (run, key) in level and medians.get((run, key), 0) > 0:
                    entry[key] = level[(run, key)] * entry[key] / medians[(run, key)]
            benchmarks.append(entry)
        fleet.append({"context": gpu_context, "benchmarks": benchmarks})
    return fleet


# A peer copy's name: peer/<engine>/<mode>/<source>to<destination>/<bytes>, Google Benchmark's
# suffix after it.
PEER_COPY = re.compile(r"peer/(?P<method>[a-z]+/[a-z]+)/(?P<src>[0-9]+)to(?P<dst>[0-9]+)/"
                       r"(?P<bytes>[0-9]+)(?P<suffix>/.*)?")


def pair_of_name(name: str) -> tuple[int, int] | None:
    """The (source, destination) a peer copy's name gives, None for any other name."""
    match = PEER_COPY.fullmatch(name)
    return (int(match["src"]), int(match["dst"])) if match else None


def swept(pair: tuple[int, int], gpus: int) -> bool:
    """Whether gpubench measures a pair at every size over `gpus` GPUs: its representative pairs,
    GPU 0 with GPU 1 and with the last, both ways (src/peer_patterns.cpp); every other pair at the
    largest size alone (bench/peer/peer.cpp)."""
    return gpus <= 2 or set(pair) in ({0, 1}, {0, gpus - 1})


def bus_of(gpu: int) -> str:
    """The PCI bus id of GPU `gpu` of a node, as an 8-GPU HGX board spaces them."""
    return f"0000:{0x18 + 8 * gpu:02x}:00.0"


def on_nodes(fleet: list[Document], gpus: int) -> list[Document]:
    """A fleet of build_fleet as nodes of `gpus` GPUs each: GPU i is GPU i % gpus of host
    node{i // gpus:02d}, as build_peer_fleet names them."""
    for i, doc in enumerate(fleet):
        doc["context"].update(host_name=f"node{i // gpus:02d}", gpu_ordinal=str(i % gpus),
                              gpu_pci_bus_id=bus_of(i % gpus))
    return fleet


def build_peer_fleet(nodes: int = 4, gpus: int = 8, seed: int = 0) -> list[Document]:
    """`nodes` peer runs over `gpus` GPUs each, as deploy/slurm has gpubench
    --device=all write them: node n's GPU g is uuid_of(n * gpus + g) on host node{n:02d}, described
    in device_<g>, and each ordered pair's link (peer_<s>to<d>) is the two-H200 machine's, NVLink
    4.0 x18 through NVSwitch. Each copy of a pair, at each size swept() gives it, is one
    repetition of PEER drawn at random from those of its method and size in either direction
    (0to1, 1to0): the pairs of an NVSwitch node are alike, and differ by the real run-to-run
    noise."""
    context, runs = real_repetitions(PEER)
    pooled: dict[tuple[str, int], list[Entry]] = {}
    for run, reps in runs.items():
        match = PEER_COPY.fullmatch(run)
        pooled.setdefault((match["method"], int(match["bytes"])), []).extend(reps)
    largest = max(size for _, size in pooled)
    rng = np.random.default_rng(seed)
    fleet = []
    for node in range(nodes):
        uuids = [uuid_of(node * gpus + gpu) for gpu in range(gpus)]
        buses = [bus_of(gpu) for gpu in range(gpus)]
        node_context = dict(context, host_name=f"node{node:02d}", gpu_uuid=uuids[0],
                            gpu_pci_bus_id=buses[0], gpu_count=str(gpus),
                            selected_devices=",".join(map(str, range(gpus))))
        node_context.update({f"device_{gpu}": f"NVIDIA H200, {uuids[gpu]}, {buses[gpu]}"
                             for gpu in range(gpus)})
        benchmarks = []
        for src in range(gpus):
            for dst in range(gpus):
                if src == dst:
                    continue
                node_context[f"peer_{src}to{dst}"] = context["peer_0to1"]
                for (method, size), reps in pooled.items():
                    if size != largest and not swept((src, dst), gpus):
                        continue
                    name = f"peer/{method}/{src}to{dst}/{size}/manual_time"
                    benchmarks.append(dict(reps[rng.integers(len(reps))], name=name,
                                           run_name=name, repetitions=1, repetition_index=0))
        fleet.append({"context": node_context, "benchmarks": benchmarks})
    return fleet


def plant_slow_gpu(doc: Document, gpu: int, factor: float) -> None:
    """GPU `gpu` of a peer run `factor` times as fast on every pair it is in, either way."""
    scale_bandwidth(doc, lambda name: gpu in (pair_of_name(name) or ()), factor)


def plant_slow_link(doc: Document, ends: tuple[int, int], factor: float) -> None:
    """The link between two GPUs of a peer run `factor` times as fast, both ways."""
    scale_bandwidth(doc, lambda name: set(pair_of_name(name) or ()) == set(ends), factor)


def write_peer_fleet(fleet: list[Document], directory: Path, job: str = "1") -> list[Path]:
    """deploy/slurm's peer/ directory: per node its run's JSON and a `done` record
    naming its GPUs."""
    peer = directory / "peer"
    peer.mkdir(parents=True, exist_ok=True)
    paths = []
    for doc in fleet:
        node = doc["context"]["host_name"]
        path = peer / f"{node}.json"
        path.write_text(json.dumps(doc, indent=1))
        uuids = ",".join(value.split(", ")[1] for key, value in doc["context"].items()
                         if re.fullmatch(r"device_[0-9]+", key) and value.count(", ") == 2)
        paths += [path, write_status(peer, node, "done", 0, uuids, job=job)]
    return paths


def scale_bandwidth(doc: Document, matches: Callable[[str], bool], factor: float) -> None:
    """A GPU whose matching copies move `factor` times the bytes per second: time / factor."""
    for entry in doc["benchmarks"]:
        if matches(entry["run_name"]):
            for key in ("bytes_per_second", "items_per_second"):
                if key in entry:
                    entry[key] *= factor
            for key in ("real_time", "cpu_time", "us_per_copy"):
                if key in entry:
                    entry[key] /= factor


def scale_launch_time(doc: Document, matches: Callable[[str], bool], factor: float) -> None:
    for entry in doc["benchmarks"]:
        if matches(entry["run_name"]):
            for key in ("real_time", "cpu_time", "us_per_launch"):
                if key in entry:
                    entry[key] *= factor


def starts(*prefixes: str) -> Callable[[str], bool]:
    return lambda name: name.startswith(prefixes)


def host_copy(name: str) -> bool:
    """A copy through PCIe: everything but device-to-device and the host-only memcpy."""
    return name.startswith("copy/") and not name.startswith(("copy/DtoD/", "copy/HtoH/"))


def plant_narrow_link(doc: Document) -> None:
    """PCIe trained at x4 instead of x16: a quarter of the bandwidth through the link (the
    public report of one GPU of four copying host-to-device at 14.2 GB/s where the others
    reached 57)."""
    scale_bandwidth(doc, host_copy, 0.25)
    doc["context"]["pcie_link"] = "Gen5 x4 (max Gen5 x16)"


def plant_other_driver(doc: Document, driver: str = "575.57.08",
                       launch_factor: float = 1.4) -> None:
    """Another driver, whose launch path is `launch_factor` times as slow."""
    doc["context"]["driver_version"] = driver
    scale_launch_time(doc, starts("launch/"), launch_factor)


def plant_other_cpu(doc: Document, same_cpu: bool = False) -> None:
    """A host with another CPU: fewer, faster cores with other caches, launches taking 2.5x as
    long and pageable copies (staged by the CPU) at 0.4x, past what one healthy process's show.
    `same_cpu` keeps the CPU's description: what a grouping that ignores the CPU would see."""
    if not same_cpu:
        doc["context"].update(num_cpus=8, mhz_per_cpu=3000, caches=[
            {"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
            {"type": "Instruction", "level": 1, "size": 32768, "num_sharing": 1},
            {"type": "Unified", "level": 2, "size": 1048576, "num_sharing": 1},
            {"type": "Unified", "level": 3, "size": 33554432, "num_sharing": 8}])
    scale_launch_time(doc, starts("launch/"), 2.5)
    scale_bandwidth(doc, lambda name: "/pageable/" in name, 0.4)


def interrupt(doc: Document, kept: int, signal: str = "SIGTERM") -> None:
    """A run stopped after its first `kept` benchmarks, as gpubench writes it."""
    doc["benchmarks"] = doc["benchmarks"][:kept]
    doc["context"]["interrupted"] = signal


def kill(doc: Document, kept: int) -> None:
    """A run SIGKILLed after its first `kept` benchmarks: gpubench's file as it was left, its
    run_status still `running`."""
    doc["benchmarks"] = doc["benchmarks"][:kept]
    doc["context"]["run_status"] = "running"


def set_health(doc: Document, after: dict[str, Any] | None = None,
               before: dict[str, Any] | None = None) -> None:
    """Health records as gpubench writes them: HEALTHY, read a minute apart, with
    `before`/`after` changes."""
    record_before = dict(HEALTHY, read_at_unix_ms=RUN_START_MS)
    record_before.update(before or {})
    record_after = dict(HEALTHY, read_at_unix_ms=RUN_START_MS + 60_000, clock_event_reasons=[],
                        clock_event_reasons_during_run=[], xid_events=[])
    record_after.update(after or {})
    doc["context"]["gpu_health_before"] = json.dumps(record_before, separators=(",", ":"))
    doc["context"]["gpu_health_after"] = json.dumps(record_after, separators=(",", ":"))


def file_name(doc: Document) -> str:
    return f"{doc['context']['host_name']}_{doc['context']['gpu_uuid']}"


def write_fleet(fleet: list[Document], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for doc in fleet:
        path = directory / f"{file_name(doc)}.json"
        path.write_text(json.dumps(doc, indent=1))
        paths.append(path)
    return paths


def write_err(directory: Path, name: str, message: str, status: int) -> Path:
    """deploy/slurm's record of a run that exited non-zero."""
    path = directory / f"{name}.err"
    path.write_text(f"{message}\nexit status {status}\n")
    return path


def write_status(directory: Path, name: str, status: str, exit_status: int | str,
                 uuid: str = "", time: str = "2026-11-29T18:38:09Z", job: str = "1",
                 **more: str) -> Path:
    """A `<name>.status` record as deploy/slurm writes it (docs/cluster.md): its node from the
    name, task 0, device 0; `more` adds keys, or replaces them (node, task)."""
    fields = dict(status=status, exit=str(exit_status), gpu_uuid=uuid, node=name.split("_")[0],
                  job=job, task="0", device="0", time=time)
    fields.update(more)
    path = directory / f"{name}.status"
    path.write_text("".join(f"{key}={value}\n" for key, value in fields.items()))
    return path


def write_done(fleet: list[Document], directory: Path, job: str = "1",
               time: str = "2026-11-29T18:38:09Z") -> list[Path]:
    """A `done` record beside each GPU's result."""
    return [write_status(directory, file_name(doc), "done", 0, doc["context"]["gpu_uuid"],
                         time=time, job=job)
            for doc in fleet]


def example_fleet(seed: int = 0) -> list[Document]:
    """16 GPUs: node05 on a x4 link; node12..node15 on driver 575.57.08."""
    fleet = build_fleet(16, seed)
    plant_narrow_link(fleet[5])
    for doc in fleet[12:]:
        plant_other_driver(doc)
    return fleet


NO_DRIVER = 'gpubench: no CUDA device: dlopen("libcuda.so.1"): no NVIDIA driver'


def write_example(directory: Path, seed: int = 0) -> list[Path]:
    """example_fleet with health records, node09's PCIe replay counter growing from 3 to 1200
    during the run, and node16 without a driver (its task's .err and record, no JSON): the files
    deploy/slurm writes, each GPU's record beside its result."""
    fleet = example_fleet(seed)
    for doc in fleet:
        set_health(doc)
    set_health(fleet[9], after={"pcie_replay_count": 1200})
    return (write_fleet(fleet, directory) + write_done(fleet, directory)
            + [write_err(directory, "node16_task16", NO_DRIVER, 1),
               write_status(directory, "node16_task16", "failed", 1)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for path in write_example(args.outdir, args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
