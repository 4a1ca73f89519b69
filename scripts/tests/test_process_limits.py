"""The subcommands under the process's limits and settings: a file size limit on stdout, a hash
seed. Each keeps the README's promise there too: its output whole, or one line
`gpubench-tools <subcommand>: <problem>` and exit status 2; the same bytes for the same input,
whatever the seed."""

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import H200, SCRIPTS, command
from gbench_builder import document, run_entries
from hostile_inputs import (
    assert_kept_promise,
    result_with_names,
    run,
    script_arguments,
    write_fleet_of,
    write_result,
)

STDOUT_LIMIT_BYTES = 64


def stdout_arguments(script: str, work: Path) -> list[str | Path]:
    """A call of `script` whose only output is more than STDOUT_LIMIT_BYTES on stdout."""
    result = write_result(work / "r.json", result_with_names(["pinned", "pageable"]))
    return {
        "compare": [result, result, "--report"],
        "stability": [result],
        "export": [result, "--format", "bencher"],
        "ratios": [H200 / "launch_paired_a.json"],
        "fleet": [write_fleet_of(json.loads(result.read_text()), work / "fleet")],
    }[script]


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (STDOUT_LIMIT_BYTES, STDOUT_LIMIT_BYTES))


@pytest.mark.parametrize("script", ["compare", "stability", "export",
                                    "ratios", "fleet"])
def test_stdout_cut_by_the_file_size_limit_is_one_line(tmp_path: Path, script: str) -> None:
    """ulimit -f reached part-way through stdout: the write stops short, and the subcommand says so
    instead of exiting as if the file held its whole output."""
    arguments = stdout_arguments(script, tmp_path)
    with open(tmp_path / "stdout.txt", "wb") as stdout:
        proc = subprocess.run([*command(script), *map(str, arguments)],
                              stdout=stdout, stderr=subprocess.PIPE, timeout=120,
                              preexec_fn=limit_file_size)
    assert (proc.returncode, proc.stderr.decode()) == (
        2, f"gpubench-tools {script}: stdout: File too large\n")
    assert (tmp_path / "stdout.txt").stat().st_size == STDOUT_LIMIT_BYTES


def test_a_figure_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """A file without facts or aggregates, two us_per_ counters in each repetition: its figure is
    the first the file names (docs/family-facts.md), under every PYTHONHASHSEED."""
    counters = [{"real_time": 1.0 + r, "us_per_zeta": 5.0 + r, "us_per_alpha": 7.0 + r}
                for r in range(3)]
    path = tmp_path / "r.json"
    repetitions = run_entries("fam/x/1024/manual_time", counters)[:len(counters)]
    path.write_text(json.dumps(document(repetitions)))
    exports = {seed: subprocess.run(
        [*command("export"), str(path), "--format", "bencher"],
        capture_output=True, timeout=60, check=True,
        env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout for seed in range(8)}
    assert len(set(exports.values())) == 1, exports
    (measure,) = json.loads(exports[0])["fam/x/1024"].values()
    assert measure["value"] == 6.0  # the mean of us_per_zeta's 5, 6 and 7


ENTRY_POINTS = ["compare", "report", "plot", "gallery", "merge",
                "export", "stability", "ratios", "fleet", "limits",
                "flags"]
# What a package's loading raises where the machine lacks something, as numpy raises it.
FAILED_LOADS = {
    "raise MemoryError": "out of memory",
    "raise OSError(12, 'Cannot allocate memory')": "out of memory",
    "raise OSError(24, 'Too many open files')":
        f"too many open files (at most {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}: "
        "ulimit -n)",
    "raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')":
        f"numpy is not installed for {sys.executable} (python3 -m pip install -r "
        "scripts/requirements.txt)",
    "raise ImportError('libopenblas.so: failed to map segment\\nfrom shared object', "
    "name='numpy')": "cannot load numpy: libopenblas.so: failed to map segment from shared "
                     "object",
}


@pytest.mark.parametrize("failure", FAILED_LOADS)
@pytest.mark.parametrize("script", ENTRY_POINTS)
def test_a_package_that_cannot_load_is_one_line(tmp_path: Path, script: str,
                                                failure: str) -> None:
    """numpy failing as it loads, as it does without memory or not installed: one line naming
    what is missing, exit status 2 (1 is a verdict of compare and fleet)."""
    result = write_result(tmp_path / "r.json", result_with_names(["pinned", "pageable"]))
    write_result(tmp_path / "again.json", result_with_names(["pinned", "pageable"]))
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text(failure + "\n")
    proc = subprocess.run([*command(script), *map(str, script_arguments(script, result,
                                                                         tmp_path))],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert (proc.returncode, proc.stderr) == (
        2, f"gpubench-tools {script}: {FAILED_LOADS[failure]}\n")



@pytest.mark.parametrize("setting", ["MPLCONFIGDIR", "XDG_CACHE_HOME", "HOME"])
def test_a_config_folder_that_cannot_be_made_leaves_stderr_empty(tmp_path: Path,
                                                                 setting: str) -> None:
    """Matplotlib's config and cache folder under a file: it draws from a temporary one, the
    figures are written, and a subcommand that succeeds says nothing on stderr. One drawing
    subcommand shows it: the package sets the folder up (renderers/figures/setup.py) before any
    of them loads matplotlib, and each run without a cache builds matplotlib's font list anew."""
    script = "plot"
    (tmp_path / "a_file").write_text("")
    result = write_result(tmp_path / "r.json", result_with_names(["pinned", "pageable"]))
    # Each setting matplotlib would consult before `setting` is left out.
    consulted = {"MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"}
    environment = {k: v for k, v in os.environ.items() if k not in consulted}
    environment[setting] = str(tmp_path / "a_file" / "folder")
    proc = run(script, script_arguments(script, result, tmp_path), env=environment)
    assert_kept_promise(proc, script, succeeds=True)


def limit_address_space(limit: int) -> Callable[[], None]:
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("mib", range(64, 1024, 64))
def test_an_address_space_below_the_floor_is_one_line(tmp_path: Path, mib: int) -> None:
    """ulimit -v under what numpy, scipy and their OpenBLAS need: one line before they load, not
    OpenBLAS spinning forever as scipy loads (192 MB with one thread, 216-272 MB with two) or
    ending the subcommand after lines of its own (280 MB with two threads, exit status 130)."""
    result = write_result(tmp_path / "r.json", result_with_names(["pinned", "pageable"]))
    proc = run("compare", [result, result, "--report"], timeout=30,
               preexec_fn=limit_address_space(mib << 20))
    assert (proc.returncode, proc.stderr.decode()) == (
        2, f"gpubench-tools compare: the toolkit needs an address space of 1024 MiB or more (the "
           f"address space is limited to {mib << 10} KiB: ulimit -v)\n")


@pytest.mark.parametrize("script", ["compare", "plot"])
def test_the_floor_of_address_space_is_enough(tmp_path: Path, script: str) -> None:
    """At ulimit -v 1 GiB, with OPENBLAS_NUM_THREADS=64 as a 64-core node may set it: the subcommand
    does its work."""
    result = write_result(tmp_path / "r.json", result_with_names(["pinned", "pageable"]))
    proc = run(script, script_arguments(script, result, tmp_path), timeout=120,
               env=dict(os.environ, OPENBLAS_NUM_THREADS="64"),
               preexec_fn=limit_address_space(1 << 30))
    assert_kept_promise(proc, script, succeeds=True)


def test_openblas_runs_on_one_thread_whatever_the_environment_says() -> None:
    """numpy's and scipy's OpenBLAS loaded after the command's process.install, told 64 threads: no
    thread of theirs starts (each would allocate a 32 MiB buffer as the library loads)."""
    probe = ("import os, sys; sys.path.insert(0, sys.argv[1]); "
             "from gpubench_tools.cli import process; process.install('probe'); import numpy, "
             "scipy.linalg; print(len(os.listdir('/proc/self/task')))")
    proc = subprocess.run([sys.executable, "-c", probe, str(SCRIPTS)], capture_output=True,
                          text=True, timeout=60, check=True,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="64"))
    assert proc.stdout == "1\n"
