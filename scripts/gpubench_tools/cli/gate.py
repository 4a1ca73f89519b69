"""`gpubench-tools gate GPUBENCH BASELINE.json OUT.json [gpubench-tools compare flags...]`: the
arguments, taken as they come (every one after OUT.json goes to gpubench-tools compare);
runs/gate.py gates, and its docstring says how."""

from gpubench_tools.cli.record import stop_signal
from gpubench_tools.runs import gate as gating
from gpubench_tools.runs.messages import say
from gpubench_tools.writing.outputs import write_stdout


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        write_stdout(f"usage: {gating.USAGE}\n\n{gating.__doc__}")
        return 0
    if len(argv) < 3:
        say(gating.SCRIPT, f"usage: {gating.USAGE}")
        return gating.BAD_USAGE
    return gating.gate(argv[0], argv[1], argv[2], argv[3:], stop_signal=stop_signal)
