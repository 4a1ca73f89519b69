"""The exit status stands whatever happens to stderr or the working folder, and an output is never
the file the command's own stdout or stderr goes to.

- stderr on a full disk, closed, or a pipe whose reader is gone: the exit status is the one
  documented (compare's 1 is a regression, fleet's 1 a GPU that needs attention), never Python's
  1 for a failed print or 120 for a failed last flush (cli/process.py).
- A working folder deleted under the command: paths given absolute are read and written, and an
  error that names no file is not blamed on stdout (cli/options.py's script_error).
- An output that is the file stdout or stderr goes to, by any path, is refused in one line, as
  gpubench refuses its --benchmark_out (writing/outputs.py).
"""

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import command
from gbench_builder import document, full_suite, recorded_baseline, scaled, write_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpubench_tools.cli.options import script_error
from gpubench_tools.reading.errors import OutputIsStandardStreamError
from gpubench_tools.writing.outputs import (
    refuse_output_over_input,
    standard_stream,
    write_output,
    write_outputs,
)

SLOWER = "launch/driver/submit/params:0/manual_time"


@pytest.fixture(scope="module")
def regression(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A baseline, and a run of it whose one launch is 3× slower: compare's exit 1."""
    folder = tmp_path_factory.mktemp("regression")
    base = write_json(folder / "base.json", recorded_baseline(full_suite()))
    new = write_json(folder / "new.json", scaled(document(full_suite()), SLOWER, 3.0))
    return base, new


def run_with_stderr(args: list[object], stderr: str,
                    environment: dict[str, str] | None = None) -> int:
    """The exit status of a subcommand whose stderr is `stderr` in bash's words (`2>/dev/full`,
    `2>&-`, or `| true`: a pipe whose reader is gone at once), stdout thrown away."""
    argv = " ".join(f"'{arg}'" for arg in [*command(str(args[0])), *args[1:]])
    if stderr.startswith("|"):
        script = f"{argv} 2>&1 >/dev/null {stderr}; echo ${{PIPESTATUS[0]}}"
    else:
        script = f"{argv} >/dev/null {stderr}; echo $?"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(environment or {})}, check=True)
    return int(proc.stdout)


@pytest.mark.parametrize(("stderr", "unbuffered", "case", "status"), [
    ("2>/dev/full", True, "regression", 1),
    ("2>/dev/full", False, "no such file", 2),
    ("2>&-", True, "no such file", 2),
    ("| true", True, "regression", 1),
], ids=["full", "full, buffered", "closed", "reader gone"])
def test_compare_exits_as_documented_whatever_becomes_of_stderr(
        regression: tuple[Path, Path], tmp_path: Path, stderr: str, unbuffered: bool, case: str,
        status: int) -> None:
    """PYTHONUNBUFFERED=1 turned a failed line on stderr into a traceback and exit 1, which is
    compare's regression; buffered, a failed last flush gave 120."""
    base, new = regression
    if case == "no such file":
        new = tmp_path / "none.json"
    environment = {"PYTHONUNBUFFERED": "1"} if unbuffered else {}
    assert run_with_stderr(["compare", base, new], stderr, environment) == status


def test_the_fleet_judges_as_documented_with_stderr_on_a_full_disk(tmp_path: Path) -> None:
    """Its lines of files it passes over go to stderr, the verdict to stdout."""
    from fleet_builder import write_example
    write_example(tmp_path / "fleet")
    (tmp_path / "fleet" / "odd.json").write_text("{")
    fleet = ["fleet", tmp_path / "fleet"]
    environment = {"PYTHONUNBUFFERED": "1"}
    assert run_with_stderr(fleet, "2>/dev/full", environment) == 0
    assert run_with_stderr([*fleet, "--fail-on-outlier"], "2>/dev/full", environment) == 1


def test_absolute_paths_are_read_and_written_from_a_deleted_working_folder(
        regression: tuple[Path, Path], tmp_path: Path) -> None:
    base, new = regression
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (f"cd '{gone}' && rmdir '{gone}' && exec {' '.join(command('compare'))} "
              f"'{base}' '{new}' --changed-filter '{tmp_path / 'changed.txt'}'")
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (1, "")
    assert "launch/driver/submit/params" in (tmp_path / "changed.txt").read_text()


def test_the_fleet_reports_from_a_deleted_working_folder(tmp_path: Path) -> None:
    """Its default limits files are named from the working folder where there is one, and by
    their absolute paths where it is gone."""
    from fleet_builder import write_example
    write_example(tmp_path / "fleet")
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (f"cd '{gone}' && rmdir '{gone}' && exec {' '.join(command('fleet'))} "
              f"'{tmp_path / 'fleet'}'")
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert "16 GPU result(s)" in proc.stdout


def test_an_error_naming_no_file_in_a_deleted_working_folder_is_not_blamed_on_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    here = os.getcwd()
    os.chdir(gone)
    gone.rmdir()
    try:
        try:
            os.path.relpath("/x")
        except FileNotFoundError as error:
            assert script_error("gpubench-tools fleet", error) == 2
    finally:
        os.chdir(here)
    assert capsys.readouterr().err == (
        "gpubench-tools fleet: the working folder no longer exists (No such file or directory)\n")


@contextlib.contextmanager
def on_stdout(path: Path) -> Iterator[None]:
    """A regular file on descriptor 1 inside the block, as `> out.json` puts one (pytest's
    capture puts its own there between a test's phases)."""
    saved = os.dup(1)
    with path.open("w") as file:
        os.dup2(file.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


# A path to `target` spelled otherwise: through `.` and `..`, doubled slashes, a link to it or
# to its folder.
@st.composite
def spellings(draw: st.DrawFn, target: Path, links: Path) -> Path:
    folder = target.parent
    how = draw(st.sampled_from(["dots", "slashes", "link", "folder link", "as is"]))
    if how == "dots":
        return Path(f"{folder}/./../{folder.name}/./{target.name}")
    if how == "slashes":
        return Path(str(target).replace("/", "//"))
    name = links / f"{how.replace(' ', '_')}{draw(st.integers(0, 10**6))}"
    if how == "link":
        if not name.is_symlink():
            name.symlink_to(target)
        return name
    if how == "folder link":
        if not name.is_symlink():
            name.symlink_to(folder)
        return name / target.name
    return target


def test_an_output_that_is_the_file_stdout_goes_to_is_refused_by_any_path(
        tmp_path: Path) -> None:
    links = tmp_path / "links"
    links.mkdir()
    stdout_file = tmp_path / "out.json"

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(path=st.one_of(st.sampled_from([Path("/dev/stdout"), Path("/dev/fd/1"),
                                           Path("/proc/self/fd/1")]),
                          spellings(stdout_file, links)))
    def refused(path: Path) -> None:
        assert standard_stream(path) == "standard output"
        with pytest.raises(OutputIsStandardStreamError) as error:
            refuse_output_over_input(path, [])
        assert str(error.value) == (f"{path}: is the file standard output goes to; name "
                                    "another for the output")
        for write in (lambda: write_output(path, "{}"), lambda: write_outputs({path: b"{}"})):
            with pytest.raises(OSError) as failed:
                write()
            assert (failed.value.filename, failed.value.strerror) == (
                str(path), "is the file standard output goes to; name another for the output")
        assert stdout_file.read_bytes() == b""

    with on_stdout(stdout_file):
        refused()
    other = tmp_path / "other.json"
    other.write_text("")
    for path in (other, tmp_path / "new.json", Path(os.devnull)):
        assert standard_stream(path) is None
        refuse_output_over_input(path, [])


def test_standard_error_by_path_is_refused() -> None:
    """Descriptor 2 under pytest is a file of its own (or the terminal), not stdout's."""
    stream = standard_stream(Path("/dev/stderr"))
    assert stream in ("standard error", "standard output")
    assert stream == ("standard output" if os.path.samestat(os.fstat(1), os.fstat(2))
                      else "standard error")


def test_merge_to_its_own_stdout_is_refused_in_one_line(regression: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    """Through a pipe (`merge ... -o /dev/stdout | jq`) the JSON and the status line would
    come out as one invalid document."""
    base, _ = regression
    second = write_json(tmp_path / "second.json", recorded_baseline(full_suite()))
    script = " ".join([*command("merge"), f"'{base}'", f"'{second}'", "-o /dev/stdout | cat"])
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("gpubench-tools merge: /dev/stdout: is the file standard output goes "
                           "to; name another for the output\n")


def test_merge_to_the_file_its_stdout_goes_to_is_refused(regression: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    """`merge ... -o /proc/self/fd/1 > merged.json`: the status line would land over the JSON."""
    base, _ = regression
    second = write_json(tmp_path / "second.json", recorded_baseline(full_suite()))
    out = tmp_path / "merged.json"
    with out.open("w") as stdout:
        proc = subprocess.run([*command("merge"), base, second, "-o", "/proc/self/fd/1"],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)
    assert (proc.returncode, out.read_text()) == (2, "")
    assert proc.stderr == ("gpubench-tools merge: /proc/self/fd/1: is the file standard output "
                           "goes to; name another for the output\n")
