"""Every output of a comparison opens with its answer: the verdict, then the changes (SLOWER
first, then FASTER) with their uncertainty, then a count of the rest. Tested on the renderers'
functions, and on the command line only where the command decides (exit 3)."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import H200
from gbench_builder import copy_run, document, load_json, recorded, scaled, write_json

from gpubench_tools.cli import compare as compare_cli
from gpubench_tools.models.comparison import SAME, SLOWER, Comparison, Rules, compare
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers import html_report
from gpubench_tools.renderers.comparison_text import (
    CONTEXT_SHOWN,
    context_section,
    folded_names,
    only_in_one_section,
    render_comparison,
)

RULES = Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.01)
AA_1, AA_2 = H200 / "verdicts" / "aa_1.json.gz", H200 / "verdicts" / "aa_2.json.gz"
PLANTED = "saxpy/vec4/1048576"  # GPU-timed, SAME between aa_1 and aa_2, resolution 1.03×


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """aa_1 against aa_2 (an A/A pair: every benchmark SAME) with one saxpy made 1.10× slower
    in aa_2 and one launch 1.6× faster."""
    doc = scaled(load_json(AA_2), f"{PLANTED}/manual_time", 1.10)
    doc = scaled(doc, "launch/driver/submit/params:0/manual_time", 1 / 1.6)
    new = write_json(tmp_path_factory.mktemp("planted") / "planted.json", doc)
    return compare(load(AA_1), load(new), RULES)


def test_a_planted_slowdown_is_named_in_the_first_ten_lines(planted: Comparison) -> None:
    lines = render_comparison(planted).splitlines()
    assert lines[0] == "FAIL: 1 of 598 benchmark(s) regressed (1 FASTER, 1 SLOWER, 596 SAME)."
    assert lines[2] == "SLOWER (1), NEW vs BASE, the largest first:"
    assert re.fullmatch(rf"  {PLANTED}: 1\.10× slower \(resolution 1\.0\d×, spread "
                        r"[0-9.]+% / [0-9.]+%, p 0\.0079\)", lines[3]), lines[3]
    assert lines[5] == "FASTER (1), NEW vs BASE, the largest first:"
    assert lines[6].startswith("  launch/driver/submit/params:0: 1.53× faster (resolution ")
    # A SAME row never stands above a SLOWER one: the 596 are counted after the changes.
    assert lines[8].startswith("596 SAME, the largest changes within their resolution:")


def test_the_markdown_summary_folds_every_table(planted: Comparison) -> None:
    """The summary for CI ($GITHUB_STEP_SUMMARY): the verdict and the changes shown, every
    benchmark's table folded; with --only-changed the folded tables hold the changes alone."""
    text = render_comparison(planted, markdown=True)
    blocks = text.split("\n\n")
    assert blocks[1].startswith("FAIL: 1 of 598") and blocks[2].startswith("SLOWER (1)")
    assert f"| {PLANTED} |" in blocks[3]
    shown = re.sub(r"<details>.*?</details>", "", text, flags=re.S)
    assert not re.search(r"^\| (?!family).*\| SAME \|$", shown, flags=re.M)  # none unfolded
    assert len(shown.splitlines()) < 80
    assert len(re.findall(r"^\| (?!family).*\| SAME \|$", text, flags=re.M)) == 596
    only = render_comparison(planted, markdown=True, only_changed=True)
    assert not re.search(r"^\| (?!family).*\| SAME \|$", only, flags=re.M)
    assert only.count(f"| {PLANTED} |") == 2


def test_context_values_are_cut_to_a_readable_width(tmp_path: Path) -> None:
    """A family schema or health record is one key, its value cut and its length said."""
    entries = copy_run("HtoD", "pinned", "async", 1 << 20, 50.0)
    schema = json.dumps({"schema": 1, "families": [{"name": f"f{i}"} for i in range(300)]})
    base = load(write_json(tmp_path / "b.json", recorded(document(entries))))
    new = load(write_json(tmp_path / "n.json", document(entries, gpubench_families=schema)))
    table = context_section(compare(base, new, RULES), markdown=False)[1]
    line = next(line for line in table.splitlines() if line.startswith("gpubench_families"))
    assert f"… ({len(schema):,} characters)" in line
    assert len(line) < 3 * CONTEXT_SHOWN + 60


def test_long_lists_of_names_fold_by_family() -> None:
    names = [f"copy/{d}/pinned/async/{1 << i}" for d in ("HtoD", "DtoH") for i in range(290)]
    assert folded_names(names) == "copy/HtoD (290), copy/DtoH (290)"
    assert folded_names(names[:3]) == ", ".join(names[:3])


def test_benchmarks_in_one_file_fold_by_family(tmp_path: Path) -> None:
    base_entries = [e for i in range(40) for e in copy_run("HtoD", "pinned", "async", 4 << i,
                                                             50.0)]
    base = load(write_json(tmp_path / "b.json", recorded(document(base_entries))))
    new = load(write_json(tmp_path / "n.json", document(base_entries[:3])))
    block = only_in_one_section(compare(base, new, RULES), markdown=False)[1]
    assert block.splitlines()[1] == "  copy (37): copy/HtoD (37)"


def test_run_labels_carry_the_gpubench_commit(tmp_path: Path) -> None:
    """Two commits' runs on one GPU read apart by their gpubench build, not by file name."""
    entries = copy_run("HtoD", "pinned", "async", 1 << 20, 50.0)
    results = [load(write_json(tmp_path / f"aa_{i}.json",
                               document(entries, gpubench_version=f"0.1.0+{commit}")))
               for i, commit in ((1, "abc1234"), (2, "def5678"))]
    labels = html_report.run_labels(results, [False, False])
    assert labels == ["NVIDIA H200, driver 570.86.15, gpubench 0.1.0+abc1234",
                      "NVIDIA H200, driver 570.86.15, gpubench 0.1.0+def5678"]
    text = render_comparison(compare(results[0], results[1], RULES, force_report=True))
    assert "(NVIDIA H200, driver 570.86.15, gpubench 0.1.0+abc1234)" in text


def test_the_html_verdict_opens_with_the_changes(planted: Comparison) -> None:
    runs = [SimpleNamespace(index=i, label=label) for i, label in enumerate(("aa_1", "new"))]
    html = html_report.verdict_section(runs, [planted])
    slower, faster, same = (html.index(f"<p>{v}") for v in ("SLOWER (", "FASTER (", "596 SAME"))
    assert slower < html.index(PLANTED) < faster < same
    assert re.search(rf"{PLANTED}: 1\.10× slower \(resolution 1\.0\d×, spread .*?, p 0\.0079",
                     html)
    table = html_report.changes_table("saxpy", runs, [planted], only_changed=True)
    assert "resolution, spread (first / this), p" in table and "p 0.0079" in table


def test_no_regression_check_prints_the_comparison(tmp_path: Path,
                                                   capfd: pytest.CaptureFixture) -> None:
    """One process's run as BASE: one line on stderr says why this is no regression check, the
    comparison follows on stdout, exit 3; no --changed-filter is written, so the gate confirms
    nothing and reports the status."""
    base = write_json(tmp_path / "one.json", document(
        copy_run("HtoD", "pinned", "async", 1 << 20, [50.0, 50.1, 49.9, 50.2, 50.05])))
    new = write_json(tmp_path / "new.json", document(
        copy_run("HtoD", "pinned", "async", 1 << 20, [40.0, 40.1, 39.9, 40.2, 40.05])))
    changed = tmp_path / "changed"
    assert compare_cli.main([str(base), str(new), f"--changed-filter={changed}"]) == 3
    out, err = capfd.readouterr()
    assert err.count("\n") == 1 and err.startswith(
        "gpubench-tools compare: no regression check: BASE ") and "one process's run" in err
    lines = out.splitlines()
    assert lines[0] == "REPORT: 1 benchmark(s) compared: 0 FASTER, 1 SLOWER, 0 SAME."
    assert lines[3].startswith("  copy/HtoD/pinned/async/1048576: 1.25× slower")
    assert "Comparison report, not a regression check (BASE is one process's run)" in out
    assert not changed.exists()
    assert all(r.verdict in (SAME, SLOWER) for r in compare(load(base), load(new), RULES).rows)
