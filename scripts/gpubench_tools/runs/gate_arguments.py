"""What the gate checks of its arguments before anything runs: the `gpubench-tools compare`
flags it does not pass on, whether the flags ask for a report or markdown, where the confirming
runs go, and whether both outputs can be written and read back."""

import os
from collections.abc import Sequence

from gpubench_tools.runs.messages import shown
from gpubench_tools.runs.outputs_check import output_problem

# gpubench-tools compare flags the gate sets itself are not passed on: a later --confirm,
# --changed-filter or --new-runs replaces the gate's own (its verdict then rests on that file, no
# change is confirmed, or too few runs go unnoticed), and --help makes every comparison print
# the help and exit 0 with no verdict.
OWN_FLAGS = ("--confirm", "--changed-filter", "--new-runs", "--help")
_COMPRESSED = (".json.gz", ".json.xz", ".json.bz2")


def _flag_names(flags: Sequence[str]) -> list[tuple[str, str]]:
    """Each flag before `--` with its name (the part before `=`)."""
    named = []
    for flag in flags:
        if flag == "--":
            break
        named.append((flag, flag.partition("=")[0]))
    return named


def own_flag_problem(flags: Sequence[str]) -> str | None:
    """The line for the first flag the gate sets itself, or None. argparse reads any
    unambiguous prefix of a long option as that option, so a prefix counts."""
    for flag, name in _flag_names(flags):
        for own in OWN_FLAGS:
            if ((own == "--help" and name.startswith("-h"))
                    or (len(name) > 2 and name.startswith("--") and own.startswith(name))):
                return (f"{shown(flag)}: gpubench-tools compare's {own}, which the gate does "
                        "not pass on (it sets --confirm, --changed-filter and --new-runs itself; "
                        "--help would compare nothing)")
    return None


def asks_for_report(flags: Sequence[str]) -> bool:
    """Whether the flags hold --report or a prefix of it (one that also begins another option
    is ambiguous, and gpubench-tools compare refuses it before any run)."""
    return any(name.startswith("--r") and "--report".startswith(name)
               for _, name in _flag_names(flags))


def asks_for_markdown(flags: Sequence[str]) -> bool:
    """Whether the flags hold --markdown or a prefix of it that begins no other option."""
    return any(name.startswith("--ma") and "--markdown".startswith(name)
               for _, name in _flag_names(flags))


def confirm_path(out: str) -> str:
    """OUT.confirm.json beside OUT.json (OUT.confirm.json.gz beside OUT.json.gz, .xz, .bz2)."""
    for ending in _COMPRESSED:
        if out.endswith(ending):
            return out[:-len(ending)] + ".confirm" + ending
    return out.removesuffix(".json") + ".confirm.json"


def gate_output_problem(out: str, confirm: str, inputs: Sequence[str]) -> str | None:
    """Why the gate cannot write `out` and `confirm` and read them back, or None. The gate
    reads what it writes back to compare it: a FIFO or a device gives nothing back. By a link,
    OUT.json can name the file OUT.confirm.json names: the confirming runs would then take the
    place of the candidate's."""
    for path in (out, confirm):
        if problem := output_problem(path, inputs):
            return problem
        if os.path.exists(path) and not os.path.isfile(path):
            return (f"{shown(path)}: not a regular file; the gate reads its output back to "
                    "compare it")
    if os.path.realpath(out) == os.path.realpath(confirm):
        return (f"{shown(out)}: names the file its confirming runs go to ({shown(confirm)}); "
                "they would take the place of its runs")
    return None
