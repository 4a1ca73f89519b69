#!/usr/bin/env python3
"""The files under results/ that a subcommand prints from other committed files, and the commands.

  derived_results.py            check: exit 1 naming each file the command no longer prints
  derived_results.py --write    write each file anew from its command

Every command runs from the project's root, as the results' READMEs give it, so the input paths a
subcommand prints are the committed ones. A change to the toolkit that moves a verdict, a figure or
a line of its output shows in test_derived_results.py, and this writes the files anew; the READMEs'
sentences about them are then read again by hand.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from forked_command import run_tool

SCRIPTS = Path(__file__).resolve().parent.parent
TOOLS = SCRIPTS / "gpubench-tools"
ROOT = SCRIPTS.parent
H200 = "results/h200"
VERDICTS = f"{H200}/verdicts"


@dataclass(frozen=True)
class Derived:
    """`output` (from the root) is what `script` prints with `args`, or with `writes` the file
    it writes to "{out}" in them; "{tmp}" in an argument is a scratch folder of the run's own."""
    output: str
    script: str
    args: tuple[str, ...]
    writes: bool = False


def stability(name: str, result: str = "") -> Derived:
    return Derived(f"{H200}/stability/{name}.txt", "stability",
                   (f"{H200}/stability/{result or name + '.json'}",))


DERIVED = (
    Derived(f"{VERDICTS}/aa.txt", "compare",
            (f"{VERDICTS}/aa_1.json.gz", f"{VERDICTS}/aa_2.json.gz")),
    Derived(f"{VERDICTS}/planted.txt", "tests/plant_slowdowns.py",
            (f"{VERDICTS}/aa_1.json.gz", f"{VERDICTS}/aa_2.json.gz", "{tmp}/planted.json",
             "--alpha=0.05")),
    Derived(f"{VERDICTS}/planted_reversed.txt", "tests/plant_slowdowns.py",
            (f"{VERDICTS}/aa_2.json.gz", f"{VERDICTS}/aa_1.json.gz", "{tmp}/planted.json",
             "--alpha=0.05")),
    Derived(f"{VERDICTS}/splits/cards.txt", "compare",
            (f"{VERDICTS}/splits/card_a.json.gz", f"{VERDICTS}/splits/card_b.json.gz")),
    Derived(f"{H200}/comparison/a_a.txt", "compare",
            ("--report", f"{H200}/comparison/ci_new_1.json", f"{H200}/comparison/ci_new_2.json")),
    Derived(f"{H200}/comparison/old_vs_new.txt", "compare",
            ("--report", f"{H200}/comparison/ci_old.json", f"{H200}/comparison/ci_new_1.json")),
    Derived(f"{H200}/speed/compare_before_after.txt", "compare",
            ("--report", f"{H200}/speed/subset_before.json", f"{H200}/speed/subset_after.json")),
    Derived(f"{H200}/speed/compare_before_after_resolution_only.txt", "compare",
            ("--report", "--alpha=0.999", f"{H200}/speed/subset_before.json",
             f"{H200}/speed/subset_after.json")),
    Derived(f"{H200}/harness/compare_before_after.txt", "compare",
            ("--report", f"{H200}/harness/subset_before.json",
             f"{H200}/harness/subset_after.json")),
    Derived(f"{H200}/harness/htod_recheck.txt", "compare",
            ("--report", f"{H200}/harness/htod_recheck_before.json",
             f"{H200}/harness/htod_recheck_after.json")),
    Derived(f"{H200}/facts/compare_before_after.txt", "compare",
            (f"{H200}/facts/suite_before.json.gz", f"{H200}/facts/suite_after.json.gz")),
    Derived("results/h200x2/latency/latency_vs_peers.txt", "../tools/peers/compare_latency.py",
            ("results/h200x2/latency/chase_peer.json", "--nvbandwidth",
             "results/h200x2/latency/peers/nvbandwidth_d2d_latency.json")),
    Derived(f"{H200}/h200_vs_h200x2_gpu0.html", "report",
            ("--format=html", f"{H200}/gpubench.json", "results/h200x2/all_devices.json",
             "--device", "0", "--report", "--filter", "^copy/", "-o", "{out}"), writes=True),
    *(stability(name) for name in (
        "launch_10rep", "saxpy_10rep", "pinned_launch_submit_10rep",
        "pinned_copy_10rep", "launch_submit_interleaved_10rep", "copy_64m_256m_interleaved_10rep",
        "copy_1g_interleaved_10rep", "launch_submit_halfsecond_10rep",
        "pageable_sync_consecutive_10rep")),
    # In a folder of its own: gpubench-tools limits reads every *.json of stability/, and this run
    # is of code older than the limits' sources.
    stability("suite_5rep", "suite_5rep/gpubench.json"),
)


def run(script: str, args: list[str], cwd: Path | str) -> subprocess.CompletedProcess[str]:
    """`script` (under scripts/) run with `args` in `cwd`; RuntimeError where it says anything on
    stderr. Its exit status is the caller's to judge (gpubench-tools compare exits 1 on a
    regression)."""
    # A subcommand of the toolkit, or a script of the tests' or tools' own, by its path.
    if script.endswith(".py"):
        proc = subprocess.run([sys.executable, str(SCRIPTS / script), *args], cwd=cwd,
                              capture_output=True, text=True, timeout=300)
    else:
        proc = run_tool([script, *args], cwd=cwd, timeout=300)
    if proc.stderr:
        raise RuntimeError(f"{script} {' '.join(args)}: exit {proc.returncode}: "
                           f"{proc.stderr.strip()}")
    return proc


def printed(derived: Derived) -> str:
    """What the command prints to stdout (or writes) today."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / Path(derived.output).name
        args = [a.replace("{tmp}", tmp).replace("{out}", str(out)) for a in derived.args]
        stdout = run(derived.script, args, ROOT).stdout
        return out.read_text(encoding="utf-8") if derived.writes else stdout


FLEET = "results/fleet/fleet.txt"
HEATMAP = "results/fleet/heatmap.png"


def fleet_printed(heatmap: Path | None = None) -> str:
    """fleet.txt as results/fleet/README.md's two commands print it from the root, run in a
    scratch folder (the first writes fleet/ where it runs): the limits files' folder and the
    heatmap are named as from the root. With `heatmap`, the drawing is copied there."""
    with tempfile.TemporaryDirectory() as tmp:
        run("tests/fleet_builder.py", ["fleet/"], tmp).check_returncode()
        fleet = run("fleet", ["fleet/", "--expect", "18", "-o", "heatmap.png", "--markdown"],
                    tmp)
        fleet.check_returncode()
        text = fleet.stdout
        if heatmap is not None:
            shutil.copyfile(Path(tmp) / "heatmap.png", heatmap)
        limits = os.path.relpath(ROOT / "results" / "limits", tmp)
    return (re.sub(rf"(\| |, ){re.escape(limits)}/", r"\1results/limits/", text)
            .replace("heatmap: heatmap.png", f"heatmap: {HEATMAP}"))


GALLERY = "results/index.html"


def gallery_printed() -> dict[str, str]:
    """results/index.html and each machine's MACHINE/index.html, as `scripts/gpubench-tools gallery`
    writes them from the root, by path: written in a scratch folder, their links, relative to where
    each is written, are named as from its place under results/."""
    with tempfile.TemporaryDirectory() as tmp:
        run("gallery", ["results", "-o", f"{tmp}/index.html"], ROOT).check_returncode()
        pages = {}
        for page in [Path(tmp) / "index.html", *sorted(Path(tmp).glob("*/index.html"))]:
            place = page.relative_to(tmp)
            results = os.path.relpath(ROOT / "results" / place.parent, page.parent)
            pages[f"results/{place.as_posix()}"] = page.read_text(encoding="utf-8").replace(
                f'href="{results}/', 'href="')
    return pages


def main(argv: list[str]) -> int:
    if argv not in ([], ["--write"]):
        print("derived_results.py: usage: derived_results.py [--write]", file=sys.stderr)
        return 2
    stale = []
    for derived in DERIVED:
        text, path = printed(derived), ROOT / derived.output
        if argv:
            path.write_text(text, encoding="utf-8")
        elif path.read_text(encoding="utf-8") != text:
            stale.append(derived.output)
    if argv:
        (ROOT / FLEET).write_text(fleet_printed(ROOT / HEATMAP), encoding="utf-8")
        for page, text in gallery_printed().items():
            (ROOT / page).write_text(text, encoding="utf-8")
    else:
        if (ROOT / FLEET).read_text(encoding="utf-8") != fleet_printed():
            stale.append(FLEET)
        stale += [page for page, text in gallery_printed().items()
                  if not (ROOT / page).is_file()
                  or (ROOT / page).read_text(encoding="utf-8") != text]
    for output in stale:
        print(f"derived_results.py: {output} is not what its command prints", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
