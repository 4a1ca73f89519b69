#!/usr/bin/env python3
"""Each benchmark ci_gate.sh confirmed in gate.json.gz, its median over the baseline's runs and
its runs in the gate's two stages: the first five, runs of the whole suite, and the five
confirming runs, runs of the changed benchmarks alone (--benchmark_filter), as the gate recorded
them then. Real time per repetition as gpubench writes it. ./runs_by_stage.py"""

import gzip
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def runs(doc: dict) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration":
            found.setdefault(b["name"].removesuffix("/manual_time"), []).append(b["real_time"])
    return found


gate = runs(json.load(gzip.open(HERE / "gate.json.gz")))
baseline = runs(json.load((HERE.parents[2] / "ci_baseline.json").open()))
for name, values in gate.items():
    if len(values) > 5:
        print(f"{name}: baseline median {statistics.median(baseline[name]):.4g}")
        print("  suite runs:   " + " ".join(f"{v:.4g}" for v in values[:5]))
        print("  alone runs:   " + " ".join(f"{v:.4g}" for v in values[5:]))
