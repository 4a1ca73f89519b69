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


@pytest.mark.parametrize("package", ["numpy", "scipy"])
@pytest.mark.parametrize("script", tool_scripts(), ids=lambda path: path.name)
def test_a_tool_without_a_package_it_needs_says_so_in_one_line(
        script: Path, package: str, tmp_path: Path) -> None:
    # A sitecustomize that hides the package, as a machine without it would: importing it
    # fails and importlib finds no spec for it.
    (tmp_path / "sitecustomize.py").write_text(f"import sys\nsys.modules[{package!r}] = None\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:  # a tool that does not need the package for its help
        return
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"{script.name}: ")
    if "not installed" in done.stderr:
        assert done.stderr == (f"{script.name}: {package} is not installed for {sys.executable} "
                               "(python3 -m pip install -r scripts/requirements.txt)\n")


def test_the_tools_that_read_results_say_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['numpy'] = None\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    for name in ("gate_power.py", "analysis/process_spread.py", "analysis/host_factor.py",
                 "fleet_trust.py", "peers/compare_latency.py"):
        done = subprocess.run([sys.executable, str(TOOLS / name), "--help"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "numpy is not installed" in done.stderr, done.stderr
