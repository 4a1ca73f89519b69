"""Records gpubench the way the CI gate compares it: GPUBENCH_RUNS separate runs of one binary
(default 5, 2 to 1000), each a process of its own, merged (`gpubench-tools merge`) into OUT.json
with one repetition per run (compressed where its name ends in .gz, .xz or .bz2). The gate
records its candidate with this, and the committed baseline is recorded with this too.
Arguments after OUT.json go to every gpubench run.

  scripts/gpubench-tools record build/gpubench gpubench.json

Each run may take GPUBENCH_RUN_TIMEOUT seconds (1 to 86400, default 1800: the default suite
takes 70.6 s on an H100, so only a run that hangs comes near it). A run still going then
gets SIGTERM, sent to its process group, on which gpubench stops between batches, and SIGKILL
30 s later.

SIGTERM, SIGINT or SIGHUP stops the run in progress with the same signal (SIGKILL 30 s later)
and waits for it, so no gpubench is left holding the GPU or writing later; one line says which
signal stopped which run, and OUT.json is not written. A merge in progress is left to finish (it
is short), and the line then says whether OUT.json was written.

Exit status: 0 written; 2 bad usage (a setting out of its range, a binary that is no
executable file among them), an output that cannot be written (/dev/full), that names a folder
(a trailing /) or that is the binary, or a TMPDIR no folder can be made in, found before any
run; 4 the recording failed: a run failed, could not be started or did not finish in time, or
the runs could not be merged or written (the line before says which); 128+N stopped by signal
N.
"""

import os
import shutil
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpubench_tools.runs.children import (
    Child,
    StopSignal,
    ignore_stop_signals,
    signal_name,
    stop_signals_held,
    stopped_status,
)
from gpubench_tools.runs.messages import say, shown
from gpubench_tools.runs.outputs_check import has_content, output_problem, temporary_folder
from gpubench_tools.runs.settings import RecordingSettings, SettingError, recording_settings

SCRIPT = "gpubench-tools record"
USAGE = "gpubench-tools record GPUBENCH OUT.json [gpubench flags...]"
BAD_USAGE = 2
RECORDING_FAILED = 4
KILL_AFTER_S = 30

# Merges the run files into OUT.json and says what it wrote, or why not, in one line; its exit
# status (gpubench-tools merge's).
Merge = Callable[[list[Path], str], int]


@dataclass
class _Progress:
    """Where the recording is, for the line a stop signal gets."""
    stage: str = "before the first run"
    child: Child | None = None
    written: bool = False


def record(binary: str, out: str, flags: Sequence[str], *, merge: Merge,
           stop_signal: StopSignal, environ: Mapping[str, str] = os.environ) -> int:
    """Records `binary` into `out`, as the module says; its exit status. A stop signal stops
    the run in progress; the line says so, and the status is 128+N."""
    try:
        settings = recording_settings(environ)
    except SettingError as error:
        say(SCRIPT, str(error))
        return BAD_USAGE
    program = shutil.which(binary)
    if program is None:
        say(SCRIPT, f"{shown(binary)}: not an executable file")
        return BAD_USAGE
    if problem := output_problem(out, [program]):
        say(SCRIPT, problem)
        return BAD_USAGE
    folder = temporary_folder(SCRIPT, environ)
    if folder is None:
        return BAD_USAGE
    progress = _Progress()
    try:
        return _record_runs(program, out, flags, settings, folder, progress, merge)
    except BaseException as error:
        number = stop_signal(error)
        if number is None:
            raise
        _stopped(number, out, progress)
        return stopped_status(number)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _record_runs(program: str, out: str, flags: Sequence[str], settings: RecordingSettings,
                 folder: Path, progress: _Progress, merge: Merge) -> int:
    files = []
    for index in range(1, settings.runs + 1):
        run = f"run {index} of {settings.runs}"
        say(SCRIPT, run)
        progress.stage = f"during {run}"
        file = folder / f"run_{index}.json"
        if failure := _run_gpubench(program, file, flags, settings.run_timeout_s, progress):
            say(SCRIPT, f"{run}{failure}")
            return RECORDING_FAILED
        files.append(file)
    progress.stage = "while merging the runs"
    with stop_signals_held():
        progress.written = merge(files, out) == 0
    return 0 if progress.written else RECORDING_FAILED


def _run_gpubench(program: str, file: Path, flags: Sequence[str], timeout_s: int,
                  progress: _Progress) -> str | None:
    """One run writing `file`, bounded in time; how it failed, as its line ends, or None."""
    try:
        progress.child = Child([program, *flags, f"--benchmark_out={file}",
                                "--benchmark_out_format=json"], own_group=True, passes_stop=True,
                               kill_after_s=KILL_AFTER_S)
    except OSError as error:
        return f": gpubench could not be started: {error.strerror or error}"
    status = progress.child.wait(timeout_s)
    if status is None:
        progress.child.end(signal.SIGTERM)
        progress.child = None
        return f" did not finish in {timeout_s} s"
    progress.child = None
    if status == 0:
        return None if has_content(file) else ": gpubench exited 0 and wrote no result"
    if status < 0:
        return f": gpubench was killed by signal {signal_name(-status)}"
    return f": gpubench exited {status}"


def _stopped(number: int, out: str, progress: _Progress) -> None:
    """Signal `number` passed on to the run in progress, which is waited for; its line."""
    ignore_stop_signals()
    if progress.child is not None:
        progress.child.stop(number)
    written = "written" if progress.written else "not written"
    say(SCRIPT, f"stopped by {signal_name(number)} {progress.stage}; {shown(out)} {written}")
