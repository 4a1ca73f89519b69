"""`gpubench-tools gate`: runs/gate.sh, whose header says what it does, with this Python."""

import os
import sys
from pathlib import Path

import gpubench_tools

RUNS = Path(__file__).resolve().parent.parent / "runs"


def main(argv: list[str]) -> int:
    env = dict(os.environ, GPUBENCH_TOOLS_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(filter(None, [
                   str(Path(gpubench_tools.__file__).resolve().parent.parent),
                   os.environ.get("PYTHONPATH")])))
    os.execve("/bin/bash", ["bash", str(RUNS / "gate.sh"), *argv], env)
