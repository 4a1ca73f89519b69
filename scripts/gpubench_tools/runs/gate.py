"""The CI gate: records the candidate as the baseline was recorded (`gpubench-tools record`,
GPUBENCH_RUNS separate runs, given the flags of the settings the baseline's context states: its
filter, minimum time, --energy, devices, --l2, --sizes; `gpubench-tools flags`; a baseline of
another build type than the binary's --version states, which no flag gives, stops it before any
run), compares it with the baseline (`gpubench-tools compare`), and confirms every change it
finds before it says so. Where a benchmark is found SLOWER or FASTER, the candidate is recorded
GPUBENCH_CONFIRM_RUNS times more (GPUBENCH_RUNS where unset), and each change is judged again on
those runs alone (gpubench-tools compare --confirm): it stands where they give the same verdict.
Fewer confirming runs than first ones keep a gate that finds a change short: on one H200's
splits, 5 runs and 3 confirming ones caught what 5 and 5 did within 2 points
(results/h200/gate_power/card_7b806b78_confirm3.txt). Each process lands on a level of
its own, so now and then an unchanged benchmark's few runs all sit past its baseline's; fresh
runs seldom do again, while a real change is in every run. The runs that showed a change are not
judged again: picked for sitting far out, they would count twice. The confirming runs are whole
runs, as the first were (all the baseline's filter selects, the whole suite where it has none): a
benchmark can measure otherwise in a run of a few (on the H200, the GPU time per node of a graph
replay was 0.61 us in runs of the changed benchmarks alone, 0.79 us in runs of the suite:
results/h200/verdicts/gate_aa/filtered_confirm/).

  scripts/gpubench-tools gate build/gpubench results/h200/ci_baseline.json gpubench.json --markdown

Writes OUT.json, the candidate's runs, and where there were confirming runs, OUT.confirm.json
beside it (OUT.json's name with .json replaced); an OUT.json.gz, .xz or .bz2 and its
OUT.confirm.json.gz (.xz, .bz2) are written compressed (gpubench-tools record). Prints on stdout
what the gate says, and nothing else: the last comparison's report (where it makes no regression
check, gpubench-tools compare's line saying why, then the comparison), followed by the filter of
what the confirming runs judged again; the recordings' own output goes to stderr. \
Flags after OUT.json go to gpubench-tools
compare, but for those the gate sets itself (--confirm, --changed-filter, --new-runs) and --help;
they are checked, with the baseline, before the first run. In a regression check the candidate
must hold every benchmark of the baseline (one that no longer runs passes no check); a benchmark
only in the candidate is new.

SIGTERM, SIGINT or SIGHUP stops the recording in progress with the same signal and waits for it
(gpubench-tools record's line says which run it stopped), or stops the gate once the comparison
in progress ends (one line says so); no verdict is printed.

Exit status: the last comparison's (0 no regression, 1 a regression or a benchmark UNRESOLVED
without --accept-unresolved, 3 another GPU, driver, CUDA or measurement setting), or 3 before any
run for a baseline of another build type than the binary's; 2 bad usage (a gpubench-tools compare
flag, GPUBENCH_RUNS or GPUBENCH_RUN_TIMEOUT out of gpubench-tools record's range,
GPUBENCH_CONFIRM_RUNS out of the same range, GPUBENCH_RUNS or GPUBENCH_CONFIRM_RUNS too few against
the baseline's runs for any p < --alpha), an unusable baseline (one of one process's run
among them: gpubench-tools compare makes no regression check against it; a setting that is no text a
flag can hold), an output that cannot be written, that is the binary or the baseline, that is no
regular file to read back or that names the confirm file by a link, or a TMPDIR no folder can be
made in, all found before any run, or confirming runs gpubench-tools compare cannot judge against
the candidate (its line says why, and no line says what was judged again); 4 a recording failed
(gpubench-tools record's line says how); 5 the candidate lacks benchmarks of the baseline (one line
names them); 128+N stopped by signal N.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import gpubench_tools
from gpubench_tools.reading.safe_text import markdown_code, markdown_text
from gpubench_tools.runs.children import (
    Child,
    StopSignal,
    exit_status,
    ignore_stop_signals,
    signal_name,
    stopped_status,
)
from gpubench_tools.runs.gate_arguments import (
    asks_for_markdown,
    asks_for_report,
    confirm_path,
    gate_output_problem,
    own_flag_problem,
)
from gpubench_tools.runs.messages import say, shown
from gpubench_tools.runs.outputs_check import has_content, remove_stale, temporary_folder
from gpubench_tools.runs.settings import SettingError, confirming_runs, recording_settings
from gpubench_tools.writing.outputs import write_stdout

SCRIPT = "gpubench-tools gate"
USAGE = "gpubench-tools gate GPUBENCH BASELINE.json OUT.json [gpubench-tools compare flags...]"
BAD_USAGE = 2
MEASURED_OTHERWISE = 3
VERSION_TIMEOUT_S = 60
KILL_AFTER_S = 30
# gpubench --version: `gpubench VERSION (TYPE build)`, one line.
_VERSION = re.compile(rb"gpubench [^\s]+ \(([^\s()]+) build\)")


def gate(binary: str, baseline: str, out: str, compare_flags: Sequence[str], *,
         stop_signal: StopSignal, environ: Mapping[str, str] = os.environ) -> int:
    """The gate, as the module says; its exit status. A stop signal stops the recording in
    progress (or waits for the comparison in progress); the status is then 128+N."""
    # The recording's settings reach gpubench-tools record through the environment: checked here
    # as it checks them, so that a bad one is the gate's line before the baseline is read.
    try:
        runs = recording_settings(environ).runs
        confirm_runs = confirming_runs(environ, runs)
    except SettingError as error:
        say(SCRIPT, str(error))
        return BAD_USAGE
    confirm = confirm_path(out)
    problem = (own_flag_problem(compare_flags)
               or gate_output_problem(out, confirm, [binary, baseline]))
    if problem:
        say(SCRIPT, problem)
        return BAD_USAGE
    remove_stale(confirm)
    folder = temporary_folder(SCRIPT, environ)
    if folder is None:
        return BAD_USAGE
    steps = _GateSteps(binary, baseline, compare_flags, runs, confirm_runs, folder, environ)
    try:
        return steps.run(out, confirm, report=asks_for_report(compare_flags))
    except BaseException as error:
        number = stop_signal(error)
        if number is None:
            raise
        steps.stopped(number)
        return stopped_status(number)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _GateSteps:
    """The gate's steps, each a child process: where it is, for the line a stop signal gets."""

    def __init__(self, binary: str, baseline: str, compare_flags: Sequence[str], runs: int,
                 confirm_runs: int, folder: Path, environ: Mapping[str, str]) -> None:
        self.binary = binary
        self.baseline = baseline
        self.compare_flags = list(compare_flags)
        self.markdown = asks_for_markdown(compare_flags)
        self.runs = runs
        self.confirm_runs = confirm_runs
        self.folder = folder
        self.environment = _tools_environment(environ)
        self.stage = "while checking the baseline"
        self.child: Child | None = None

    def run(self, out: str, confirm: str, *, report: bool) -> int:
        if (status := self._check_baseline()) != 0:
            return status
        flags = self._recorded_flags(None if report else self._build_type())
        if isinstance(flags, int):
            return flags
        if flags:
            say(SCRIPT, f"recording with the baseline's settings: {' '.join(flags)}")
        if (status := self._record(out, flags, self.runs)) != 0:
            return status
        changed = self.folder / "changed"
        status = self._compare(["--missing-fails", "--changed-filter", str(changed)], out)
        # No change found, or no comparison (another GPU, driver or CUDA; an unusable file).
        if not has_content(changed):
            self._print_report(status)
            return status
        filter_text = os.fsdecode(changed.read_bytes().rstrip(b"\n"))
        say(SCRIPT, f"recording the suite again to confirm what changed: {filter_text}")
        if (status := self._record(confirm, flags, self.confirm_runs)) != 0:
            return status
        status = self._compare(["--missing-fails", f"--confirm={confirm}"], out)
        self._print_report(status)
        # A status past 1 is gpubench-tools compare's one line: confirming runs it could not
        # judge (of another driver, say, updated during the gate), so nothing was judged again.
        if status <= 1:
            # The filter holds benchmark names: a code span shows them as they are.
            _print(f"\nConfirmed by {self.confirm_runs} more runs of the suite, each change judged "
                   f"again on them alone: {markdown_code(filter_text)}\n")
        return status

    def _check_baseline(self) -> int:
        """An unusable baseline or compare flag, or GPUBENCH_RUNS or GPUBENCH_CONFIRM_RUNS
        too few against the baseline's runs for any p < --alpha (a gate that could never fail,
        or never for a benchmark whose runs hold a tie or two; the fewer of the two is checked,
        as each is judged alone), is found before the runs, not minutes later:
        gpubench-tools compare reads the baseline against itself with the flags and says why in
        one line. Files follow `--` and a file option's `=`, so that
        a name starting with a dash is no option. A benchmark the baseline leaves UNRESOLVED
        against itself is no unusable baseline: the comparison after the runs fails on it."""
        with open(self.folder / "report", "wb") as report:
            status = self._tool(["compare", f"--new-runs={min(self.runs, self.confirm_runs)}",
                                 *self.compare_flags,
                                 "--accept-unresolved", "--", self.baseline, self.baseline],
                                subprocess.DEVNULL, report)
        if status != 0:
            self._print_report(status)
            return BAD_USAGE
        return 0

    def _build_type(self) -> str | None:
        """The binary's build type, as gpubench --version states it without a GPU; None where
        it states none (left to gpubench-tools compare, after the runs). The build type is the
        binary's, not a flag's, and a baseline of another (a Debug build's against a Release
        candidate) is measured otherwise, which gpubench-tools compare finds only after the
        runs: gpubench-tools flags refuses it before them."""
        version = self.folder / "version"
        try:
            with open(version, "wb") as stdout:
                self.child = Child([self.binary, "--version"], own_group=True, passes_stop=True,
                                   kill_after_s=KILL_AFTER_S, stdout=stdout,
                                   stderr=subprocess.DEVNULL)
        except OSError:
            return None
        status = self.child.wait(VERSION_TIMEOUT_S)
        if status is None:
            self.child.end(signal.SIGKILL)
        self.child = None
        found = _VERSION.fullmatch(version.read_bytes().rstrip(b"\n"))
        return os.fsdecode(found.group(1)) if status == 0 and found else None

    def _recorded_flags(self, build_type: str | None) -> list[str] | int:
        """The gpubench flags of the baseline's settings (gpubench-tools flags), or the gate's exit
        status where it refuses the baseline: 3 for another build type, as gpubench-tools compare's
        status for measured otherwise, else 2."""
        typed = [] if build_type is None else [f"--build-type={build_type}"]
        flags_file = self.folder / "flags"
        with open(flags_file, "wb") as stdout, open(self.folder / "report", "wb") as stderr:
            status = self._tool(["flags", *typed, "--", self.baseline], stdout, stderr)
        if status != 0:
            self._print_report(status)
            return MEASURED_OTHERWISE if status == MEASURED_OTHERWISE else BAD_USAGE
        lines = flags_file.read_bytes().split(b"\n")
        return [os.fsdecode(line) for line in lines[:-1 if lines[-1] == b"" else None]]

    def _record(self, out: str, flags: list[str], runs: int) -> int:
        """gpubench-tools record of `runs` runs of the binary into `out` with the baseline's
        flags, its output on stderr; a stop signal is passed on to it, and it passes it on to
        its run."""
        self.stage = f"while recording {out}"
        self.child = Child(_tools_argv(["record", self.binary, out, *flags]), own_group=False,
                           passes_stop=True, env=dict(self.environment, GPUBENCH_RUNS=str(runs)),
                           stdout=sys.stderr)
        status = exit_status(self.child.process.wait())
        self.child = None
        return status

    def _compare(self, gate_flags: list[str], out: str) -> int:
        """gpubench-tools compare of the baseline and `out`; its report, stdout and stderr, in
        the folder's file `report`."""
        self.stage = "while comparing"
        with open(self.folder / "report", "wb") as report:
            return self._tool(["compare", *gate_flags, *self.compare_flags, "--", self.baseline,
                               out], report, subprocess.STDOUT)

    def _print_report(self, status: int) -> None:
        """The folder's file `report` on stdout: a comparison as gpubench-tools compare wrote
        it, or, past status 1, a tool's line on why it judged nothing, which in markdown (the
        CI's summary) renders as text, for it names what the files hold."""
        text = (self.folder / "report").read_bytes().decode(sys.stdout.encoding or "utf-8",
                                                             "surrogateescape")
        if self.markdown and status > 1:
            text = "\n".join(markdown_text(line) for line in text.split("\n"))
        _print(text)

    def _tool(self, argv: list[str], stdout: IO[bytes] | int, stderr: IO[bytes] | int) -> int:
        """A gpubench-tools subcommand, waited for; its exit status."""
        self.child = Child(_tools_argv(argv), own_group=False, passes_stop=False,
                           env=self.environment, stdout=stdout, stderr=stderr)
        status = exit_status(self.child.process.wait())
        self.child = None
        return status

    def stopped(self, number: int) -> None:
        """Signal `number` passed on to the recording in progress, which is waited for and says
        which run it stopped; a comparison in progress is waited for. One line, unless the
        recording said it."""
        ignore_stop_signals()
        status = None
        if self.child is not None:
            status = exit_status(self.child.stop(number))
        if status != stopped_status(number):
            say(SCRIPT, f"stopped by {signal_name(number)} {shown(self.stage)}; no verdict")


def _tools_argv(argv: list[str]) -> list[str]:
    """A gpubench-tools subcommand run by this Python, as a child of its own."""
    return [sys.executable, "-m", "gpubench_tools", *argv]


def _tools_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` with this package first on PYTHONPATH, so that the children run the same
    package, installed or not."""
    package_parent = str(Path(gpubench_tools.__file__).resolve().parent.parent)
    return dict(environ, PYTHONPATH=os.pathsep.join(
        filter(None, [package_parent, environ.get("PYTHONPATH")])))


def _print(text: str) -> None:
    """What the gate says on stdout. A stdout that cannot be written is one line on stderr, and
    the verdict's exit status stands."""
    try:
        write_stdout(text)
    except OSError as error:
        say(SCRIPT, f"standard output could not be written: {error.strerror or error}")

