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


def pytest_configure(config: pytest.Config) -> None:
    """Every process the tests start gets SIGINT, SIGHUP and SIGTERM at their default
    disposition, as a terminal's shell hands them on. pytest started in the background
    (`nohup pytest &`, or `cmd &` in a script) has them ignored, and a process keeps a signal
    ignored when it starts so (the scripts and a shell's trap alike), so every test that sends
    one would wait for an end that never comes."""
    for number in (signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def run_script() -> RunScript:
    def run(script: str, *args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)],
                              capture_output=True, text=True, timeout=60)
    return run


def folder_files(folder: Path) -> dict[str, bytes | None]:
    """Every name in `folder` (temporary files among them), with a regular file's bytes."""
    return {p.name: p.read_bytes() if p.is_file() else None for p in folder.iterdir()}
