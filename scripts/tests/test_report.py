import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    H200,
    RunScript,
    folder_files,
    largest_after_the_first,
    run_with_file_size_limit,
    written_paths,
)
from gbench_builder import document, full_suite, launch_run, recorded_baseline, scaled, write_json
from hostile_inputs import result_with_names
from matplotlib.colors import to_rgba

from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers import markdown_report as report
from gpubench_tools.renderers.figures import family_plot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def two_gpus_of(tmp_path: Path, families: tuple[str, ...] | None = None) -> tuple[Path, Path]:
    """The full suite on an H200 and on an H100, or only `families` of it."""
    def suite(t0_us: float, bandwidth_gbps: float) -> list[dict]:
        return [e for e in full_suite(t0_us, bandwidth_gbps)
                if families is None or e["name"].split("/", 1)[0] in families]

    h200 = write_json(tmp_path / "h200.json", document(suite(8.0, 50.0)))
    h100 = write_json(tmp_path / "h100.json", document(suite(10.0, 25.0),
                                                       gpu_name="NVIDIA H100",
                                                       driver_version="550.54.15"))
    return h200, h100


@pytest.fixture
def two_gpus(tmp_path: Path) -> tuple[Path, Path]:
    return two_gpus_of(tmp_path)


@pytest.fixture
def two_gpus_launch(tmp_path: Path) -> tuple[Path, Path]:
    """Two GPUs' launch family alone: a report of a few files, where what is tested is how they
    are written, not what they show."""
    return two_gpus_of(tmp_path, ("launch",))


def test_report_writes_markdown_and_figures(tmp_path: Path, run_script: RunScript,
                                            two_gpus: tuple[Path, Path]) -> None:
    out = tmp_path / "report"
    proc = run_script("report", *two_gpus, "-o", out)
    assert proc.returncode == 0, proc.stderr
    markdown = (out / "report.md").read_text()
    assert markdown.startswith("# gpubench report\n")
    for section in ("### Summary per family", "### Context differences", "### Figures",
                    "### Benchmarks"):
        assert section in markdown
    assert "| gpu_name | NVIDIA H200 | NVIDIA H100 |" in markdown
    assert "Comparison report, not a regression check" in markdown
    figures = re.findall(r"!\[\w+\]\((\w+\.png)\)", markdown)
    assert figures == ["copy.png", "launch.png", "saxpy.png"]
    for name in figures:
        width, height = png_size(out / name)
        assert 600 < width < 2500 and 300 < height < 1500  # readable on GitHub without zooming
    # The changes first, then folded tables, one per family, every benchmark in them.
    assert markdown.index("SLOWER (") < markdown.index("### Summary per family")
    folded = markdown[markdown.index("### Benchmarks"):]
    assert folded.count("<details><summary>") == 3
    suite_size = len(load(two_gpus[0]).benchmarks)
    assert folded.count("\n| copy/") + folded.count("\n| launch/") + \
        folded.count("\n| saxpy/") == suite_size
    assert proc.stdout.splitlines()[-1].startswith("REPORT: ")


def test_report_on_the_h200_with_repetitions(tmp_path: Path, run_script: RunScript) -> None:
    """Two committed runs with repetitions: the U test and each side's noise in the report."""
    proc = run_script("report", H200 / "stability" / "launch_submit_interleaved_10rep.json",
                      H200 / "stability" / "launch_submit_halfsecond_10rep.json",
                      "-o", tmp_path / "r")
    assert proc.returncode == 0, proc.stderr
    markdown = (tmp_path / "r" / "report.md").read_text()
    # One process's runs each, on two cards of the H200's machines: a report that names both.
    assert "Comparison report, not a regression check (BASE is one process's run)" in markdown
    assert "; another card (BASE GPU-f6914745-6b8b-93a7-c77d-b6cfd1b8cd12, NEW " in markdown
    assert "| gpubench_version |" in markdown
    assert "- launch (1): launch/graph/submit/params:0" in markdown  # in NEW only
    row = next(line for line in markdown.splitlines()
               if line.startswith("| launch/driver/submit/params:0 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[8] == "10 / 10" and float(cells[10]) < 1  # repetitions, p
    assert (tmp_path / "r" / "launch.png").exists()
    assert not (tmp_path / "r" / "copy.png").exists()  # no copy benchmarks in either file


def test_only_changed_in_report(tmp_path: Path, run_script: RunScript) -> None:
    base = write_json(tmp_path / "b.json", recorded_baseline(
        launch_run("driver", "submit", 0, 2.0) + launch_run("graph", "submit", 0, 1.0)))
    new = write_json(tmp_path / "n.json", document(launch_run("driver", "submit", 0, 3.0)
                                                   + launch_run("graph", "submit", 0, 1.0)))
    proc = run_script("report", base, new, "-o", tmp_path / "r", "--only-changed")
    assert proc.returncode == 0, proc.stderr  # a report, whatever the verdicts
    markdown = (tmp_path / "r" / "report.md").read_text()
    assert "| launch/driver/submit/params:0 |" in markdown
    assert "| launch/graph/submit/params:0 |" not in markdown
    assert "FAIL: 1 of 2 benchmark(s) regressed" in markdown


def test_family_panels_split_by_direction_and_path(two_gpus: tuple[Path, Path]) -> None:
    sources = report.sources_of((load(two_gpus[0]), load(two_gpus[1])))
    base, new = (s.label for s in sources)
    copy = family_plot.family_panels(sources, "copy")
    assert [p.title for p in copy] == ["HtoD", "DtoH"]
    assert list(copy[0].curves) == ["pinned/async"]
    base_points, new_points = (copy[0].curves["pinned/async"][label] for label in (base, new))
    assert base_points.x.tolist() == new_points.x.tolist() == (4 ** np.arange(5, 15)).tolist()
    assert new_points.y[-1] < base_points.y[-1]  # 25 GB/s against 50
    launch = family_plot.family_panels(sources, "launch")
    assert [p.title for p in launch] == ["runtime", "driver", "graph", "module"]
    assert list(launch[0].curves) == ["submit", "roundtrip"]


def test_family_panels_mark_a_path_missing_from_one_file(tmp_path: Path) -> None:
    base = load(write_json(tmp_path / "b.json",
                              document(launch_run("driver", "submit", 0, [2.0]))))
    new = load(write_json(tmp_path / "n.json",
                             document(launch_run("graph", "submit", 0, [1.0]))))
    sources = report.sources_of((base, new))
    driver, graph = family_plot.family_panels(sources, "launch")
    assert list(driver.curves["submit"]) == [sources[0].label]
    assert list(graph.curves["submit"]) == [sources[1].label]


def test_legend_is_outside_the_axes(two_gpus: tuple[Path, Path]) -> None:
    sources = report.sources_of((load(two_gpus[0]), load(two_gpus[1])))
    fig = family_plot.family_figure(sources, "launch", "launch")
    fig.canvas.draw()
    (legend,) = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    legend_box = legend.get_window_extent()
    for ax in fig.axes:
        if ax.has_data():
            assert not legend_box.overlaps(ax.get_window_extent())
    texts = [t.get_text().replace("\n", " ") for t in legend.get_texts()]  # a label wraps
    assert "submit" in texts and "roundtrip" in texts
    assert texts.count("BASE: h200.json (NVIDIA H200, driver 570.86.15)") == 1
    assert "NEW: h100.json (NVIDIA H100, driver 550.54.15)" in texts


def test_same_curve_gets_the_same_colour_in_every_panel(two_gpus: tuple[Path, Path]) -> None:
    sources = report.sources_of((load(two_gpus[0]), load(two_gpus[1])))
    fig = family_plot.family_figure(sources, "launch", "launch")
    colours: dict[str, set[tuple[float, ...]]] = {}
    for ax in fig.axes[:3]:  # runtime, driver, graph
        for line, label in zip(ax.get_lines(), ["submit"] * 2 + ["roundtrip"] * 2):
            colours.setdefault(label, set()).add(tuple(to_rgba(line.get_color())))
    assert all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == 2
    styles = [line.get_linestyle() for line in fig.axes[0].get_lines()]
    assert styles == ["-", ":"] * 2  # BASE solid, NEW dotted


def test_output_directory_is_created_when_its_parent_exists(tmp_path: Path,
                                                            run_script: RunScript) -> None:
    base = write_json(tmp_path / "b.json", document(launch_run("driver", "submit", 0, 2.0)))
    proc = run_script("report", base, base, "-o", tmp_path / "new_dir")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "new_dir" / "report.md").is_file()


@pytest.mark.parametrize("kind", ["to nothing", "loop"])
def test_output_directory_that_is_a_link_to_no_folder_is_one_line(
        tmp_path: Path, run_script: RunScript, kind: str) -> None:
    base = write_json(tmp_path / "b.json", document(launch_run("driver", "submit", 0, 2.0)))
    out = tmp_path / "report"
    out.symlink_to(tmp_path / "gone" if kind == "to nothing" else out)
    proc = run_script("report", base, base, "-o", out)
    reason = (f"a link to {os.path.realpath(tmp_path / 'gone')}, which does not exist"
              if kind == "to nothing" else "a link in a loop of links, which leads to no file")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"gpubench-tools report: {out}: {reason}; give a folder\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "report"]


def test_report_md_shows_no_control_character_of_a_name(tmp_path: Path,
                                                        run_script: RunScript) -> None:
    """Names reach report.md's changes and benchmarks in one file only, not only its
    tables: every line of it is printable."""
    shared = "\x1b]0;x\x07"
    base = result_with_names([shared, "mid\u2028\x00", "z"])
    new = scaled(result_with_names([shared, "new\x9b\u202e", "z"]),
                 f"launch/{shared}/submit/params:0/manual_time", 3.0)
    out = tmp_path / "r"
    proc = run_script("report", write_json(tmp_path / "b.json", base),
                      write_json(tmp_path / "n.json", new), "-o", out)
    assert proc.returncode in (0, 1), proc.stderr
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "Only in BASE" in text, text[:2000]
    assert "the largest changes within their resolution" in text, text[:2000]
    assert all(line.isprintable() for line in text.split("\n")), text[:2000]


def test_families_one_file_name_apart_get_a_figure_each(tmp_path: Path,
                                                       run_script: RunScript) -> None:
    """`Copy` and `copy` are one file on a file system that folds case; `family1` and a name
    drawn to family<index>.png are one file anywhere: each family gets a figure of its own."""
    names = ["Copy", "copy", "family3", "\0"]
    entries = [e for family in names
               for e in launch_run("x", "submit", 0, [2.0, 2.1, 1.9])
               for e in [dict(e, name=e["name"].replace("launch/", f"{family}/", 1),
                              run_name=e["run_name"].replace("launch/", f"{family}/", 1))]]
    base = write_json(tmp_path / "b.json", document(entries))
    new = write_json(tmp_path / "n.json", document(entries))
    out = tmp_path / "r"
    proc = run_script("report", base, new, "-o", out)
    assert proc.returncode == 0, proc.stderr
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", (out / "report.md").read_text())
    assert len(figures) == 4 == len({f.casefold() for f in figures})
    assert sorted(p.name for p in out.glob("*.png")) == sorted(figures)


@pytest.mark.parametrize("taken, spelling", [
    ("report.md", "same"), ("copy.png", "same"), ("saxpy.png", "link to DIR"),
    ("launch.png", "hard link")])
def test_an_output_over_an_input_is_refused_before_anything_is_written(
        tmp_path: Path, run_script: RunScript, two_gpus: tuple[Path, Path], taken: str,
        spelling: str) -> None:
    """Every file gpubench-tools report writes into DIR is checked against both inputs, however the
    input is named: one line, and DIR as it was."""
    out = tmp_path / "report"
    out.mkdir()
    given = out / taken
    if spelling == "hard link":
        os.link(two_gpus[1], given)
    else:
        given.write_bytes(two_gpus[1].read_bytes())
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    output = out
    if spelling == "link to DIR":
        output = tmp_path / "link"
        output.symlink_to(out)
    proc = run_script("report", two_gpus[0], given, "-o", output)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"gpubench-tools report: {output / taken}: is also an input ({given}); "
                           "writing there would destroy it\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def earlier_report(run_script: RunScript, two_gpus: tuple[Path, Path],
                   out: Path) -> dict[str, bytes | None]:
    """`out` holding the report of the two runs the other way round, an earlier report whose
    every file differs from the report of `two_gpus`; its files."""
    assert run_script("report", *reversed(two_gpus), "-o", out).returncode == 0
    return folder_files(out)


def assert_one_line_naming(proc: subprocess.CompletedProcess[str], path: Path) -> None:
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert (proc.stderr.startswith(f"gpubench-tools report: {path}: ")
            and proc.stderr.count("\n") == 1 and proc.stderr.endswith("\n")), proc.stderr


def test_a_file_that_cannot_be_written_leaves_the_earlier_report_whole(
        tmp_path: Path, run_script: RunScript, two_gpus: tuple[Path, Path]) -> None:
    """A disk that fills as the report is written (a file size limit, RLIMIT_FSIZE): its largest
    file fails, named in one line, and every file of the earlier report stays as it was, those
    written before the largest too."""
    wrote = run_script("report", *two_gpus, "-o", tmp_path / "elsewhere").stdout
    largest, limit = largest_after_the_first(written_paths(wrote))
    out = tmp_path / "report"
    before = earlier_report(run_script, two_gpus, out)
    proc = run_with_file_size_limit("report", *two_gpus, "-o", out, limit=limit)
    assert (proc.returncode, proc.stderr) == (
        2, f"gpubench-tools report: {out / largest.name}: File too large\n")
    assert folder_files(out) == before


@pytest.mark.parametrize("blocker", ["folder", "link into a missing folder", "FIFO"])
def test_a_report_md_that_cannot_be_written_leaves_the_earlier_figures(
        tmp_path: Path, run_script: RunScript, two_gpus_launch: tuple[Path, Path],
        blocker: str) -> None:
    """report.md and the figures are written all or none: where report.md cannot be written,
    one line names it and the earlier figures stay as they were, never beside a report.md
    that does not describe them; no temporary file is left."""
    out = tmp_path / "report"
    earlier_report(run_script, two_gpus_launch, out)
    report_md = out / "report.md"
    report_md.unlink()
    if blocker == "folder":
        report_md.mkdir()
    elif blocker == "FIFO":
        os.mkfifo(report_md)
    else:
        report_md.symlink_to(tmp_path / "missing" / "report.md")
    before = folder_files(out)
    proc = run_script("report", *two_gpus_launch, "-o", out)
    assert_one_line_naming(proc, report_md)
    assert folder_files(out) == before
    assert list(out.glob(".*.tmp")) == []


def test_a_figure_that_cannot_be_written_leaves_the_earlier_report_md(
        tmp_path: Path, run_script: RunScript, two_gpus_launch: tuple[Path, Path]) -> None:
    """The converse: the figure written last is a folder, and report.md and the figures before
    it stay as they were."""
    out = tmp_path / "report"
    earlier_report(run_script, two_gpus_launch, out)
    last = out / re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", (out / "report.md").read_text())[-1]
    last.unlink()
    last.mkdir()
    before = folder_files(out)
    proc = run_script("report", *two_gpus_launch, "-o", out)
    assert_one_line_naming(proc, last)
    assert folder_files(out) == before
    assert list(out.glob(".*.tmp")) == []
