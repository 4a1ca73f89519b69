#!/usr/bin/env python3
"""Each benchmark the gate confirmed in results/h200/verdicts/gate_aa/filtered_confirm/gate.json.gz,
its median over results/h200/ci_baseline.json's runs and its runs in the gate's two stages: the
first five, runs of the whole suite, and the five confirming runs, runs of the changed benchmarks
alone (--benchmark_filter). Real time per repetition as gpubench writes it.
tools/analysis/runs_by_stage.py"""

import gzip
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import OneLineArgumentParser, script_output  # noqa: E402

SCRIPT = "runs_by_stage.py"
H200 = ROOT / "results" / "h200"


def runs(doc: dict) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration":
            found.setdefault(b["name"].removesuffix("/manual_time"), []).append(b["real_time"])
    return found


def main(argv: list[str]) -> int:
    OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0]).parse_args(argv)
    lines: list[str] = []
    gate = runs(json.load(gzip.open(
        H200 / "verdicts" / "gate_aa" / "filtered_confirm" / "gate.json.gz")))
    baseline = runs(json.load((H200 / "ci_baseline.json").open()))
    for name, values in gate.items():
        if len(values) > 5:
            lines.append(f"{name}: baseline median {statistics.median(baseline[name]):.4g}")
            lines.append("  suite runs:   " + " ".join(f"{v:.4g}" for v in values[:5]))
            lines.append("  alone runs:   " + " ".join(f"{v:.4g}" for v in values[5:]))
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
