import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from forked_command import run_tool

SCRIPTS = Path(__file__).resolve().parent.parent
# Committed H200 results: real data, with repetitions under stability/.
H200 = SCRIPTS.parent / "results" / "h200"

TOOLS = SCRIPTS / "gpubench-tools"


def gpubench_binary() -> Path:
    """The gpubench the tests run where they need one: GPUBENCH_BINARY, else the README's build."""
    return Path(os.environ.get("GPUBENCH_BINARY") or SCRIPTS.parent / "build" / "gpubench")

RunScript = Callable[..., subprocess.CompletedProcess[str]]

try:
    from hypothesis import settings as hypothesis_settings
except ImportError:  # a machine without the tests' packages: the property tests skip there
    pass
else:
    # The same examples on every run, unless a test says otherwise: CI passes or fails on the
    # code, never on a draw.
    hypothesis_settings.register_profile("gpubench", derandomize=True, database=None)
    hypothesis_settings.load_profile("gpubench")


def command(subcommand: str) -> list[str]:
    """The argv that runs `gpubench-tools SUBCOMMAND` from the clone, with this Python."""
    return [sys.executable, str(TOOLS), subcommand]


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
    """`gpubench-tools SCRIPT ARGS` as a process of its own, forked with the toolkit loaded
    (forked_command.py): what a test of the command's start needs a fresh interpreter for."""
    def run(script: str, *args: object) -> subprocess.CompletedProcess[str]:
        return run_tool([script, *args])
    return run


def folder_files(folder: Path) -> dict[str, bytes | None]:
    """Every name in `folder` (temporary files among them), with a regular file's bytes."""
    return {p.name: p.read_bytes() if p.is_file() else None for p in folder.iterdir()}


def written_paths(stdout: str) -> list[Path]:
    """The files a script says it wrote (`wrote PATH` lines), in the order it says so."""
    return [Path(line.removeprefix("wrote ")) for line in stdout.splitlines()
            if line.startswith("wrote ")]


def largest_after_the_first(written: list[Path]) -> tuple[Path, int]:
    """The largest of the files a script wrote and a file size limit just under its size: the
    files written before it fit, so a script that writes its files one after another has
    replaced those when the largest fails."""
    sizes = [path.stat().st_size for path in written]
    largest = sizes.index(max(sizes))
    assert largest > 0, "the file written first is the largest: none fits before it"
    return written[largest], sizes[largest] - 1


def run_with_file_size_limit(script: str, *args: object,
                             limit: int) -> subprocess.CompletedProcess[str]:
    """`script` run as run_script runs it, where a file may hold at most `limit` bytes
    (RLIMIT_FSIZE: a write past it fails with EFBIG, as one fails on a full disk)."""
    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return run_tool([script, *args], before=limit_file_size)
