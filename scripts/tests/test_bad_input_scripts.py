"""Every script over unusable input: one line `<script>: <file>: <problem>` on stderr, nothing on
stdout, exit status 2, never a traceback. The kinds of bad file are gbench_builder.bad_results;
the scripts' own options and output paths are tested here.

Most cases call the script's main() in this process (a script run is a second of imports);
a sample runs each script as a process, as a user does."""

import importlib
import json
import subprocess
from pathlib import Path

import pytest
from forked_command import run_tool
from conftest import RunScript, command
from gbench_builder import (
    bad_results,
    document,
    launch_run,
    with_repetitions,
    write_bad,
    write_json,
)

from gpubench_tools.cli.main import SUBCOMMANDS

BAD = [pytest.param(content, id=name) for name, content, _ in bad_results()]


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return write_json(tmp_path / "good.json",
                      document(launch_run("driver", "submit", 0, [2.0, 2.1, 1.9])))


def assert_one_line(proc: subprocess.CompletedProcess[str], script: str,
                    names: object = None) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.endswith("\n"), proc.stderr
    assert proc.stderr.startswith(f"gpubench-tools {script}: "), proc.stderr
    assert "Traceback" not in proc.stderr
    if names is not None:
        assert proc.stderr.startswith(f"gpubench-tools {script}: {names}"), proc.stderr


@pytest.fixture
def run_main(capsys: pytest.CaptureFixture[str]) -> RunScript:
    """Runs a script's main() here, as run_script runs the script as a process: an exception
    other than SystemExit fails the test, as a traceback would."""
    def run(script: str, *args: object) -> subprocess.CompletedProcess[str]:
        main = importlib.import_module(f"gpubench_tools.cli.{SUBCOMMANDS[script][0]}").main
        capsys.readouterr()
        try:
            status = main([str(a) for a in args])
        except SystemExit as exit_:
            status = exit_.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess([script, *args], status, out, err)
    return run


# The bad file in every position a script reads one.
SCRIPT_CALLS = {
    "gpubench-tools compare as BASE": ("compare", lambda bad, good, out: [bad, good]),
    "gpubench-tools compare as NEW": ("compare", lambda bad, good, out: [good, bad, "--markdown"]),
    "stability": ("stability", lambda bad, good, out: [bad]),
    "gpubench-tools report as BASE": ("report", lambda bad, good, out: [bad, good, "-o", out]),
    "gpubench-tools report as NEW": ("report", lambda bad, good, out: [good, bad, "-o", out]),
}


@pytest.mark.parametrize("call", list(SCRIPT_CALLS))
@pytest.mark.parametrize("content", BAD)
def test_bad_result_file(tmp_path: Path, run_main: RunScript, good: Path, call: str,
                         content: object) -> None:
    script, arguments = SCRIPT_CALLS[call]
    bad = write_bad(tmp_path / "bad.json", content)
    out = tmp_path / "report"
    proc = run_main(script, *arguments(bad, good, out))
    assert_one_line(proc, script, f"{bad}: ")
    assert not (out / "report.md").exists()


SAMPLE = [pytest.param(content, id=name) for name, content, _ in bad_results()
          if name in ("directory", "deeply nested JSON", "integer too large for a float",
                      "time_unit an object", "NaN")]


@pytest.mark.parametrize("call", list(SCRIPT_CALLS))
@pytest.mark.parametrize("content", SAMPLE)
def test_bad_result_file_as_a_process(tmp_path: Path, run_script: RunScript, good: Path,
                                      call: str, content: object) -> None:
    script, arguments = SCRIPT_CALLS[call]
    bad = write_bad(tmp_path / "bad.json", content)
    assert_one_line(run_script(script, *arguments(bad, good, tmp_path / "r")), script,
                    f"{bad}: ")


@pytest.mark.parametrize("script", ["compare", "report"])
def test_nothing_in_common(tmp_path: Path, run_main: RunScript, good: Path,
                           script: str) -> None:
    other = write_json(tmp_path / "other.json",
                       document(launch_run("graph", "submit", 0, 1.0)))
    proc = run_main(script, good, other, "-o", tmp_path / "r") if script == "report" \
        else run_main(script, good, other)
    assert_one_line(proc, script, f"{other}: no benchmark in common with {good}")


OPTIONS = [
    "--threshold=nan", "--threshold=inf", "--threshold=-inf", "--threshold=-1",
    "--threshold=0", "--threshold=abc", "--threshold=", "--alpha=0", "--alpha=1",
    "--alpha=2", "--alpha=nan", "--alpha=-0.5", "--alpha=x", "--no-such-option",
]


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("script", ["compare", "report"])
def test_option_out_of_range(tmp_path: Path, run_main: RunScript, good: Path, script: str,
                             option: str) -> None:
    extra = ["-o", tmp_path / "r"] if script == "report" else []
    proc = run_main(script, good, good, option, *extra)
    assert_one_line(proc, script)
    name = option.split("=")[0]
    assert name in proc.stderr or "unrecognized" in proc.stderr


@pytest.mark.parametrize(("script", "arguments"), [
    ("compare", []), ("compare", ["one.json"]), ("stability", []),
    ("report", ["a.json", "b.json"]),  # no -o
])
def test_missing_arguments(run_main: RunScript, script: str, arguments: list[str]) -> None:
    assert_one_line(run_main(script, *arguments), script)


def test_stability_without_repetitions(tmp_path: Path, run_script: RunScript) -> None:
    single = write_json(tmp_path / "one.json", document(launch_run("driver", "submit", 0, 2.0)))
    assert_one_line(run_script("stability", single), "stability",
                    f"{single}: no benchmark has two or more repetitions")


def test_report_output_exists_as_a_file(tmp_path: Path, run_script: RunScript,
                                        good: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    proc = run_script("report", good, good, "-o", taken)
    assert_one_line(proc, "report", f"{taken}: exists and is not a directory")
    assert taken.read_text() == "not a folder"


@pytest.mark.parametrize("missing", ["no/such/parent", "good.json/below_a_file"])
def test_report_output_parent_missing(tmp_path: Path, run_script: RunScript, good: Path,
                                      missing: str) -> None:
    target = tmp_path / missing
    proc = run_script("report", good, good, "-o", target)
    assert_one_line(proc, "report", f"{target}: its parent ")
    assert not target.exists()


def test_report_md_is_a_directory(tmp_path: Path, run_script: RunScript, good: Path) -> None:
    (tmp_path / "r" / "report.md").mkdir(parents=True)
    proc = run_script("report", good, good, "-o", tmp_path / "r")
    assert_one_line(proc, "report", f"{tmp_path / 'r' / 'report.md'}: ")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_report_output_unwritable(tmp_path: Path, run_script: RunScript, good: Path) -> None:
    # /proc takes no new folders, not even from root.
    proc = run_script("report", good, good, "-o", "/proc/gpubench-report")
    assert_one_line(proc, "report", "/proc/gpubench-report: ")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("script", ["compare", "stability", "report"])
def test_stdout_that_cannot_be_written(tmp_path: Path, good: Path, script: str) -> None:
    arguments = {"compare": [good, good, "--report"], "stability": [good],
                 "report": [good, good, "-o", tmp_path / "r"]}[script]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*command(script), *map(str, arguments)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == f"gpubench-tools {script}: stdout: No space left on device\n"


# An output that names a file the script reads. Each call gets the folder `d` holding the
# inputs a.json, b.json and c.json, and the output path the case gives.
OUTPUT_OVER_INPUT = {
    "gpubench-tools compare --changed-filter BASE": ("compare", lambda d, out: [
        d / "a.json", d / "b.json", "--changed-filter", out]),
    "gpubench-tools compare --changed-filter NEW": ("compare", lambda d, out: [
        d / "b.json", d / "a.json", "--changed-filter", out]),
    "gpubench-tools compare --changed-filter CONFIRM": ("compare", lambda d, out: [
        d / "b.json", d / "c.json", "--confirm", d / "a.json", "--changed-filter", out]),
    "gpubench-tools export -o": ("export", lambda d, out: [d / "a.json", "--format", "bencher",
                                                  "-o", out]),
    "gpubench-tools merge -o": ("merge", lambda d, out: [d / "b.json", d / "a.json",
                                                          "-o", out]),
    "gpubench-tools limits -o, a folder read": ("limits", lambda d, out: [d, "-o", out]),
    "gpubench-tools limits -o, a file read": ("limits", lambda d, out: [d / "a.json",
                                                                         "-o", out]),
    "gpubench-tools fleet -o, a folder read": ("fleet", lambda d, out: [d, "-o", out]),
    "gpubench-tools fleet -o, a file read": ("fleet", lambda d, out: [d / "a.json", "-o", out]),
    "gpubench-tools fleet -o, --limits": ("fleet", lambda d, out: [d / "b.json", "--limits",
                                                                   d / "a.json", "-o", out]),
    "gpubench-tools gallery -o": ("gallery", lambda d, out: [d.parent, "-o", out]),
    "gpubench-tools report -o REPORT.html": ("report", lambda d, out: ["--format=html",
                                                                       d / "b.json", d / "a.html",
                                                                       "-o", out]),
}
# The same file by other names: the path itself, another spelling of it, a link to it.
SPELLINGS = {
    "the same path": lambda target: target,
    "another spelling": lambda target: target.parent / ".." / target.parent.name / target.name,
    "a link": lambda target: _link(target),
}


def _link(target: Path) -> Path:
    link = target.parent.parent / f"link-to-{target.name}"
    link.symlink_to(target)
    return link


@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("call", list(OUTPUT_OVER_INPUT))
def test_an_output_that_is_an_input_is_refused(tmp_path: Path, run_main: RunScript, call: str,
                                               spelling: str) -> None:
    """One line naming it, nothing written: the input is as it was."""
    script, arguments = OUTPUT_OVER_INPUT[call]
    folder = tmp_path / "results" / "h200"
    folder.mkdir(parents=True)
    for name, us in (("a.json", 2.0), ("b.json", 2.2), ("c.json", 2.1)):
        write_json(folder / name, document(launch_run("driver", "submit", 0, [us, us, us])))
    target = folder / "a.json"
    if call.startswith("gpubench-tools report"):
        target = target.rename(folder / "a.html")
    before = target.read_bytes()
    output = SPELLINGS[spelling](target)
    proc = run_main(script, *arguments(folder, output))
    assert_one_line(proc, script, f"{output}: is also an input (")
    assert target.read_bytes() == before and not target.is_symlink()


def test_an_output_that_is_an_input_as_a_process(tmp_path: Path, run_script: RunScript,
                                                 good: Path) -> None:
    before = good.read_bytes()
    proc = run_script("merge", good, good.parent / "." / good.name, "-o", good)
    assert_one_line(proc, "merge", f"{good}: is also an input (")
    assert good.read_bytes() == before


# A result given as a pipe (`<(...)`, /dev/stdin) can be read only once.
THROUGH_A_PIPE = {
    "compare": lambda good, out: ["/dev/stdin", good, "--report"],
    "stability": lambda good, out: ["/dev/stdin"],
    "export": lambda good, out: ["/dev/stdin", "--format", "bencher"],
    "merge": lambda good, out: ["/dev/stdin", good, "-o", out / "merged.json"],
    "report": lambda good, out: [good, "/dev/stdin", "-o", out / "report"],
    "plot": lambda good, out: ["/dev/stdin", "-o", out / "plots"],
}


@pytest.mark.parametrize("aggregates_only", [False, True], ids=["repetitions", "aggregates"])
@pytest.mark.parametrize("script", list(THROUGH_A_PIPE))
def test_a_result_through_a_pipe_is_read_once(tmp_path: Path, good: Path, script: str,
                                              aggregates_only: bool) -> None:
    piped = with_repetitions(json.loads(good.read_text()), lambda i: True, aggregates_only)
    proc = run_tool([script, *map(str, THROUGH_A_PIPE[script](good, tmp_path))],
                    input=json.dumps(piped).encode(), timeout=120, text=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == b""
