#!/usr/bin/env python3
"""The verdicts of `gpubench-tools compare` on the committed recordings, of two versions of the
toolkit side by side: for each pair of results/h200/verdicts/ and the gate recordings, the exit
status each version's `compare` gives, and whether the two versions' sets of (benchmark,
verdict) pairs are the same (with the counts of each verdict).

    git worktree add --detach /tmp/before REV && tools/verdict_table.py --before /tmp/before/scripts

The verdicts come from each version's model (models.comparison: compare, and confirmed where the
gate confirmed), the exit status from its command; every pair reads this clone's results.
"""
import argparse
import collections
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import (  # noqa: E402
    OneLineArgumentParser,
    script_error,
    script_output,
)

SCRIPT = "verdict_table.py"
H200 = ROOT / "results" / "h200"
VERDICTS = H200 / "verdicts"
H100_SUITE = ROOT / "results" / "h100" / "gzip_gate" / "baseline.json.gz"
RULES = dict(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.01)


class StepFailed(Exception):
    """A command the table runs failed: its message names the command and its last line."""


def run_step(name: str, command: list, **options) -> str:
    """The stdout of `command` run to its end; StepFailed where it fails, naming the step
    `name`, the command's exit status and the last line it wrote on stderr."""
    done = subprocess.run(command, capture_output=True, text=True, **options)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise StepFailed(f"{name} failed (exit {done.returncode})"
                         + (f": {said[-1]}" if said else ""))
    return done.stdout


def planted_files(tmp: Path) -> dict[str, Path]:
    """The files the pairs need that are made, not committed: the planted baselines, and aa_2
    with another driver."""
    made = {"three_faster": tmp / "three_faster.json", "saxpy_2p24": tmp / "saxpy_2p24.json",
            "other_driver": tmp / "other_driver.json"}
    for key, script in (("three_faster", "three_faster.py"),
                        ("saxpy_2p24", "saxpy_2p24_faster.py")):
        run_step(script, [sys.executable, ROOT / "tools/planted_baselines" / script, made[key]])
    doc = json.load(gzip.open(VERDICTS / "aa_2.json.gz"))
    doc["context"]["driver_version"] = "999.0"
    made["other_driver"].write_text(json.dumps(doc))
    return made


def pairs(made: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(label, compare's arguments) of each pair."""
    aa1, aa2 = str(VERDICTS / "aa_1.json.gz"), str(VERDICTS / "aa_2.json.gz")
    ci = str(H200 / "ci_baseline.json")
    gate_aa = VERDICTS / "gate_aa"
    found = [
        ("aa_1 vs aa_2", [aa1, aa2]),
        ("aa_2 vs aa_1", [aa2, aa1]),
        ("aa_1 vs speed/suite_after", [aa1, str(H200 / "speed/suite_after.json")]),
        ("aa_1 vs aa_2 of driver 999.0", [aa1, str(made["other_driver"])]),
        ("splits card_a vs card_b", [str(VERDICTS / "splits/card_a.json.gz"),
                                     str(VERDICTS / "splits/card_b.json.gz")]),
        ("gate: three_faster vs gate", [str(made["three_faster"]),
                                        str(VERDICTS / "gate/gate.json.gz")]),
        ("gate_aa/filtered_confirm", [ci, str(gate_aa / "filtered_confirm/gate.json.gz")]),
        ("gate_aa/suite_confirm", [ci, str(gate_aa / "suite_confirm/gate.json.gz")]),
        ("gate_aa/planted", [str(made["saxpy_2p24"]), str(gate_aa / "planted/gate.json.gz")]),
        ("gate_aa/planted --confirm", [str(made["saxpy_2p24"]),
                                       str(gate_aa / "planted/gate.json.gz"),
                                       f"--confirm={gate_aa / 'planted/gate.confirm.json.gz'}"]),
        ("states dtod old_a vs new_a", [str(VERDICTS / "states/dtod_warm_trial_old_a.json"),
                                        str(VERDICTS / "states/dtod_warm_trial_new_a.json")]),
        ("states dtod old_a vs old_b", [str(VERDICTS / "states/dtod_warm_trial_old_a.json"),
                                        str(VERDICTS / "states/dtod_warm_trial_old_b.json")]),
    ]
    if H100_SUITE.exists():
        found.append(("h200 gpubench vs h100 gpubench", [str(H200 / "gpubench.json"),
                                                          str(H100_SUITE)]))
    return found


VERDICT_CODE = """
import json, sys
from pathlib import Path
from gpubench_tools.models.comparison import Rules, compare, confirmed
from gpubench_tools.reading.result_file import load
args = json.loads(sys.argv[1])
files = [a for a in args if not a.startswith("--")]
confirm = [a.split("=", 1)[1] for a in args if a.startswith("--confirm=")]
c = compare(load(Path(files[0])), load(Path(files[1])), Rules(**json.loads(sys.argv[2])), True)
if confirm:
    c = confirmed(c, load(Path(confirm[0])))
print(json.dumps(sorted([r.name, r.verdict] for r in c.rows)))
"""


def judge(scripts: Path, args: list[str]) -> tuple[int, list[list[str]]]:
    """compare's exit status and the (benchmark, verdict) pairs, of the toolkit in `scripts`."""
    status = subprocess.run([scripts / "gpubench-tools", "compare", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    env = {**os.environ, "PYTHONPATH": str(scripts)}
    out = run_step("the verdicts of a toolkit",
                   [sys.executable, "-c", VERDICT_CODE, json.dumps(args), json.dumps(RULES)],
                   env=env)
    return status, json.loads(out)


def summary(verdicts: list[list[str]]) -> str:
    counts = collections.Counter(v for _, v in verdicts)
    digest = hashlib.sha256(json.dumps(verdicts).encode()).hexdigest()[:12]
    return " ".join(f"{v} {counts[v]}" for v in sorted(counts)) + f" sha256:{digest}"


def scripts_folder(text: str) -> Path:
    """A toolkit's scripts/ folder: one holding gpubench-tools and its package."""
    folder = Path(text)
    if not ((folder / "gpubench-tools").is_file() and (folder / "gpubench_tools").is_dir()):
        raise argparse.ArgumentTypeError(f"{text}: not a scripts/ folder (no gpubench-tools and "
                                         "gpubench_tools/ in it)")
    return folder


def main(argv: list[str]) -> int:
    parser = OneLineArgumentParser(prog=SCRIPT, description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=scripts_folder, required=True, metavar="SCRIPTS",
                        help="the scripts/ folder of the version to compare against")
    parser.add_argument("--after", type=scripts_folder, default=ROOT / "scripts",
                        metavar="SCRIPTS")
    args = parser.parse_args(argv)
    try:
        return table(args.before, args.after)
    except StepFailed as error:
        return script_error(SCRIPT, str(error))


def table(before_scripts: Path, after_scripts: Path) -> int:
    """Prints the table; its exit status (1 where a pair differs)."""
    differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        made = planted_files(Path(tmp))
        lines = []
        for label, compare_args in pairs(made):
            before = judge(before_scripts, compare_args)
            after = judge(after_scripts, compare_args)
            same = before == after
            differing += not same
            lines.append(f"{label}: exit {before[0]} -> {after[0]}; verdicts "
                         f"{'the same' if before[1] == after[1] else 'DIFFER'}: "
                         f"{summary(after[1])}"
                         + ("" if before[1] == after[1] else f" (before: {summary(before[1])})"))
    head = f"{len(lines)} pairs, {differing} differing in exit status or verdicts"
    return script_output(SCRIPT, "\n".join([head, *lines]) + "\n", 1 if differing else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
