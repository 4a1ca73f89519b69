"""A stand-in for build/gpubench in the tests of subcommands that run it (gpubench-tools gate, the
workflow's gate step): each call writes the next of the documents it was given to its
--benchmark_out, those of `first` and then those of `confirm` (over again from the start of
`confirm` when they run out). Every call's arguments are logged, one JSON list a line, and its
process id, one a line.

`faults` makes a call (numbered from 1) misbehave as a broken or stuck gpubench does:
{"sleep": S} waits S seconds before it runs (a hang, when S is long), {"exit": N} exits with
status N and writes nothing, {"signal": "KILL"} is killed by that signal.

`--version` alone is answered as gpubench answers it, with the version and build type of the
first of `first` (Release where it states none, CMake's default here); it runs nothing, so it is
no call. With `states_build_type` False it is refused as an unknown flag, as by a gpubench
without it."""

import json
import sys
from pathlib import Path
from typing import Any

_PROGRAM = """#!{python}
import json, os, signal, sys, time
from pathlib import Path
here = Path(__file__).resolve().parent
args = sys.argv[1:]
runs = json.loads((here / "runs.json").read_text())
if args == ["--version"]:
    if not runs["states_build_type"]:
        print("gpubench: unknown flag '--version' (see --help)", file=sys.stderr)
        sys.exit(2)
    context = runs["first"][0]["context"]
    print(f"gpubench {{context.get('gpubench_version', '0.1.0')}} "
          f"({{context.get('gpubench_build_type', 'Release')}} build)")
    sys.exit(0)
out = next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out="))
log = here / "calls.txt"
earlier = len(log.read_text().splitlines()) if log.exists() else 0
with (here / "pids.txt").open("a") as f:
    f.write(f"{{os.getpid()}}\\n")
with log.open("a") as f:
    f.write(json.dumps(args) + "\\n")
fault = runs["faults"].get(str(earlier + 1), {{}})
time.sleep(fault.get("sleep", 0))
if "exit" in fault:
    sys.exit(fault["exit"])
if "signal" in fault:
    os.kill(os.getpid(), signal.Signals["SIG" + fault["signal"]])
stage = "first" if earlier < len(runs["first"]) else "confirm"
doc = runs[stage][(earlier - (0 if stage == "first" else len(runs["first"])))
                  % len(runs[stage])]
Path(out).write_text(json.dumps(doc))
print(f"fake gpubench: a {{stage}} run of {{len(doc['benchmarks'])}} benchmark entries")
"""


def install(folder: Path, first: list[dict[str, Any]],
            confirm: list[dict[str, Any]] | None = None,
            faults: dict[int, dict[str, Any]] | None = None,
            states_build_type: bool = True) -> Path:
    """Writes folder/gpubench; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs.json").write_text(json.dumps(
        {"first": first, "confirm": confirm or first,
         "faults": {str(call): fault for call, fault in (faults or {}).items()},
         "states_build_type": states_build_type}))
    program = folder / "gpubench"
    program.write_text(_PROGRAM.format(python=sys.executable))
    program.chmod(0o755)
    return program


def calls(folder: Path) -> list[list[str]]:
    """The arguments of each call so far."""
    log = folder / "calls.txt"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def running(folder: Path) -> list[int]:
    """The process ids of the calls still running (a zombie, finished but not yet reaped by
    its parent, counts as finished)."""
    log = folder / "pids.txt"
    pids = [int(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [pid for pid in pids if _state(pid) not in (None, "Z")]


def _state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]
