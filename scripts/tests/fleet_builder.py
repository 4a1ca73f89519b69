#!/usr/bin/env python3
"""Fleets of GPUs built from real H200 repetitions, for fleet.py's tests and its example figure.

The stability runs of one session (results/h200/stability: the 64 MiB-1 GiB copies and the
launch submit family, 10 repetitions each, interleaved over the run, same gpubench build and
GPU) give each benchmark 10 real measurements. A fleet GPU is one run of all of them: for each
benchmark it takes one repetition, each repetition once over the first 10 GPUs of a fleet and 6
of them a second time (shuffled per benchmark, so GPUs differ by the real run-to-run noise and
no GPU is a copy of another). What a test plants on top is named by the GPU's host:

    fleet_builder.py OUTDIR [--seed=N]

writes the example fleet (one slow GPU on a PCIe link trained at x4, four GPUs on another
driver whose launches are slower) as one <host>_<uuid>.json per GPU, as deploy/slurm does.
"""

import argparse
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

STABILITY = Path(__file__).resolve().parents[2] / "results" / "h200" / "stability"
SOURCES = ("copy_64m_256m_interleaved_10rep.json", "copy_1g_interleaved_10rep.json",
           "launch_submit_interleaved_10rep.json")

Entry = dict[str, Any]
Document = dict[str, Any]


def real_repetitions() -> tuple[dict[str, Any], dict[str, list[Entry]]]:
    """The shared context and, per run name, its repetitions (iteration entries)."""
    context: dict[str, Any] = {}
    runs: dict[str, list[Entry]] = {}
    for name in SOURCES:
        doc = json.loads((STABILITY / name).read_text())
        if context and doc["context"]["gpubench_version"] != context["gpubench_version"]:
            raise ValueError(f"{name}: another gpubench build than {SOURCES[0]}")
        context = context or doc["context"]
        for entry in doc["benchmarks"]:
            if entry.get("run_type") == "iteration":
                runs.setdefault(entry["run_name"], []).append(entry)
    return context, runs


def build_fleet(size: int = 16, seed: int = 0) -> list[Document]:
    """`size` GPUs, GPU i on host node{i:02d} with uuid GPU-{i:08x}-f1ee-..., noise only."""
    context, runs = real_repetitions()
    rng = np.random.default_rng(seed)
    picks: dict[str, np.ndarray] = {}
    for run, reps in runs.items():
        n = len(reps)
        order = np.concatenate([rng.permutation(n)] + [rng.permutation(n)] * ((size - 1) // n))
        picks[run] = rng.permutation(order[:size]) if size <= n else order[:size]
    fleet = []
    for gpu in range(size):
        gpu_context = dict(context, host_name=f"node{gpu:02d}",
                           gpu_uuid=f"GPU-{gpu:08x}-f1ee-4000-8000-000000000000",
                           gpu_pci_bus_id=f"0000:{gpu:02x}:00.0")
        benchmarks = []
        for run, reps in runs.items():
            entry = copy.deepcopy(reps[picks[run][gpu]])
            entry.update(repetitions=1, repetition_index=0)
            benchmarks.append(entry)
        fleet.append({"context": gpu_context, "benchmarks": benchmarks})
    return fleet


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


def host_copy(name: str) -> bool:
    """A copy through PCIe: everything but device-to-device and the host-only memcpy."""
    return name.startswith("copy/") and not name.startswith(("copy/DtoD/", "copy/HtoH/"))


def plant_narrow_link(doc: Document) -> None:
    """PCIe trained at x4 instead of x16: a quarter of the bandwidth through the link (the
    public report of one GPU of four copying host-to-device at 14.2 GB/s where the others
    reached 57)."""
    scale_bandwidth(doc, host_copy, 0.25)
    doc["context"]["pcie_link"] = "Gen5 x4 (max Gen5 x16)"


def plant_other_driver(doc: Document, driver: str = "575.57.08", launch_factor: float = 1.4) -> None:
    """Another driver, whose launch path is `launch_factor` times as slow."""
    doc["context"]["driver_version"] = driver
    scale_launch_time(doc, lambda name: name.startswith("launch/"), launch_factor)


def write_fleet(fleet: list[Document], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for doc in fleet:
        path = directory / f"{doc['context']['host_name']}_{doc['context']['gpu_uuid']}.json"
        path.write_text(json.dumps(doc, indent=1))
        paths.append(path)
    return paths


def example_fleet(seed: int = 0) -> list[Document]:
    """16 GPUs: node05 on a x4 link; node12..node15 on driver 575.57.08."""
    fleet = build_fleet(16, seed)
    plant_narrow_link(fleet[5])
    for doc in fleet[12:]:
        plant_other_driver(doc)
    return fleet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for path in write_fleet(example_fleet(args.seed), args.outdir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
