"""The scripts of tools/ as a user calls them: each one a reader can paste is executable, and each
refuses an option it does not take in one line on stderr, nothing on stdout and exit status 2,
never a traceback, before it reads a file or looks for a GPU."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCRIPTS

ROOT = SCRIPTS.parent
TOOLS = ROOT / "tools"
# Folders of data, builds and version control: no script a reader calls lives there.
NOT_SCRIPTS = {".git", "results", "build", "build-gpu", ".devrun", ".peers", "node_modules"}
# Modules the scripts import, and tests pytest runs: never called as a command.
LIBRARY = {TOOLS / "peers" / "peer_files.py", TOOLS / "analysis" / "probe_text.py"}


def files_under(folder: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in NOT_SCRIPTS and not d.startswith("__")]
        found.extend(Path(dirpath) / name for name in filenames)
    return found


def starts_with_shebang(path: Path) -> bool:
    with path.open("rb") as stream:
        return stream.read(2) == b"#!"


def tool_scripts() -> list[Path]:
    return sorted(path for path in files_under(TOOLS)
                  if path.suffix == ".py" and not path.name.startswith("test_")
                  and path not in LIBRARY)


def test_every_script_with_a_shebang_is_executable() -> None:
    not_executable = [str(path.relative_to(ROOT)) for path in files_under(ROOT)
                      if path.is_file() and not path.is_symlink() and starts_with_shebang(path)
                      and not os.access(path, os.X_OK)]
    assert not_executable == []


def test_tools_scripts_are_found() -> None:
    names = {path.name for path in tool_scripts()}
    assert {"gate_power.py", "fleet_trust.py", "host_factor.py", "three_faster.py",
            "nvml_violations.py", "compare_latency.py"} <= names


@pytest.mark.parametrize("script", tool_scripts(), ids=lambda path: path.name)
def test_an_option_a_tool_does_not_take_is_one_line(script: Path) -> None:
    done = subprocess.run([sys.executable, str(script), "--no-such-option"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"{script.name}: "), \
        done.stderr
