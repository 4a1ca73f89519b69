"""`gpubench-tools record GPUBENCH OUT.json [gpubench flags...]`: the arguments, taken as they
come (every one after OUT.json goes to gpubench); runs/record.py records, and its docstring says
how."""

import signal
from pathlib import Path

from gpubench_tools.cli import merge as merge_command
from gpubench_tools.cli import process
from gpubench_tools.runs import record as recording
from gpubench_tools.runs.messages import say
from gpubench_tools.writing.outputs import write_stdout


def stop_signal(error: BaseException) -> int | None:
    """The stop signal `error` stands for (cli/process.py raises Stopped for each), else None."""
    if isinstance(error, process.Stopped):
        return signal.Signals[str(error)]
    return None


def _merge(files: list[Path], out: str) -> int:
    # --output= and --: an OUT.json whose name starts with a dash is no option.
    return merge_command.main([f"--output={out}", "--", *map(str, files)])


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        write_stdout(f"usage: {recording.USAGE}\n\n{recording.__doc__}")
        return 0
    if len(argv) < 2:
        say(recording.SCRIPT, f"usage: {recording.USAGE}")
        return recording.BAD_USAGE
    return recording.record(argv[0], argv[1], argv[2:], merge=_merge, stop_signal=stop_signal)
