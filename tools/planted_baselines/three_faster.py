#!/usr/bin/env python3
"""The planted baseline of results/h200/verdicts/gate/: results/h200/ci_baseline.json with three
benchmarks made faster (saxpy/vec4 at 2^28 and the 64 MiB pinned HtoD copy 1.10x, the driver's
launch submit 1.6x), so that a run of the same build reads that much slower there.
tools/planted_baselines/three_faster.py OUT.json"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "scripts" / "tests"))

from gpubench_tools.cli.options import require_packages  # noqa: E402

require_packages("three_faster.py", "numpy", "scipy")

from gbench_builder import load_json, scaled  # noqa: E402

from gpubench_tools.cli.options import OneLineArgumentParser, script_error  # noqa: E402
from gpubench_tools.writing.outputs import write_output  # noqa: E402

SCRIPT = "three_faster.py"


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, metavar="OUT.json")
    out = parser.parse_args(argv).output
    doc = load_json(ROOT / "results" / "h200" / "ci_baseline.json")
    for run, f in [("saxpy/vec4/268435456/manual_time", 1 / 1.10),
                   ("copy/HtoD/pinned/async/67108864/manual_time", 1 / 1.10),
                   ("launch/driver/submit/params:0/manual_time", 1 / 1.6)]:
        doc = scaled(doc, run, f)
    try:
        write_output(out, json.dumps(doc, indent=1))
    except OSError as error:
        return script_error(SCRIPT, error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
