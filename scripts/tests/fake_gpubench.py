"""A stand-in for build/gpubench in the tests of scripts that run it (ci_gate.sh, the
workflow's gate step): each call writes the next of the documents it was given to its
--benchmark_out, those of `first` and then those of `confirm` (over again from the start of
`confirm` when they run out). Every call's arguments are logged, one JSON list a line."""

import json
import sys
from pathlib import Path
from typing import Any

_PROGRAM = """#!{python}
import json, sys
from pathlib import Path
here = Path(__file__).resolve().parent
args = sys.argv[1:]
out = next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out="))
log = here / "calls.txt"
earlier = len(log.read_text().splitlines()) if log.exists() else 0
with log.open("a") as f:
    f.write(json.dumps(args) + "\\n")
runs = json.loads((here / "runs.json").read_text())
stage = "first" if earlier < len(runs["first"]) else "confirm"
doc = runs[stage][(earlier - (0 if stage == "first" else len(runs["first"])))
                  % len(runs[stage])]
Path(out).write_text(json.dumps(doc))
print(f"fake gpubench: a {{stage}} run of {{len(doc['benchmarks'])}} benchmark entries")
"""


def install(folder: Path, first: list[dict[str, Any]],
            confirm: list[dict[str, Any]] | None = None) -> Path:
    """Writes folder/gpubench; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs.json").write_text(json.dumps({"first": first, "confirm": confirm or first}))
    program = folder / "gpubench"
    program.write_text(_PROGRAM.format(python=sys.executable))
    program.chmod(0o755)
    return program


def calls(folder: Path) -> list[list[str]]:
    """The arguments of each call so far."""
    log = folder / "calls.txt"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
