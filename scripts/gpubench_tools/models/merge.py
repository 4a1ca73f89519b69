"""Separate gpubench runs of one build on one GPU merged into one result, one repetition per
run: the runs must agree on the GPU, the build and how they measured (cli/merge.py says what
the command does and why)."""

import bz2
import gzip
import lzma
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.facts import declared_facts, facts_difference, family_of
from gpubench_tools.reading.result_file import NS_EXPONENT, TIME_FIELDS, load_with_document
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.reading.settings import FILTER_KEY, MEASUREMENT_SETTINGS, setting_text
from gpubench_tools.writing.outputs import repeated_file

SCRIPT = "gpubench-tools merge"
# Equal in every run merged: the same GPU, software and build.
SAME_IN_EVERY_RUN = ("gpu_name", "gpu_uuid", "driver_version", "cuda_runtime_version",
                     "gpubench_version")
# Equal in every run merged: the devices measured, by ordinal and by identity.
SAME_DEVICES = "selected_devices"
_DEVICE_KEY = re.compile(r"device_[0-9]+")
SHOWN_CHARS = 80  # of a context value named in a refusal


def shown(value: object) -> str:
    """A context value as a refusal names it: one line, at most SHOWN_CHARS characters."""
    return one_line("(absent)" if value is None else repr(value), SHOWN_CHARS)


# Fields of an entry that say where it sits in its run rather than what it measured.
_PLACEMENT = {"repetition_index", "repetitions", "family_index", "per_family_instance_index",
              "run_type", "aggregate_name", "aggregate_unit"}
_AGGREGATES = ("mean", "median", "stddev", "cv")


class MergeError(GpubenchJsonError):
    """Runs that cannot be merged; str() is one line."""


def read_run(path: Path) -> tuple[Result, dict[str, Any]]:
    """One run, validated as result_file.load validates a result, with its document."""
    result, doc = load_with_document(path)
    if "interrupted" in doc["context"]:
        raise MergeError(f"{path}: an interrupted run ({doc['context']['interrupted']}); "
                         "merge complete runs only")
    if "merged_runs" in doc["context"]:
        check_runs_held(path, doc)
    return result, doc


def check_runs_held(path: Path, doc: dict[str, Any]) -> None:
    """MergeError where a merged recording holds more repetitions of a benchmark than its
    merged_runs: each repetition is one run, and the merged_runs written would count fewer runs
    than the benchmark's repetitions say."""
    count = doc["context"]["merged_runs"]
    held = Counter(entry.get("run_name") or entry["name"] for entry in doc["benchmarks"]
                   if entry.get("run_type", "iteration") == "iteration"
                   and not entry.get("error_occurred"))
    for run_name, repetitions in held.items():
        if repetitions > count:
            raise MergeError(f"{path}: benchmark {one_line(run_name, SHOWN_CHARS)!r} holds "
                             f"{repetitions} repetitions, its merged_runs {count}: a merged "
                             "recording holds one repetition per run")


def families(docs: Iterable[dict[str, Any]]) -> set[str]:
    """The families the runs hold benchmarks of."""
    return {family_of(entry["name"]) for doc in docs for entry in doc["benchmarks"]}


def check_together(paths: Sequence[Path], docs: Sequence[dict[str, Any]]) -> None:
    """MergeError naming the first key, and both values, in which a run differs from the
    first: its GPU, software or build, the devices it measured, a measurement setting that
    applies to a family the runs hold, or its filter."""
    first = docs[0]["context"]
    held = families(docs)
    settings = [s for s in MEASUREMENT_SETTINGS if s.family is None or s.family in held]
    for path, doc in zip(paths[1:], docs[1:]):
        context = doc["context"]
        devices = sorted({k for c in (first, context) for k in c if _DEVICE_KEY.fullmatch(k)},
                         key=lambda k: (len(k), k))
        differing = [(key, context.get(key), first.get(key), "runs of one build on one GPU only")
                     for key in SAME_IN_EVERY_RUN]
        differing += [(key, context.get(key), first.get(key), "runs of the same devices only")
                      for key in (SAME_DEVICES, *devices)]
        differing += [(s.key, setting_text(context, s), setting_text(first, s),
                       "runs measured alike only") for s in settings]
        differing.append((FILTER_KEY, context.get(FILTER_KEY), first.get(FILTER_KEY),
                          "runs of one filter only (among fewer others a benchmark can measure "
                          "otherwise)"))
        for key, value, first_value, only in differing:
            if value != first_value:
                raise MergeError(f"{path}: {key} {shown(value)} differs from "
                                 f"{shown(first_value)} in {paths[0]}: {only}")


def check_facts(paths: Sequence[Path], docs: Sequence[dict[str, Any]]) -> None:
    """MergeError naming the family, both runs and what differs where a run's facts of a family
    it holds differ from the first run's (gpubench_families): the merged result keeps the first
    run's, and a figure read by another run's unit or direction would be misread."""
    held = families(docs)
    first = declared_facts(paths[0], docs[0]["context"])
    for path, doc in zip(paths[1:], docs[1:]):
        facts = declared_facts(path, doc["context"])
        for family in sorted(held):
            if difference := facts_difference(first.get(family), facts.get(family)):
                raise MergeError(f"{path}: family {one_line(family, SHOWN_CHARS)!r} is declared "
                                 f"otherwise than in {paths[0]} ({difference}): runs of one "
                                 "build only")


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def measurements(entries: list[dict[str, Any]], merged: bool) -> list[dict[str, Any]]:
    """A benchmark's runs in one file, from its successful `entries`: each repetition of a
    merged recording, else the run's one measurement."""
    if merged:
        return [{k: v for k, v in e.items() if k not in _PLACEMENT} | {"run_type": "iteration"}
                for e in entries if e.get("run_type", "iteration") == "iteration"]
    measured = one_measurement(entries)
    return [] if measured is None else [measured]


def in_time_unit(entry: dict[str, Any], unit: str) -> dict[str, Any]:
    """`entry` with its times in `unit`: each number's decimal digits shifted, exact but for the
    rounding to the nearest float; a cv, a ratio, as it is. A successful entry's unit is one the
    loader knows."""
    shift = NS_EXPONENT[entry.get("time_unit", "ns")] - NS_EXPONENT[unit]
    if shift == 0 or entry.get("aggregate_name") == "cv":
        return entry
    converted = dict(entry, time_unit=unit)
    for key in TIME_FIELDS:
        if is_number(entry.get(key)):
            converted[key] = float(Decimal(repr(entry[key])).scaleb(shift))
    return converted


def one_measurement(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A run's benchmark as one repetition, from its successful `entries`: its iteration entry,
    the per-field median of several, or its median aggregate; None where it has none."""
    iterations = [e for e in entries if e.get("run_type", "iteration") == "iteration"]
    if not iterations:
        iterations = [e for e in entries if e.get("aggregate_name") == "median"]
    if not iterations:
        return None
    merged = {k: v for k, v in iterations[0].items() if k not in _PLACEMENT}
    for key, value in merged.items():
        if is_number(value) and key not in ("iterations", "threads"):
            merged[key] = float(np.median([e[key] for e in iterations if is_number(e.get(key))]))
    merged["name"] = merged.get("run_name") or merged["name"]
    merged["run_type"] = "iteration"
    return merged


def aggregate(run_name: str, repetitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Google Benchmark's mean, median, stddev and cv entries over a run's repetitions (a cv
    of a field whose mean is 0 is 0, as Google Benchmark 1.8 writes it)."""
    count, first = len(repetitions), repetitions[0]
    entries = []
    for name in _AGGREGATES:
        entry = {"name": f"{run_name}_{name}", "run_name": run_name, "run_type": "aggregate",
                 "repetitions": count, "threads": first.get("threads", 1),
                 "aggregate_name": name,
                 "aggregate_unit": "percentage" if name == "cv" else "time",
                 "iterations": count, "time_unit": first.get("time_unit", "ns")}
        for key, value in first.items():
            if (key in entry or key in _PLACEMENT or not is_number(value)
                    or key in ("iterations", "threads")):
                continue
            values = np.array([r[key] for r in repetitions if is_number(r.get(key))])
            mean = float(np.mean(values))
            spread = float(np.std(values, ddof=1)) if values.size >= 2 else 0.0
            entry[key] = {"mean": mean, "median": float(np.median(values)), "stddev": spread,
                          "cv": spread / mean if mean else 0.0}[name]
        if "label" in first:
            entry["label"] = first["label"]
        entries.append(entry)
    return entries


def merge(paths: list[Path]) -> dict[str, Any]:
    if repeated := repeated_file(paths):
        raise MergeError(f"{repeated[0]}: is {repeated[1]} again: each run counts once")
    results, docs = zip(*(read_run(p) for p in paths))
    check_together(paths, docs)
    check_facts(paths, docs)
    runs: dict[str, list[dict[str, Any]]] = {}  # by run name, in the first file's order
    units: dict[str, str] = {}  # each run's time_unit: that of the first file that has it
    for doc in docs:
        by_run: dict[str, list[dict[str, Any]]] = {}
        for entry in doc["benchmarks"]:
            by_run.setdefault(entry.get("run_name") or entry["name"], []).append(entry)
        merged = "merged_runs" in doc["context"]
        for run_name, entries in by_run.items():
            successful = [e for e in entries if not e.get("error_occurred")]
            if not successful:
                continue
            unit = units.setdefault(run_name, successful[0].get("time_unit", "ns"))
            successful = [in_time_unit(e, unit) for e in successful]
            if measured := measurements(successful, merged):
                runs.setdefault(run_name, []).extend(measured)
    benchmarks = []
    for run_name, repetitions in runs.items():
        for index, entry in enumerate(repetitions):
            entry.update(repetition_index=index, repetitions=len(repetitions))
        benchmarks += repetitions
        if len(repetitions) >= 2:
            benchmarks += aggregate(run_name, repetitions)
    context = {**docs[0]["context"],
               "merged_runs": sum(r.separate_runs for r in results)}
    return {"context": context, "benchmarks": benchmarks}


# How an output named with each ending is compressed; gzip's mtime 0 makes the same runs give
# the same bytes, whenever they are merged.
_COMPRESSORS = {".gz": lambda data: gzip.compress(data, compresslevel=9, mtime=0),
                ".xz": lzma.compress, ".bz2": bz2.compress}


def compressed(name: str, text: str) -> str | bytes:
    """`text` as an output named `name` holds it: compressed where the name ends in .gz, .xz or
    .bz2."""
    compress = _COMPRESSORS.get(Path(name).suffix)
    return text if compress is None else compress(text.encode())
