"""What every subcommand shares on its command line: options and messages.

One module for them, so that every subcommand takes options and reports problems alike. An
argument parser whose usage errors are one line, and option types that check their range.
script_error reports as one line, with exit status 2, reading/errors.py's errors and the OSError
of a failed write (writing/outputs.py: same_file and repeated_file tell which of the paths a
command is given name one file, however each is spelled, and refuse_output_over_input keeps an
output from being written over an input; the stdout writer turns a failed write into an
OSError; the output file writers write a file whole or not at all, the files of one output all
or none).

cli/process.py's install makes stdout and stderr write any text (what the encoding cannot hold
as backslash escapes) and turns a closed stdout into one whose writes fail with EBADF, so every
subcommand can say so: the command installs it before it writes anything.
"""


import argparse
import importlib.util
import math
import os
import sys
from collections.abc import Callable
from typing import IO, NoReturn

from gpubench_tools.cli.process import environment_problem
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.writing.outputs import StdoutError, write_stdout


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, `gpubench-tools <subcommand>: <problem>`, with exit
    status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{one_line(self.prog)}: {one_line(message)}\n")

    def print_help(self, file: IO[str] | None = None) -> None:
        """--help, written as every output to stdout is (write_stdout): one that cannot be
        written raises StdoutError, which the command reports in one line with exit status 2,
        where argparse would say nothing and exit 0."""
        if file is not None:
            super().print_help(file)
        else:
            write_stdout(self.format_help())


def positive_finite(text: str) -> float:
    """An option value that is a finite number > 0 (nan, inf and -1 are refused)."""
    value = _float_option(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text!r}")
    return value


def open_unit_interval(text: str) -> float:
    """An option value strictly between 0 and 1, such as a significance level."""
    value = _float_option(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), not {text!r}")
    return value


def accepted_chance(text: str) -> float:
    """An option value from 0 up to but not including 1, such as a chance one may accept."""
    value = _float_option(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be from 0 up to 1 (exclusive), not {text!r}")
    return value


def whole_number(lowest: int, highest: int) -> Callable[[str], int]:
    """An option type: a whole number from `lowest` to `highest`, in decimal digits alone."""
    def parse(text: str) -> int:
        if not (text.isascii() and text.isdigit() and len(text) <= len(str(highest))
                and lowest <= int(text) <= highest):
            raise argparse.ArgumentTypeError(
                f"must be a whole number from {lowest} to {highest:,}, not {text!r}")
        return int(text)
    return parse


def _float_option(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def script_error(script: str, error: GpubenchJsonError | OSError | str) -> int:
    """Prints `<script>: <problem>` on stderr as one line; returns exit status 2 (unusable
    input, or output that could not be written). An OSError names its file, stdout for a
    failed write there (StdoutError); one naming neither is said as it is, and where the working
    folder is gone, as that."""
    if isinstance(error, OSError) and not isinstance(error, GpubenchJsonError):
        problem = error.strerror or str(error)
        if error.filename is not None:
            message = f"{error.filename}: {problem}"
        elif isinstance(error, StdoutError):
            message = f"stdout: {problem}"
        elif _working_folder_gone():
            message = f"the working folder no longer exists ({problem})"
        else:
            message = problem
    else:
        message = str(error)
    print(f"{script}: {one_line(message)}", file=sys.stderr)
    return 2


def script_output(script: str, text: str, status: int = 0) -> int:
    """Writes `text` to stdout as every output there is written (write_stdout) and returns
    `status`; where stdout cannot take it, script_error's one line and exit status 2."""
    try:
        write_stdout(text)
    except StdoutError as error:
        return script_error(script, error)
    return status


def require_packages(script: str, *names: str) -> None:
    """Ends the process with script_error's one line and exit status 2 where a package of `names`
    (numpy, scipy) cannot be found: a script calls it before it imports what needs them, so that
    a machine without them reads what to install, not a traceback."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            problem = environment_problem(ModuleNotFoundError(name=name))
            sys.exit(script_error(script, problem or f"{name} is not installed"))


def _working_folder_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        pass
    return False

