#!/usr/bin/env python3
"""The planted baseline of this folder's gate run: the saxpy benchmarks of the first 15 runs of
../same_card/aa25.json.gz (the baseline ci_gate.sh judged there), every saxpy of 2^24 elements
made 8% faster, so that an unchanged candidate reads 1.08 times slower on those 8 and on
nothing else. ./plant_baseline.py OUT.json"""

import gzip
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[4] / "scripts" / "tests"))
sys.path.insert(0, str(HERE.parents[4] / "scripts"))

from gbench_builder import scaled, with_repetitions  # noqa: E402

doc = with_repetitions(json.load(gzip.open(HERE.parent / "same_card" / "aa25.json.gz")),
                       lambda index: index < 15)
doc["context"]["merged_runs"] = 15
doc["benchmarks"] = [e for e in doc["benchmarks"] if e["run_name"].startswith("saxpy/")]
for run in sorted({e["run_name"] for e in doc["benchmarks"] if "/16777216/" in e["run_name"]}):
    doc = scaled(doc, run, 1 / 1.08)
Path(sys.argv[1]).write_text(json.dumps(doc, separators=(",", ":")))
