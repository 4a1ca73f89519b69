"""Separate healthy processes of gpubench's default suite, each card's median taken out: what a
healthy GPU gives from one process to the next, whole-process levels and all.

The sources are real separate processes, each run alone on its card:

- H200 (four cards): results/h200/ci_baseline.json (19 runs), verdicts/gate_aa/same_card/aa25
  (25), verdicts/splits/card_a (11) and card_b (8): files `gpubench-tools merge` wrote, each
  repetition one process (context merged_runs);
- H100 (one card): results/h100/processes/process_*.json.gz (21 processes).

`figures(model)` gives the same per process as {(run name, figure): value}, for
scripts/tests/fleet_builder.py, which makes each GPU one of them. `processes(model)` gives each
process as a result document of its own (its iteration entries,
one repetition each), its figures scaled by the model's reference over its card's median (the
median over the card's processes, per benchmark and figure), so that processes of several cards
differ by run-to-run noise alone and a fleet of them is a fleet of healthy GPUs of one card.
"""

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parents[2] / "results"
H200_CARDS = ("h200/ci_baseline.json", "h200/verdicts/gate_aa/same_card/aa25.json.gz",
              "h200/verdicts/splits/card_a.json.gz", "h200/verdicts/splits/card_b.json.gz")
H100_PROCESSES = tuple(f"h100/processes/process_{n}.json.gz" for n in range(1, 22))
# What a process measured, scaled to the reference: every figure a family declares (a time, a
# rate) and Google Benchmark's times; counters of the run itself (noise_pct, host_timed, clocks,
# batch counts) are the process's own.
FIGURES = ("real_time", "cpu_time", "bytes_per_second", "items_per_second")
# Entries per benchmark name, in the order of the file.
Document = dict[str, Any]


def _read(name: str) -> Document:
    path = RESULTS / name
    with (gzip.open(path, "rt") if name.endswith(".gz") else path.open()) as file:
        return json.load(file)


def figure_keys(entry: dict) -> list[str]:
    return [k for k, v in entry.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
            and (k in FIGURES or k.endswith(("_ns", "_us", "per_second")) or k.startswith("us_per"))
            and not k.startswith("peak_")]


def _split(doc: Document) -> list[Document]:
    """A merged file's processes (repetition i of each benchmark is process i), or the file."""
    runs: dict[int, list[dict]] = {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type") == "iteration":
            runs.setdefault(int(entry.get("repetition_index", 0)), []).append(
                dict(entry, repetitions=1, repetition_index=0))
    context = {k: v for k, v in doc["context"].items() if k != "merged_runs"}
    return [{"context": dict(context), "benchmarks": runs[i]} for i in sorted(runs)]


def _medians(card: list[Document]) -> dict[tuple[str, str], float]:
    values: dict[tuple[str, str], list[float]] = {}
    for doc in card:
        for entry in doc["benchmarks"]:
            for key in figure_keys(entry):
                values.setdefault((entry["run_name"], key), []).append(float(entry[key]))
    return {k: float(np.median(v)) for k, v in values.items()}


@functools.lru_cache(maxsize=None)
def cards(model: str) -> tuple[tuple[Document, ...], ...]:
    """Each card's processes, unscaled: "h200" (four cards) or "h100" (one)."""
    if model == "h200":
        return tuple(tuple(_split(_read(name))) for name in H200_CARDS)
    return (tuple(_split(_read(name))[0] for name in H100_PROCESSES),)


@functools.lru_cache(maxsize=None)
def processes(model: str) -> tuple[tuple[int, Document], ...]:
    """(card, process) for each process of the model, its figures scaled to the reference (the
    median over cards of each card's median), so only run-to-run noise is left."""
    per_card = cards(model)
    medians = [_medians(list(card)) for card in per_card]
    reference = {key: float(np.median([m[key] for m in medians if key in m]))
                 for key in set().union(*medians)}
    found = []
    for number, (card, median) in enumerate(zip(per_card, medians)):
        for doc in card:
            scaled = []
            for entry in doc["benchmarks"]:
                entry = dict(entry)
                for key in figure_keys(entry):
                    own = median.get((entry["run_name"], key), 0.0)
                    if own > 0:
                        entry[key] = entry[key] * reference[(entry["run_name"], key)] / own
                scaled.append(entry)
            found.append((number, {"context": doc["context"], "benchmarks": scaled}))
    return tuple(found)


@functools.lru_cache(maxsize=None)
def figures(model: str) -> tuple[dict[tuple[str, str], float], ...]:
    """Per process of the model (processes), {(run name, figure): its value}."""
    return tuple({(e["run_name"], key): float(e[key]) for e in doc["benchmarks"]
                  for key in figure_keys(e)} for _, doc in processes(model))
