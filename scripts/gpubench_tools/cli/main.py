"""gpubench-tools: the one command of gpubench's toolkit, a subcommand for each job.

The subcommands' modules load only when named, so `--help` and a bad subcommand answer before
numpy, scipy or matplotlib load; each module's main(argv) parses its own options.
"""

import importlib
import sys

from gpubench_tools.cli import process

PROG = "gpubench-tools"
# name: (module under gpubench_tools.cli, what it does in one line)
SUBCOMMANDS = {
    "compare": ("compare", "compare two results: a regression check or a comparison of GPUs"),
    "report": ("report", "a report of two or more results: markdown and figures, or one HTML page"),
    "plot": ("plot", "one figure per benchmark family of one or more results"),
    "gallery": ("gallery", "one HTML page per machine folder of results/"),
    "export": ("export", "figures for continuous-benchmarking services (github, bencher)"),
    "merge": ("merge", "merge separate runs of one build on one GPU into one result"),
    "record": ("record", "run gpubench N times as separate processes and merge the runs"),
    "gate": ("gate", "the CI gate: record a candidate and judge it against a baseline"),
    "stability": ("stability", "run-to-run spread of each benchmark of a result"),
    "ratios": ("ratios", "the paired launch paths' ratios with their intervals"),
    "fleet": ("fleet", "which GPUs of a fleet need attention"),
    "limits": ("limits", "write a fleet's limits file from results of one GPU model"),
    "flags": ("flags", "the gpubench flags that measure as a result was measured"),
}


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    lines = [f"usage: {PROG} SUBCOMMAND [options]   ({PROG} SUBCOMMAND --help for its own)",
             "", "subcommands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in SUBCOMMANDS.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        process.install(PROG)
        try:
            sys.stdout.write(usage())
            sys.stdout.flush()
        except OSError as error:
            print(f"{PROG}: standard output could not be written: {error.strerror}",
                  file=sys.stderr)
            return 2
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        process.install(PROG)
        choices = ", ".join(SUBCOMMANDS)
        print(f"{PROG}: no subcommand {name!r} (one of: {choices})", file=sys.stderr)
        return 2
    process.install(f"{PROG} {name}")
    module = importlib.import_module(f"gpubench_tools.cli.{SUBCOMMANDS[name][0]}")
    return module.main(rest)


def entry() -> None:
    """The installed command's entry point (pyproject.toml)."""
    sys.exit(main())
