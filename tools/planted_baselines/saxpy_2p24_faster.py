#!/usr/bin/env python3
"""The planted baseline of results/h200/verdicts/gate_aa/planted/: the saxpy benchmarks of the
first 15 runs of results/h200/verdicts/gate_aa/same_card/aa25.json.gz (the baseline the gate
judged there), every saxpy of 2^24 elements made 8% faster, so that an unchanged candidate reads
1.08 times slower on those 8 and on nothing else. tools/planted_baselines/saxpy_2p24_faster.py
OUT.json"""

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAME_CARD = ROOT / "results" / "h200" / "verdicts" / "gate_aa" / "same_card"
sys.path.insert(0, str(ROOT / "scripts" / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("saxpy_2p24_faster.py", "numpy", "scipy")

from gbench_builder import scaled, with_repetitions  # noqa: E402

from gpubench_tools.cli.options import OneLineArgumentParser, script_error  # noqa: E402
from gpubench_tools.writing.outputs import write_output  # noqa: E402

SCRIPT = "saxpy_2p24_faster.py"


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, metavar="OUT.json")
    out = parser.parse_args(argv).output
    doc = with_repetitions(json.load(gzip.open(SAME_CARD / "aa25.json.gz")),
                           lambda index: index < 15)
    doc["context"]["merged_runs"] = 15
    doc["benchmarks"] = [e for e in doc["benchmarks"] if e["run_name"].startswith("saxpy/")]
    for run in sorted({e["run_name"] for e in doc["benchmarks"]
                       if "/16777216/" in e["run_name"]}):
        doc = scaled(doc, run, 1 / 1.08)
    try:
        write_output(out, json.dumps(doc, separators=(",", ":")))
    except OSError as error:
        return script_error(SCRIPT, error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
