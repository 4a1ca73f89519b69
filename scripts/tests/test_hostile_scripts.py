"""The README's promise for input of every category, generated rather than listed: every script,
run as a process on hostile names, sizes, arguments, environments, paths and large files,
succeeds or says what is wrong in one line with exit status 2 (hostile_inputs says how each is
judged). Text from a file is shown as text: a table prints it escaped, a figure draws it with
mathtext off."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SCRIPTS, command
from hostile_inputs import (
    INPUTS,
    assert_kept_promise,
    hostile_size,
    hostile_text,
    result_with_names,
    run,
    script_arguments,
    special_input,
    write_large_result,
    write_result,
    write_worst_result,
)
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES
from gpubench_tools.reading.result_file import MAX_CONTAINERS
from gpubench_tools.reading.safe_text import printable, shorten

SCRIPT_NAMES = ["plot", "compare", "stability", "export", "report", "fleet",
                "flags"]

# One example per script and run: each is a process of one to five seconds, and CI has two cores;
# the in-process properties (test_markdown_escaping, test_html_report, test_gallery) try hundreds.
# No shrinking: a failing example is reported as found; shrinking would run hundreds of processes.
PROCESS_SETTINGS = settings(max_examples=1, deadline=None, database=None,
                            phases=(Phase.explicit, Phase.generate),
                            suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                   HealthCheck.too_slow,
                                                   HealthCheck.data_too_large])


@pytest.mark.parametrize("script", SCRIPT_NAMES)
@PROCESS_SETTINGS
@given(names=st.lists(hostile_text, min_size=1, max_size=3, unique=True))
def test_hostile_names_and_context(tmp_path_factory: pytest.TempPathFactory, script: str,
                                   names: list[str]) -> None:
    work = tmp_path_factory.mktemp("names")
    result = write_result(work / "r.json", result_with_names(names))
    proc = run(script, script_arguments(script, result, work))
    assert_kept_promise(proc, script)
    if script == "compare" and proc.returncode != 2:
        out = proc.stdout.decode("utf-8")
        # Each name as the file holds it: JSON reads an escaped surrogate pair as one character.
        read = [json.loads(json.dumps(name)) for name in names]
        assert all(printable(name) in out for name in read), out[:2000]
        # The GPU and driver are the first name and the last: the header (with the build) and
        # the mode line show them on their one line, each shortened to 200 characters.
        setup = f"{shorten(printable(read[0]), 200)}, driver {shorten(printable(read[-1]), 200)}"
        assert f"({setup}, gpubench " in out and f": {setup}, CUDA " in out, out[:2000]


@pytest.mark.parametrize("script", SCRIPT_NAMES)
@PROCESS_SETTINGS
@given(size=hostile_size)
def test_a_size_in_other_digits_is_no_size(tmp_path_factory: pytest.TempPathFactory,
                                           script: str, size: str) -> None:
    work = tmp_path_factory.mktemp("size")
    result = write_result(work / "r.json", result_with_names(["pinned"], size=size))
    assert_kept_promise(run(script, script_arguments(script, result, work)), script)


@pytest.mark.parametrize(("script", "names", "size"), [
    ("report", ["pinned" * 500], None),
    ("stability", ["pinned"], "2²"),
    ("fleet", ["pinned"], "2²"),
])
def test_long_names_and_sizes_in_other_digits(tmp_path: Path, script: str,
                                                   names: list[str], size: str | None) -> None:
    result = write_result(tmp_path / "r.json", result_with_names(names, size=size))
    assert_kept_promise(run(script, script_arguments(script, result, tmp_path), timeout=20),
                        script)


def test_plot_draws_no_other_digits_as_sizes(tmp_path: Path) -> None:
    """A last component of other digits is no argument: that benchmark is a bar, and the sweep
    holds only the sizes of ASCII digits."""
    from gpubench_tools.reading.result_file import load
    from gpubench_tools.renderers.figures import plot_files as plot
    from gpubench_tools.renderers.figures.panels import family_panels
    result = load(write_result(tmp_path / "r.json", result_with_names(["pinned"], size="٣")))
    sources = plot.make_sources([result])
    (htod, bars) = [p for p in family_panels(sources, "copy") if p.title == "HtoD"]
    assert htod.curves["pinned/async"][sources[0].label].x.tolist() == [4096]
    assert bars.argument is None and "pinned/async/٣" in bars.curves
    peer = family_panels(sources, "peer")
    assert all(t.x.min() == 4096 for p in peer for t in p.traces())


# Arguments: any bytes (Python reads what is not UTF-8 with surrogateescape), any count, any
# length; never a help request, which succeeds.
argument = st.binary(min_size=0, max_size=40).filter(lambda b: b"\0" not in b)
# Each under Linux's 128 KiB for one argument, all under its 2 MiB for a command line.
long_argument = st.tuples(st.binary(min_size=1, max_size=4), st.integers(1000, 10_000)).map(
    lambda repeated: repeated[0] * repeated[1]).filter(lambda b: b"\0" not in b)
arguments = st.lists(st.one_of(argument, long_argument), min_size=0, max_size=20).filter(
    lambda args: not any(a.startswith(b"-h") or (a.startswith(b"--h") and b"--help".startswith(
        a.split(b"=")[0])) for a in args))


@pytest.mark.parametrize("script", [s for s in SCRIPT_NAMES if s != "fleet"])
@PROCESS_SETTINGS
@given(args=arguments)
def test_any_arguments(script: str, args: list[bytes]) -> None:
    proc = run(script, args)
    assert_kept_promise(proc, script, succeeds=False)


def with_module_time(doc: dict, number: float, unit: str) -> dict:
    """`doc` with every launch/module run timed `number` in `unit`, its aggregates to match."""
    for entry in doc["benchmarks"]:
        if entry["name"].startswith("launch/module/"):
            spread = entry.get("aggregate_name") in ("stddev", "cv")
            entry.update(real_time=0.0 if spread else number,
                         cpu_time=0.0 if spread else number, time_unit=unit)
    return doc


# gpubench-tools fleet reports each file it skips on a line of its own.
@pytest.mark.parametrize("script", [s for s in SCRIPT_NAMES if s != "fleet"])
@PROCESS_SETTINGS
@example(number=1.7e308, unit="us")
@example(number=1e303, unit="s")
@example(number=5e-324, unit="ns")
@given(number=st.floats(allow_nan=False, allow_infinity=False),
       unit=st.sampled_from(["ns", "us", "ms", "s"]))
def test_any_finite_time_in_any_unit(tmp_path_factory: pytest.TempPathFactory, script: str,
                                     number: float, unit: str) -> None:
    """A number is read or refused in one line; none overflows or vanishes in what the scripts
    compute from it."""
    work = tmp_path_factory.mktemp("time")
    result = write_result(work / "r.json",
                          with_module_time(result_with_names(["pinned"]), number, unit))
    assert_kept_promise(run(script, script_arguments(script, result, work)), script)


@pytest.mark.parametrize("script", ["export", "merge", "compare"])
def test_an_output_fifo_without_a_reader_is_one_line(tmp_path: Path, good_result: Path,
                                                     script: str) -> None:
    """Writing would wait for a reader forever; the script waits a few seconds for one."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    again = tmp_path / "again.json"
    again.write_bytes(good_result.read_bytes())
    arguments = {"export": [good_result, "--format", "bencher", "-o", fifo],
                 "merge": [good_result, again, "-o", fifo],
                 "compare": [good_result, again, "--report", "--changed-filter", fifo]
                 }[script]
    proc = run(script, arguments, timeout=30)
    assert proc.stderr.decode() == f"gpubench-tools {script}: {fifo}: no reader on this FIFO\n"
    assert proc.returncode == 2


@pytest.mark.parametrize("path", ["%" * 5000, "a/" * 3000, "\udcff" * 300])
def test_fleet_path_the_system_refuses(path: str) -> None:
    assert_kept_promise(run("fleet", [path]), "fleet", succeeds=False)


@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_many_arguments(tmp_path: Path, script: str) -> None:
    proc = run(script, [f"missing{i}.json" for i in range(20_000)] + ["--no-such-option"])
    assert_kept_promise(proc, script, succeeds=False)


# Environment: an unknown plotting backend, a locale that is not installed, an encoding that
# cannot hold the names.
environment = st.fixed_dictionaries({
    "MPLBACKEND": st.one_of(st.sampled_from(["nope", "", "Qt5Agg", "module://no.such", "TkAgg",
                                             "agg"]),
                            st.text(st.characters(exclude_characters="\0",
                                                  exclude_categories=("Cs",)), max_size=20)),
    "PYTHONIOENCODING": st.sampled_from(["ascii", "ascii:strict", "latin-1", "utf-8:strict",
                                         "cp1252"]),
    "LANG": st.sampled_from(["C", "POSIX", "xx_XX.UTF-8", "tr_TR.UTF-8", "C.UTF-8"]),
    "LC_ALL": st.sampled_from(["", "C", "POSIX", "xx_XX"]),
})


@pytest.mark.parametrize("script", SCRIPT_NAMES)
@PROCESS_SETTINGS
@given(env=environment, names=st.lists(hostile_text, min_size=1, max_size=2, unique=True))
def test_hostile_environment(tmp_path_factory: pytest.TempPathFactory, script: str,
                             env: dict[str, str], names: list[str]) -> None:
    work = tmp_path_factory.mktemp("env")
    result = write_result(work / "r.json", result_with_names(names))
    proc = run(script, script_arguments(script, result, work), env=dict(os.environ, **env))
    assert_kept_promise(proc, script, succeeds=True)


@pytest.mark.parametrize("script", ["report", "fleet"])
def test_unknown_backend_in_the_scripts_that_draw_more(tmp_path: Path, script: str) -> None:
    result = write_result(tmp_path / "r.json", result_with_names(["pinned"]))
    proc = run(script, script_arguments(script, result, tmp_path),
               env=dict(os.environ, MPLBACKEND="nope"))
    assert_kept_promise(proc, script, succeeds=True)


# Input paths that are no result file: devices, a FIFO no one writes, a folder, a loop.
# Every subcommand reads its inputs through one reader (reading/bounded_read.py, tested there
# in process): every kind through one subcommand, and every other subcommand given the kind that
# would hang a reader that waited on it.
@pytest.mark.parametrize(("script", "kind"), [
    *(("compare", kind) for kind in INPUTS),
    *((script, "fifo") for script in SCRIPT_NAMES if script not in ("fleet", "compare"))])
def test_input_path_of_every_kind(tmp_path: Path, script: str, kind: str) -> None:
    path = special_input(kind, tmp_path)
    if not path.exists() and kind.startswith("/") and not path.is_symlink():
        pytest.skip(f"{kind} does not exist here")
    arguments = {"plot": [path, "-o", tmp_path / "f"], "compare": [path, path],
                 "stability": [path], "export": [path, "--format", "github"],
                 "report": [path, path, "-o", tmp_path / "r"],
                 "flags": [path]}[script]
    started = time.monotonic()
    proc = run(script, arguments, timeout=30)
    assert_kept_promise(proc, script, succeeds=False)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(("option", "kind"), [
    *(("--limits", kind) for kind in INPUTS), ("--expect-hosts", "fifo"),
    ("--expect-hosts", "/dev/zero")])
def test_fleet_file_option_of_every_kind(tmp_path: Path, option: str, kind: str) -> None:
    """The files gpubench-tools fleet reads beside the results: one line each, never a hang on a
    FIFO no one writes or a read of /dev/zero without end."""
    path = special_input(kind, tmp_path)
    if not path.exists() and kind.startswith("/") and not path.is_symlink():
        pytest.skip(f"{kind} does not exist here")
    result = write_result(tmp_path / "good.json", result_with_names(["pinned", "pageable"]))
    started = time.monotonic()
    proc = run("fleet", [result, option, path], timeout=30)
    assert_kept_promise(proc, "fleet", succeeds=False)
    assert time.monotonic() - started < 20


@pytest.fixture(scope="module")
def good_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_result(tmp_path_factory.mktemp("good") / "good.json",
                        result_with_names(["pinned", "pageable"]))


def closed_stdout(script: str, arguments: list[object]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *command(script),
                           *map(str, arguments)],
                          stderr=subprocess.PIPE, timeout=60)


@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_closed_stdout(tmp_path: Path, good_result: Path, script: str) -> None:
    arguments = script_arguments(script, good_result, tmp_path)
    proc = closed_stdout(script, arguments[:-2] if script == "export" else arguments)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.decode() == f"gpubench-tools {script}: stdout: closed\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_full_stdout(tmp_path: Path, good_result: Path, script: str) -> None:
    with open("/dev/full", "wb") as full:
        arguments = script_arguments(script, good_result, tmp_path)
        proc = run(script, arguments[:-2] if script == "export" else arguments, stdout=full)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.decode() == f"gpubench-tools {script}: stdout: No space left on device\n"


# Output paths: a FIFO, a device, a folder where a file goes, no extension.
@pytest.mark.parametrize("blocker", ["fifo", "/dev/null", "folder"])
def test_plot_output_file_that_is_no_regular_file(tmp_path: Path, good_result: Path,
                                                  blocker: str) -> None:
    figures = tmp_path / "figures"
    figures.mkdir()
    target = figures / "fit.txt"
    if blocker == "fifo":
        os.mkfifo(target)
    elif blocker == "folder":
        target.mkdir()
    else:
        target.symlink_to(blocker)
    proc = run("plot", [good_result, "-o", figures], timeout=30)
    assert_kept_promise(proc, "plot", succeeds=False)
    assert (proc.stderr.decode()
            == f"gpubench-tools plot: {target}: exists and is not a regular file\n")


@pytest.mark.parametrize("output", ["/dev/zero", "/proc/gpubench-figures"])
def test_plot_output_folder_that_cannot_be(tmp_path: Path, good_result: Path,
                                           output: str) -> None:
    proc = run("plot", [good_result, "-o", output], timeout=30)
    assert_kept_promise(proc, "plot", succeeds=False)


def test_fleet_output_without_extension_is_the_path_printed(tmp_path: Path,
                                                            good_result: Path) -> None:
    arguments = script_arguments("fleet", good_result, tmp_path)
    arguments[-1] = tmp_path / "heatmap"
    proc = run("fleet", arguments)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "heatmap").read_bytes().startswith(b"\x89PNG")
    assert not (tmp_path / "heatmap.png").exists()


# Large inputs: a file over the limit is refused before it is read; one at the limit is read within
# 20 s and 1 GiB, bounds well above the 2 s and 230 MB a file of gpubench runs at the limit takes on
# 2 cores (docs/usage.md, "What the toolkit reads, and its limits"; results/cpu/script_limits.txt).
@pytest.fixture(scope="session")
def huge_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_large_result(tmp_path_factory.mktemp("huge") / "huge.json", 250_000_000)


@pytest.mark.parametrize("script", [s for s in SCRIPT_NAMES if s != "fleet"])
def test_250_mb_file_is_refused_at_once(tmp_path: Path, huge_result: Path, script: str) -> None:
    arguments = script_arguments(script, huge_result, tmp_path)
    started = time.monotonic()
    proc = run(script, arguments, timeout=20)
    assert time.monotonic() - started < 20
    assert_kept_promise(proc, script, succeeds=False)
    assert proc.stderr.decode() == (f"gpubench-tools {script}: {huge_result}: larger than 32 MiB, "
                                    "the largest result file the scripts read\n")


def test_file_at_the_limit_is_read_in_stated_time_and_memory(tmp_path: Path) -> None:
    path = write_large_result(tmp_path / "limit.json", MAX_RESULT_BYTES - 1_000_000)
    assert path.stat().st_size <= MAX_RESULT_BYTES
    probe = ("import resource, sys, time; from gpubench_tools.reading.result_file import load; "
             "t = time.monotonic(); "
             "r = load(sys.argv[1]); print(len(r.benchmarks), time.monotonic() - t, "
             "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                          text=True, timeout=60, cwd=SCRIPTS)
    assert proc.returncode == 0, proc.stderr
    runs, seconds, max_rss_kib = proc.stdout.split()
    assert int(runs) > 10_000
    assert float(seconds) < 20 and int(max_rss_kib) < 2**20, proc.stdout


def test_the_worst_file_within_the_limits_is_read_in_stated_memory(tmp_path: Path) -> None:
    """As many benchmarks as MAX_CONTAINERS allows, each with as many counters of names of its
    own as MAX_VALUES allows: the README's 490 MB."""
    path = write_worst_result(tmp_path / "worst.json")
    assert path.stat().st_size <= MAX_RESULT_BYTES
    probe = ("import resource, sys; from gpubench_tools.reading.result_file import load; "
             "r = load(sys.argv[1]); "
             "print(len(r.benchmarks), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                          text=True, timeout=120, cwd=SCRIPTS)
    assert proc.returncode == 0, proc.stderr
    runs, max_rss_kib = map(int, proc.stdout.split())
    assert runs == MAX_CONTAINERS - 100 and max_rss_kib * 1024 < 500e6, proc.stdout


def test_tens_of_thousands_of_families_are_compared_in_seconds(tmp_path: Path) -> None:
    """A benchmark a family, 20 000 of them (well within the loader's limits): each family's
    benchmarks and rows are grouped once, not found by a scan of all of them per family, which
    took minutes (8 s for 2 000 families, 30 s for 4 000)."""
    from gbench_builder import run_entries
    entries = [entry for index in range(20_000) for entry in run_entries(
        f"family{index}/x/4096/manual_time", [{"real_time": 1.0, "bytes_per_second": 1e9}])]
    result = write_result(tmp_path / "r.json", {"context": {"gpubench_version": "0.1.0",
                                                            "merged_runs": 5},
                                                "benchmarks": entries})
    started = time.monotonic()
    proc = run("compare", [result, result], timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith(b"OK: 0 of 20000 benchmark(s) regressed")
    assert time.monotonic() - started < 60
