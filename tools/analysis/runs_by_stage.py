#!/usr/bin/env python3
"""Each benchmark the gate confirmed in results/h200/verdicts/gate_aa/filtered_confirm/gate.json.gz,
its median over results/h200/ci_baseline.json's runs and its runs in the gate's two stages: the
first five, runs of the whole suite, and the five confirming runs, runs of the changed benchmarks
alone (--benchmark_filter). Real time per repetition as gpubench writes it.
tools/analysis/runs_by_stage.py"""

import gzip
import json
import statistics
from pathlib import Path

H200 = Path(__file__).resolve().parents[2] / "results" / "h200"


def runs(doc: dict) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration":
            found.setdefault(b["name"].removesuffix("/manual_time"), []).append(b["real_time"])
    return found


gate = runs(json.load(gzip.open(
    H200 / "verdicts" / "gate_aa" / "filtered_confirm" / "gate.json.gz")))
baseline = runs(json.load((H200 / "ci_baseline.json").open()))
for name, values in gate.items():
    if len(values) > 5:
        print(f"{name}: baseline median {statistics.median(baseline[name]):.4g}")
        print("  suite runs:   " + " ".join(f"{v:.4g}" for v in values[:5]))
        print("  alone runs:   " + " ".join(f"{v:.4g}" for v in values[5:]))
