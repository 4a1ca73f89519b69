import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent
# Committed H200 results: real data, with repetitions under stability/.
H200 = SCRIPTS.parent / "results" / "h200"

RunScript = Callable[..., subprocess.CompletedProcess[str]]


def default_signals() -> None:
    """A child's preexec_fn: SIGINT, SIGHUP and SIGTERM at their default disposition, as a shell
    started from a terminal has them. pytest started in the background (`nohup pytest &`) hands
    them on ignored, and a shell cannot trap a signal that was ignored when it started."""
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


@pytest.fixture
def run_script() -> RunScript:
    def run(script: str, *args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)],
                              capture_output=True, text=True, timeout=60)
    return run
