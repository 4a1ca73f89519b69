"""Hostile input for the scripts, generated: Hypothesis strategies for the text a result file or
a command line can hold, result files built around that text, and the ways to run a script
that a user can (any argv bytes, environment, closed or full stdout).

Every script is run as a process, as a user runs it, and judged by the README's promise:
success, or one line `<script>: <problem>` on stderr and exit status 1 or 2; never a traceback,
a hang, or more than one line."""

import json
import os
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conftest import command
from forked_command import run_tool
from gbench_builder import (
    copy_run,
    document,
    launch_run,
    module_run,
    peer_run,
    run_entries,
    saxpy_run,
)
from hypothesis import strategies as st

from gpubench_tools.reading.result_file import MAX_CONTAINERS, MAX_VALUES

# Text a font, a terminal or matplotlib's mathtext may take for something else.
SPECIAL_TEXT = ["$", "$x^2$", "$$", "\\", "\\frac{a}{b}", "\\n", "%", "{", "}", "_", "^",
                "\n", "\r", "\t", "\x00", "\x1b[31m", "\x7f", "\x85", "\u2028", "\u202e",
                "\ud800", "\udcff", "\ufeff", "²", "٣", "🚀", "中文", "é", "ǅ", " ", ""]

# Any code point: surrogates and control characters included, which st.text() leaves out.
any_character = st.characters(exclude_categories=())
hostile_text = st.one_of(
    st.text(any_character, min_size=1, max_size=30),
    st.lists(st.sampled_from(SPECIAL_TEXT), min_size=1, max_size=6).map("".join),
    # Very long: a name or value of up to 40 000 characters.
    st.tuples(st.text(any_character, min_size=1, max_size=8), st.integers(100, 5_000))
    .map(lambda repeated: repeated[0] * repeated[1]),
).filter(bool)

# What stands where a size goes: digits of any script, superscripts, signs, huge numbers.
hostile_size = st.one_of(
    st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=6),
    st.sampled_from(["2²", "٣", "１２", "+4", "-4", " 4", "4 ", "1_000", "0x10", "1e3", "⁴",
                     "9" * 30, "9" * 5000, "params:²", "params:٣"]),
)


def result_with_names(names: Sequence[str], *, repetitions: int = 3,
                      size: str | None = None) -> dict[str, Any]:
    """A valid result of every family whose path components, GPU name and context values are
    `names` (and whose sizes are `size` where given, else ordinary)."""
    entries: list[dict[str, Any]] = []
    reps = [1.0 + 0.01 * i for i in range(repetitions)]
    for index, name in enumerate(names):
        copy_size = 4096 * (index + 1)
        entries += copy_run("HtoD", name, "async", copy_size, [10 * r for r in reps])
        entries += copy_run(name, "pinned", "async", copy_size, [10 * r for r in reps])
        entries += launch_run(name, "submit", 64 * index, [2 * r for r in reps])
        entries += module_run(f"{name}{index}", [150 * r for r in reps])
        entries += saxpy_run(name, 2**20 * (index + 1), [900 * r for r in reps], 3000.0)
        entries += peer_run(name, "read", 0, 1, copy_size, [20 * r for r in reps])
    if size is not None:
        rate = [{"real_time": r, "bytes_per_second": 4e9 * r, "us_per_copy": r} for r in reps]
        entries += run_entries(f"copy/HtoD/pinned/async/{size}/manual_time", rate)
        entries += run_entries(f"saxpy/vec4/{size}/manual_time", rate)
        entries += run_entries(f"peer/ce/read/{size}to1/4096/manual_time", rate)
        entries += run_entries(f"launch/driver/submit/{size}/manual_time",
                               [{"real_time": r, "us_per_launch": r} for r in reps])
    first = names[0]
    # With the run's settings, as gpubench writes them.
    doc = document(entries, gpu_name=first, driver_version=names[-1], host_name=first,
                   l2_bytes=names[-1], saxpy_l2="cold", benchmark_min_time="0s",
                   benchmark_min_warmup_time="0s", benchmark_enable_random_interleaving="false")
    # A key named as the name drawn, set after the others: a name drawn as one of their keys
    # (driver_version, entries) is no keyword passed twice.
    doc["context"].setdefault(first, names[-1])
    return doc


def write_result(path: Path, doc: dict[str, Any]) -> Path:
    # ensure_ascii: a lone surrogate is written as the \ud800 escape gpubench's JSON may hold.
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=True), encoding="ascii")
    return path


def write_fleet_of(doc: dict[str, Any], directory: Path, gpus: int = 4) -> Path:
    """`gpus` copies of `doc`, one per GPU of the fleet, in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    for gpu in range(gpus):
        context = dict(doc["context"], gpu_uuid=f"GPU-{gpu:08x}", host_name=f"node{gpu}")
        write_result(directory / f"gpu{gpu}.json", dict(doc, context=context))
    return directory


def script_arguments(script: str, result: Path, work: Path) -> list[str | Path]:
    """A usual call of `script` on one result file, its outputs under `work`."""
    if script == "fleet":
        return [write_fleet_of(json.loads(result.read_text()), work / "fleet"),
                "--min-gpus", "3", "-o", work / "heatmap.png"]
    return {
        "plot": [result, "-o", work / "figures"],
        "compare": [result, result, "--report"],
        "stability": [result],
        "export": [result, "--format", "github", "--direction", "bigger", "-o",
                      work / "export.json"],
        "report": [result, result, "-o", work / "report"],
        "flags": [result],
        "gallery": [result.parent, "-o", work / "index.html"],
        "merge": [result, result.with_name("again.json"), "-o", work / "merged.json"],
        "ratios": [result],
        "limits": [result, "-o", work / "limits.json"],
    }[script]


# The toolkit waits 3 s for a FIFO's writer or reader to come (reading/bounded_read.py,
# writing/outputs.py); where none ever comes, the wait's length changes nothing but the time,
# and test_bounded_read reads a FIFO no one writes with the real wait.
FIFO_WAIT_S = 0.3


def is_fifo(argument: str | bytes | Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(argument).st_mode)
    except (OSError, ValueError):
        return False


def short_fifo_waits() -> None:
    """In the forked child, before the command: FIFO_WAIT_S for every FIFO wait."""
    from gpubench_tools.reading import bounded_read
    from gpubench_tools.writing import outputs
    bounded_read.FIFO_WRITER_WAIT_S = FIFO_WAIT_S
    outputs.FIFO_READER_WAIT_S = FIFO_WAIT_S


def run(script: str, arguments: Sequence[str | bytes | Path], *, env: dict[str, str] | None
        = None, timeout: float = 60, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """`script` as a process; output as bytes, since a hostile name need not decode. With
    stdout a pipe, the process is forked with the toolkit loaded (forked_command.py), and where
    an argument is a FIFO it waits FIFO_WAIT_S for the writer or reader no test gives it."""
    if not kwargs:
        short = any(is_fifo(argument) for argument in arguments)
        return run_tool([script, *arguments], env=env, timeout=timeout, text=False,
                        before=short_fifo_waits if short else None)
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([*command(script), *map(os.fsencode, arguments)],
                          stderr=subprocess.PIPE, timeout=timeout,
                          env=env if env is not None else dict(os.environ), **kwargs)


def assert_kept_promise(proc: subprocess.CompletedProcess[bytes], script: str,
                        succeeds: bool | None = None) -> None:
    """Success (exit 0, or 1 for a verdict) with nothing on stderr, or exit 2 with one line
    `<script>: ...`; `succeeds` says which where the input decides it."""
    err = proc.stderr.decode("utf-8", "backslashreplace")
    shown = f"exit {proc.returncode}; stderr: {err[:2000]!r}"
    assert b"Traceback" not in proc.stderr, shown
    assert proc.returncode in (0, 1, 2), shown
    if proc.returncode == 2:
        assert succeeds is not True, shown
        assert (err.startswith(f"gpubench-tools {script}: ") and err.count("\n") == 1
                and err.endswith("\n")), shown
        assert len(err) < 2000, shown
    else:
        assert succeeds is not False, shown
        assert err == "", shown


def write_worst_result(path: Path) -> Path:
    """The result within the loader's limits that takes the most memory to read: as many
    benchmarks as MAX_CONTAINERS allows (less 100), each with as many counters of names of its
    own as MAX_VALUES allows."""
    counters = MAX_VALUES // MAX_CONTAINERS - 4
    entries = ",".join('{"name":"x/%d","real_time":1.5,"time_unit":"us",%s}' % (
        k, ",".join('"c%x_%d":1.5' % (k, i) for i in range(counters)))
        for k in range(MAX_CONTAINERS - 100))
    head = json.dumps({"context": {"gpubench_version": "0.1.0"}, "benchmarks": "@@"})
    path.write_text(head.replace('"@@"', f"[{entries}]"))
    return path


def write_large_result(path: Path, at_least_bytes: int) -> Path:
    """A valid result of at least `at_least_bytes`: copy runs of 3 repetitions, each its own
    size, written as text from one run's template (no JSON encoding per run)."""
    template = json.dumps(copy_run("HtoD", "pinned", "async", 123456789, [10.0, 11.0, 12.0]),
                          separators=(",", ":"))[1:-1].replace("123456789", "%d")
    head = json.dumps(document([]), separators=(",", ":"))
    prefix = head[:head.rindex("[]") + 1]
    runs = at_least_bytes // len(template) + 1
    with path.open("w", encoding="ascii") as out:
        out.write(prefix)
        step = 10_000
        for first in range(0, runs, step):
            out.write(("," if first else "") + ",".join(
                template.replace("%d", str(1024 + i))
                for i in range(first, min(first + step, runs))))
        out.write("]}")
    return path


def special_input(kind: str, tmp_path: Path) -> Path:
    """A path of one of INPUTS' kinds: a file no reader may hang or crash on."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo.json")
        return tmp_path / "fifo.json"
    if kind == "symlink loop":
        (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
        return tmp_path / "loop.json"
    if kind == "folder":
        return tmp_path
    return Path(kind)


# Input paths of every kind that is no result file.
INPUTS = ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full", "fifo", "symlink loop",
          "folder", "/proc/self/mem"]
