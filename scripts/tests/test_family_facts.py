"""The toolkit knows no family by name: it reads a family's facts (docs/family-facts.md).

A family renamed throughout a real result file (names and context facts) gives the same compare,
plot, report, export and fleet output under the new name; a family no subcommand has seen, with a
counter of its own that is better lower, is compared, plotted, reported and exported by its
facts."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import H200
from forked_command import run_tool
from family_facts import FACTS, renamed, with_facts
from gbench_builder import document, load_json, recorded, run_entries

from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers.figures import family_plot
from gpubench_tools.renderers.figures import plot_files as plot

PAIR = (H200 / "verdicts" / "aa_1.json.gz", H200 / "verdicts" / "aa_2.json.gz")
OLD, NEW = "copy", "xfer"
KEPT = "launch"  # a family left as it is
# A sweep of each kind of the renamed family (a direction each way, GPU- and host-timed, both
# directions at once) and of the family left as it is (a path and the paired ratios).
KEPT_SWEEPS = (f"{OLD}/HtoD/pinned/", f"{OLD}/DtoH/pageable/", f"{OLD}/bidir/pinned/",
               f"{KEPT}/runtime/", f"{KEPT}/paired/")
LIMITS = H200.parent / "limits" / "h200.json"


def run_in(directory: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`script` run from `directory`, its files named relative to it: the output names no
    folder of the test."""
    return run_tool([script, *args], cwd=directory, timeout=300,
                    env=dict(os.environ, PYTHONIOENCODING="utf-8"))


def write_pair(directory: Path, family: str) -> Path:
    directory.mkdir()
    for index, path in enumerate(PAIR):
        doc = with_facts(load_json(path))
        # Sweeps of the renamed family and of one beside it: what the rest of the suite adds is
        # more of the same work for every subcommand.
        doc["benchmarks"] = [b for b in doc["benchmarks"]
                             if b["name"].startswith(KEPT_SWEEPS)]
        if family != OLD:
            doc = renamed(doc, OLD, family)
        (directory / f"run{index}.json").write_text(json.dumps(doc))
        fleet = directory / "fleet"
        fleet.mkdir(exist_ok=True)
        for gpu in range(4):
            context = dict(doc["context"], gpu_uuid=f"GPU-{index}{gpu}", host_name=f"n{gpu}")
            (fleet / f"gpu{index}{gpu}.json").write_text(json.dumps(dict(doc, context=context)))
    # The H200's limits, their benchmarks renamed as the results' are: a limits file names
    # benchmarks, and a family renamed throughout is renamed there too.
    limits = json.loads(LIMITS.read_text())
    for table in ("floors", "process_losses"):
        limits[table] = {name.replace(f"{OLD}/", f"{family}/", 1) if name.startswith(f"{OLD}/")
                         else name: value for name, value in limits[table].items()}
    (directory / "limits.json").write_text(json.dumps(limits))
    return directory


# Each subcommand's arguments on the pair.
SUBCOMMANDS = {
    "compare": ["run0.json", "run1.json"],
    "export": ["run1.json", "--format", "bencher"],
    "plot": ["run0.json", "run1.json", "-o", "figures"],
    "report": ["run0.json", "run1.json", "-o", "report"],
    "fleet": ["fleet", "--min-gpus", "4", "--limits", "limits.json"],
}


def outputs(directory: Path, script: str) -> dict[str, str]:
    """What `script` writes on the pair: its stdout, and report.md or the figures' names."""
    proc = run_in(directory, script, *SUBCOMMANDS[script])
    assert proc.returncode in (0, 1) and proc.stderr == "", (script, proc.stderr)
    found = {script: proc.stdout}
    if script == "report":
        found["report.md"] = (directory / "report" / "report.md").read_text()
    if script == "plot":
        found["files"] = " ".join(sorted(p.name for p in (directory / "figures").iterdir()))
    return found


@pytest.mark.skipif(not PAIR[0].exists(), reason="the committed A/A pair is not in this tree")
@pytest.mark.parametrize("script", SUBCOMMANDS)
def test_a_family_renamed_throughout_gives_the_same_output(tmp_path: Path, script: str) -> None:
    before = outputs(write_pair(tmp_path / "before", OLD), script)
    after = outputs(write_pair(tmp_path / "after", NEW), script)
    if script == "compare":
        assert f"{OLD}/HtoD/pinned/async/4096" in before["compare"]
    if script == "plot":
        assert before["files"] == "copy.png fit.txt launch.png"
        after["files"] = " ".join(sorted(after["files"].replace(NEW, OLD).split()))
    for what in before:
        assert after[what].replace(NEW, OLD) == before[what], what
    if script != "plot":
        return
    # The figures draw the same panels and curves under the new name.
    old = family_plot.family_panels(plot.make_sources([load(tmp_path / "before" / "run0.json")]),
                                    OLD)
    new = family_plot.family_panels(plot.make_sources([load(tmp_path / "after" / "run0.json")]),
                                    NEW)
    assert [(p.title, p.metric, list(p.curves)) for p in old] == \
        [(p.title, p.metric, list(p.curves)) for p in new]


SUITE = H200 / "speed" / "suite_after.json"


@pytest.mark.skipif(not SUITE.exists(), reason="the committed default suite is not in this tree")
def test_renamed_families_keep_their_second_figure_and_l2_mark(tmp_path: Path) -> None:
    """The H200's default suite with the facts gpubench declares, saxpy and copy renamed
    throughout: the same panels, the % of ceiling beside saxpy's GB/s and the L2 on copy sizes,
    under the new names."""
    doc = with_facts(json.loads(SUITE.read_text()))
    names = {"saxpy": "axpy", OLD: NEW}
    moved = doc
    for old, new in names.items():
        moved = renamed(moved, old, new)
    (tmp_path / "old.json").write_text(json.dumps(doc))
    (tmp_path / "new.json").write_text(json.dumps(moved))
    panels = {}
    for stem, family_names in (("old", list(names)), ("new", list(names.values()))):
        sources = plot.make_sources([load(tmp_path / f"{stem}.json")])
        panels[stem] = [(p.title.replace(family, "<family>"), p.metric, list(p.curves),
                         list(p.l2_bytes.values()))
                        for family in family_names
                        for p in family_plot.family_panels(sources, family)]
    assert panels["old"] == panels["new"]
    assert [(title, metric.unit) for title, metric, _, _ in panels["new"][:2]] == [
        ("<family>", "GB/s"), ("<family>: % of ceiling", "% of ceiling")]
    assert [l2 for title, _, _, l2 in panels["new"] if title == "DtoD"] == [[60 << 20]]
    proc = run_in(tmp_path, "plot", "new.json", "-o", "figures")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        "axpy.png", "fit.txt", "launch.png", f"{NEW}.png"]


PROBE = {"name": "probe", "order": 50, "grammar": "probe/<kind>/n:<elements>",
         "argument": {"key": "n", "unit": "elements"},
         "figures": [{"counter": "errors_per_run", "unit": "errors", "scale": 1.0,
                      "better": "lower"}], "flags": []}


def probe_doc(errors: float) -> dict:
    entries = []
    for kind in ("ecc", "parity"):
        for n in (1 << 10, 1 << 14, 1 << 18):
            reps = [{"real_time": 5.0 + r, "errors_per_run": errors * n / 1024 * (1 + 0.001 * r)}
                    for r in range(5)]
            entries += run_entries(f"probe/{kind}/n:{n}/manual_time", reps)
    return with_facts(document(entries), {"schema": 1, "families": [*FACTS["families"], PROBE]})


def test_a_family_never_seen_is_read_by_its_facts(tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text(json.dumps(recorded(probe_doc(1.0))))
    (tmp_path / "new.json").write_text(json.dumps(probe_doc(2.0)))
    compare = run_in(tmp_path, "compare", "base.json", "new.json")
    assert compare.returncode == 1, compare.stderr  # twice the errors: slower, a regression
    rows = [line.split() for line in compare.stdout.splitlines() if line.startswith("probe/")]
    assert len(rows) == 6 and all(r[3] == "errors" and r[-1] == "SLOWER" for r in rows), rows
    assert "probe" in compare.stdout.split("Summary per family")[1]

    proc = run_in(tmp_path, "plot", "base.json", "new.json", "-o", "figures")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert [p.name for p in (tmp_path / "figures").iterdir()] == ["probe.png"]
    sources = plot.make_sources([load(tmp_path / "base.json"), load(tmp_path / "new.json")])
    fig = family_plot.family_figure(sources, "probe", "probe")
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert [ax.get_title() for ax in axes] == ["probe"]
    assert (axes[0].get_xlabel(), axes[0].get_ylabel()) == ("n (elements)",
                                                            "errors (lower is better)")
    assert len(axes[0].get_lines()) == 4  # ecc, parity x 2 files

    report = run_in(tmp_path, "report", "base.json", "new.json", "-o", "report")
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report" / "probe.png").is_file()
    assert "probe/ecc/n:1024" in (tmp_path / "report" / "report.md").read_text()

    export = run_in(tmp_path, "export", "new.json", "--format", "github", "--direction",
                    "smaller")
    entries = json.loads(export.stdout)
    assert {e["unit"] for e in entries} == {"errors"} and len(entries) == 6
    bencher = json.loads(run_in(tmp_path, "export", "new.json", "--format", "bencher").stdout)
    assert set(bencher["probe/ecc/n:1024"]) == {"lower-errors"}


# The latency family's facts as gpubench declares them (bench/latency/latency.cpp).
LATENCY = next(f for f in FACTS["families"] if f["name"] == "latency")


def latency_doc(slower: float) -> dict:
    """Benchmarks named as the latency family names them, with made-up figures that grow with the
    size as a chase's do, `slower` times the first file's."""
    entries = []
    for where, sizes, ns in (("device", (4096, 1 << 20, 64 << 20, 1 << 30), 30.0),
                             ("host_pinned", (4096, 2 << 20), 800.0),
                             ("peer/0to1", (4096, 2 << 20), 700.0)):
        for index, size in enumerate(sizes):
            reps = [{"real_time": 16.4 * ns * slower * (1 + index) * (1 + 0.001 * r),
                     "ns_per_load": ns * slower * (1 + index) * (1 + 0.001 * r),
                     "cycles_per_load": 1.98 * ns * slower * (1 + index) * (1 + 0.001 * r)}
                    for r in range(5)]
            entries += run_entries(f"latency/chase/{where}/{size}/manual_time", reps,
                                   counters={"noise_pct": 0.1, "host_timed": 0.0})
    return with_facts(document(entries))


def test_the_latency_family_is_read_by_its_facts(tmp_path: Path) -> None:
    assert LATENCY["argument"] == {"key": "", "unit": "bytes"}
    assert [(f["counter"], f["unit"], f["better"]) for f in LATENCY["figures"]] == \
        [("ns_per_load", "ns", "lower"), ("cycles_per_load", "cycles", "lower")]
    (tmp_path / "base.json").write_text(json.dumps(recorded(latency_doc(1.0))))
    (tmp_path / "new.json").write_text(json.dumps(latency_doc(1.2)))

    compare = run_in(tmp_path, "compare", "base.json", "new.json")
    assert compare.returncode == 1, compare.stderr  # 20% more ns per load: a regression
    rows = [line.split() for line in compare.stdout.splitlines()
            if line.startswith("latency/")]
    assert len(rows) == 8 and all(r[3] == "ns" and r[-1] == "SLOWER" for r in rows), rows

    proc = run_in(tmp_path, "plot", "base.json", "new.json", "-o", "figures")
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == \
        ["latency.png", "latency_pairs.png"]
    sources = plot.make_sources([load(tmp_path / "base.json"), load(tmp_path / "new.json")])
    fig = family_plot.family_figure(sources, "latency", "latency")
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert [ax.get_title() for ax in axes] == ["chase"]
    assert (axes[0].get_xlabel(), axes[0].get_ylabel()) == ("size (bytes)",
                                                            "ns (lower is better)")
    assert axes[0].get_xscale() == "log"
    fig.canvas.draw()
    ticks = {t.get_text() for t in axes[0].get_xticklabels()}
    assert {"4 KiB", "64 KiB", "1 MiB", "16 MiB", "256 MiB"} <= ticks, ticks
    assert len(axes[0].get_lines()) == 6  # device, host_pinned, peer/0to1 x 2 files

    report = run_in(tmp_path, "report", "base.json", "new.json", "-o", "report")
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report" / "latency.png").is_file()
    assert "latency/chase/device/1073741824" in (tmp_path / "report" / "report.md").read_text()

    bencher = json.loads(run_in(tmp_path, "export", "new.json", "--format", "bencher").stdout)
    assert set(bencher["latency/chase/host_pinned/4096"]) == {"lower-ns"}
