import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent
# Committed H200 results: real data, with repetitions under stability/.
H200 = SCRIPTS.parent / "results" / "h200"

RunScript = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_script() -> RunScript:
    def run(script: str, *args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)],
                              capture_output=True, text=True, timeout=60)
    return run
