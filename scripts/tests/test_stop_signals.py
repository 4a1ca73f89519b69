"""The subcommands stopped by a signal as a user, `timeout`, a CI runner or a closed terminal stops
them: SIGINT, SIGTERM or SIGHUP ends each with one line `gpubench-tools <subcommand>: stopped by
SIGxxx before it finished`, no traceback, no temporary file and no output cut short, by the signal
itself (what a shell reports as 128+N); a signal ignored from the start (`nohup`) stays ignored."""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import SCRIPTS, TOOLS
from hostile_inputs import write_large_result

from gpubench_tools.reading.result_file import load

STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
# Large enough that every subcommand is still reading it a second after it starts.
INPUT_BYTES = 16 * 2**20
# Small enough that gpubench-tools merge merges two in a few seconds.
SMALL_INPUT_BYTES = 2**20


def caught_signals(pid: int) -> int:
    """The mask of signals the process `pid` has handlers for (SigCgt), 0 once it has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    (line,) = [line for line in status.splitlines() if line.startswith("SigCgt:")]
    return int(line.split()[1], 16)


def start(arguments: list[str | Path], wanted: Sequence[int] = STOP_SIGNALS,
          **kwargs: object) -> subprocess.Popen[bytes]:
    """A subcommand started as a user starts it, returned once it has handlers for the `wanted`
    signals (before them, Python's own defaults apply: the subcommand has done nothing yet)."""
    proc = subprocess.Popen([sys.executable, *map(str, arguments)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)
    mask = sum(1 << (number - 1) for number in wanted)
    deadline = time.monotonic() + 30
    while caught_signals(proc.pid) & mask != mask:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the stop signals' handlers were never installed"
        time.sleep(0.005)
    return proc


def write_inputs(folder: Path, size: int) -> dict[str, Path]:
    """Two copies of a result of `size` bytes (a.json in a machine's folder), and a fleet of
    three GPUs of it."""
    (folder / "machine").mkdir()
    first = write_large_result(folder / "machine" / "a.json", size)
    second = folder / "b.json"
    second.write_bytes(first.read_bytes())
    fleet = folder / "fleet"
    fleet.mkdir()
    document = json.loads(first.read_text())
    for gpu in range(3):
        context = dict(document["context"], gpu_uuid=f"GPU-{gpu:08x}", host_name=f"node{gpu}")
        (fleet / f"node{gpu}.json").write_text(json.dumps(dict(document, context=context)))
    return {"first": first, "second": second, "fleet": fleet, "machines": folder}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_inputs(tmp_path_factory.mktemp("inputs"), INPUT_BYTES)


@pytest.fixture(scope="module")
def small_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_inputs(tmp_path_factory.mktemp("small_inputs"), SMALL_INPUT_BYTES)


def script_call(script: str, inputs: dict[str, Path], work: Path) -> list[str | Path]:
    """A call of `script` on the large inputs that writes its outputs under `work`."""
    first, second = inputs["first"], inputs["second"]
    return [TOOLS, script, *{
        "compare": [first, second],
        "report": [first, second, "-o", work / "report"],
        "plot": [first, "-o", work / "figures"],
        "gallery": [inputs["machines"], "-o", work / "index.html"],
        "merge": [first, second, "-o", work / "merged.json"],
        "export": [first, "--format", "bencher", "-o", work / "export.json"],
        "stability": [first],
        "ratios": [first],
        "fleet": [inputs["fleet"], "-o", work / "heatmap.png"],
        "limits": [first, "-o", work / "limits.json"],
        "flags": [first],
    }[script]]


def assert_stopped(proc: subprocess.Popen[bytes], script: str, number: int,
                   work: Path) -> None:
    _, err = proc.communicate(timeout=60)
    name = signal.Signals(number).name
    assert (proc.returncode, err.decode()) == (
        -number, f"gpubench-tools {script}: stopped by {name} before it finished\n")
    assert [path.name for path in work.rglob("*.tmp")] == []


@pytest.mark.parametrize("number", STOP_SIGNALS, ids=lambda number: signal.Signals(number).name)
@pytest.mark.parametrize("script", ["compare", "report", "plot", "gallery",
                                    "merge", "export", "stability",
                                    "ratios", "fleet", "limits",
                                    "flags"])
def test_a_stop_signal_is_one_line_and_the_signal_s_end(tmp_path: Path, inputs: dict[str, Path],
                                                         script: str, number: int) -> None:
    """A signal while the subcommand reads its input: one line, the process ended by the signal,
    nothing written."""
    proc = start(script_call(script, inputs, tmp_path))
    time.sleep(0.3)
    assert proc.poll() is None, "the script finished before it could be stopped"
    proc.send_signal(number)
    assert_stopped(proc, script, number, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_second_signal_does_not_cut_the_line_short(tmp_path: Path,
                                                     inputs: dict[str, Path]) -> None:
    """SIGTERM to the subcommand and at once SIGINT to its group, as `timeout` and Ctrl-C together
    send them: one line, naming the signal the subcommand took first (Python takes signals pending
    together by number), and the end by that signal."""
    proc = start(script_call("compare", inputs, tmp_path), process_group=0)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=60)
    assert -proc.returncode in (signal.SIGTERM, signal.SIGINT), proc.returncode
    assert_stopped(proc, "compare", -proc.returncode, tmp_path)


@pytest.mark.parametrize("delay_s", [0.7 * step for step in range(6)])
def test_an_output_is_whole_or_as_it_was_whenever_the_signal_comes(
        tmp_path: Path, small_inputs: dict[str, Path], delay_s: float) -> None:
    """gpubench-tools merge writing over an earlier output, stopped at a moment anywhere from its
    start to its end: the earlier output as it was, or the new one whole, and no temporary file."""
    output = tmp_path / "merged.json"
    output.write_text("earlier\n")
    proc = start(script_call("merge", small_inputs, tmp_path))
    time.sleep(delay_s)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert [path.name for path in tmp_path.rglob("*.tmp")] == []
    if proc.returncode == 0:  # it finished first
        assert load(output).benchmarks
        assert err == b""
    else:
        assert (proc.returncode, err) == (-signal.SIGTERM, b"gpubench-tools merge: stopped by "
                                          b"SIGTERM before it finished\n")
        assert output.read_text() == "earlier\n" or load(output).benchmarks


@pytest.mark.parametrize("number", STOP_SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_ignored_from_the_start_stays_ignored(tmp_path: Path, inputs: dict[str, Path],
                                                       number: int) -> None:
    """`nohup gpubench-tools ...` (SIGHUP ignored), a background job of a shell script (SIGINT
    ignored): the subcommand runs on to its end."""
    call = script_call("export", inputs, tmp_path)
    proc = start(["-c", "import os, signal, sys; signal.signal(int(sys.argv[1]), signal.SIG_IGN); "
                  "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])", number, *call],
                 wanted=[other for other in STOP_SIGNALS if other != number])
    assert caught_signals(proc.pid) & (1 << (number - 1)) == 0
    proc.send_signal(number)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (0, b"")
    assert json.loads((tmp_path / "export.json").read_text())


def run_stopped(tmp_path: Path, body: str) -> subprocess.CompletedProcess[bytes]:
    """stopped.py, a script that installs the command's process handling and then runs
    `body`."""
    script = tmp_path / "stopped.py"
    script.write_text(f"import os, signal, sys, time\nsys.path.insert(0, {str(SCRIPTS)!r})\n"
                      "from gpubench_tools.cli import process\nprocess.install('stopped.py')\n"
                      f"{body}")
    return subprocess.run([sys.executable, str(script)], capture_output=True, timeout=30,
                          cwd=tmp_path)


# Where Python discards the Stopped a signal raises: caught by code that takes every exception,
# and raised in a finalizer, whose exceptions Python reports as "Exception ignored" and drops
# (as it does in an import lock's weakref callback, where numpy's import met a signal).
SWALLOWED = {
    "caught": "try:\n    os.kill(os.getpid(), signal.SIGTERM)\nexcept BaseException:\n    pass\n",
    "finalizer": "class Finalized:\n    def __del__(self):\n"
                 "        os.kill(os.getpid(), signal.SIGTERM)\nFinalized()\n",
    # matplotlib's projections: a pybind11 module's ImportError (the stop, wrapped) caught by
    # `except Exception`, and a warning in its place ("Unable to import Axes3D").
    "warned": "import warnings\ntry:\n    try:\n        os.kill(os.getpid(), signal.SIGTERM)\n"
              "        time.sleep(5)\n    except BaseException as stop:\n"
              "        raise ImportError('initialization failed') from stop\n"
              "except Exception:\n    warnings.warn('Unable to import Axes3D')\n",
}


@pytest.mark.parametrize("where", SWALLOWED)
def test_a_stop_that_python_discards_comes_again(tmp_path: Path, where: str) -> None:
    """The script would run on for good: the signal comes again and ends it, with one line and
    no warning a library gives where it took the stop for an error of its own."""
    proc = run_stopped(tmp_path, f"{SWALLOWED[where]}while True:\n    time.sleep(0.01)\n")
    assert (proc.returncode, proc.stderr.decode()) == (
        -signal.SIGTERM, "stopped.py: stopped by SIGTERM before it finished\n")


# A stop that reaches the top inside another error: pybind11 turns any exception in a module's
# initialization into ImportError("initialization failed") raised from it, as matplotlib's
# _path, _image and _qhull do when the signal comes while they load; code that wraps an error
# it catches does the same.
WRAPPED = {
    "cause": "except BaseException as stop:\n    raise ImportError('initialization failed') "
             "from stop\n",
    "context": "except BaseException:\n    raise ValueError('reading failed')\n",
}


@pytest.mark.parametrize("how", WRAPPED)
def test_a_stop_inside_another_error_is_the_stop(tmp_path: Path, how: str) -> None:
    """Not `cannot load ...: initialization failed` and exit status 2, nor a traceback: the
    stop's line and end."""
    proc = run_stopped(tmp_path, "try:\n    os.kill(os.getpid(), signal.SIGHUP)\n"
                       f"    time.sleep(5)\n{WRAPPED[how]}")
    assert (proc.returncode, proc.stderr.decode()) == (
        -signal.SIGHUP, "stopped.py: stopped by SIGHUP before it finished\n")


def test_a_second_signal_does_not_cut_the_cleanup_short(tmp_path: Path) -> None:
    """Ctrl-C as the cleanup of a SIGTERM runs (write_output removing its temporary file): the
    cleanup ends, and the script ends by the first signal."""
    proc = run_stopped(tmp_path, "try:\n    os.kill(os.getpid(), signal.SIGTERM)\n"
                       "    time.sleep(5)\nfinally:\n    os.kill(os.getpid(), signal.SIGINT)\n"
                       "    time.sleep(0.01)\n    open('cleaned', 'w').close()\n")
    assert (proc.returncode, proc.stderr.decode()) == (
        -signal.SIGTERM, "stopped.py: stopped by SIGTERM before it finished\n")
    assert (tmp_path / "cleaned").exists()


def test_a_second_signal_as_the_script_ends_is_no_traceback(tmp_path: Path) -> None:
    """A signal that reaches the excepthook as it starts: its line and the first signal's end,
    not 'Error in sys.excepthook', two tracebacks and exit status 1."""
    proc = run_stopped(tmp_path, "hook = sys.excepthook\ndef late(*error):\n"
                       "    os.kill(os.getpid(), signal.SIGINT)\n    hook(*error)\n"
                       "sys.excepthook = late\nos.kill(os.getpid(), signal.SIGHUP)\n"
                       "time.sleep(5)\n")
    assert (proc.returncode, proc.stderr.decode()) == (
        -signal.SIGHUP, "stopped.py: stopped by SIGHUP before it finished\n")


def test_a_signal_once_the_work_is_done_changes_nothing(tmp_path: Path) -> None:
    """A signal as Python finalizes a script that has done its work (Python has restored the
    signal's default by then): the script's own exit status, not a silent death by it."""
    proc = run_stopped(tmp_path, "class Late:\n    def __del__(self):\n"
                       "        os.kill(os.getpid(), signal.SIGTERM)\n        time.sleep(0.2)\n"
                       "late = Late()\n")
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_a_signal_between_the_renames_of_one_output_waits_for_the_last(tmp_path: Path) -> None:
    """SIGTERM as write_outputs renames the first of two files over its earlier one: the second
    is renamed too before the script stops, so the output is whole, never half new."""
    for name in ("a", "b"):
        (tmp_path / name).write_text("earlier\n")
    proc = run_stopped(tmp_path, "from pathlib import Path\n"
                       "from gpubench_tools.writing import outputs\n"
                       "replace = os.replace\ndef replace_and_stop(*paths):\n"
                       "    replace(*paths)\n    os.kill(os.getpid(), signal.SIGTERM)\n"
                       "os.replace = replace_and_stop\n"
                       "outputs.write_outputs({Path('a'): b'new\\n', Path('b'): b'new\\n'})\n"
                       "time.sleep(5)\n")
    assert (proc.returncode, proc.stderr.decode()) == (
        -signal.SIGTERM, "stopped.py: stopped by SIGTERM before it finished\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "stopped.py"]
    assert [(tmp_path / name).read_text() for name in ("a", "b")] == ["new\n", "new\n"]
