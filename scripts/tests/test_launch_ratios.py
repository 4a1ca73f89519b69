"""gpubench-tools ratios on generated paired-launch results: the table, the README sentences, the
verdicts, the two-run agreement check and bad input."""

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SCRIPTS, RunScript, command
from gbench_builder import bad_results, document, launch_run, run_entries, write_bad

from gpubench_tools.cli.ratios import main
from gpubench_tools.models.launch_ratios import NOT_RESOLVED, agreements, pooled, ratio_rows
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers.launch_ratios_text import format_table, sentences

# (path, reference): (ratio, lo, hi, resolved)
Ratios = dict[tuple[str, str], tuple[float, float, float, bool]]

BAND = (1.002, 0.990, 1.012)
RATIOS: Ratios = {
    ("driver", "runtime"): (0.90, 0.88, 0.92, True),
    ("runtime_launchkernel", "runtime"): (1.004, 0.992, 1.015, False),
    ("graph", "runtime"): (0.02, 0.019, 0.021, True),
    ("runtime", "driver"): (1.11, 1.09, 1.13, True),
    ("graph", "driver"): (0.022, 0.021, 0.023, True),
}


def paired_counters(ratios: Ratios, band: tuple[float, float, float] = BAND
                    ) -> dict[str, float]:
    """One launch/paired/ run's counters as gpubench writes them: each ratio's four, the band."""
    counters: dict[str, float] = {"real_time": 300.0, "rounds": 257.0, "launches": 65792.0,
                                  "runtime_us": 3.6, "driver_us": 3.2, "graph_us": 0.07}
    counters["same_path_vs_runtime"], counters["same_path_vs_runtime_lo"], \
        counters["same_path_vs_runtime_hi"] = band
    for (path, reference), (ratio, lo, hi, resolved) in ratios.items():
        key = f"{path}_vs_{reference}"
        counters.update({key: ratio, f"{key}_lo": lo, f"{key}_hi": hi,
                         f"{key}_resolved": 1.0 if resolved else 0.0})
    return counters


def paired_entries(bytes_: int, ratios: Ratios, band: tuple[float, float, float] = BAND
                   ) -> list[dict[str, Any]]:
    """One launch/paired/ run as gpubench writes it."""
    return run_entries(f"launch/paired/submit/params:{bytes_}/manual_time",
                       [paired_counters(ratios, band)])


def paired_runs(runs: list[Ratios], bands: list[tuple[float, float, float]] | None = None
                ) -> list[dict[str, Any]]:
    """Several runs of launch/paired/submit/params:0 as repetitions of one benchmark, as
    gpubench-tools merge writes separate processes (or --benchmark_repetitions writes one
    process's)."""
    bands = bands or [BAND] * len(runs)
    return run_entries("launch/paired/submit/params:0/manual_time",
                       [paired_counters(r, b) for r, b in zip(runs, bands)])


def write(path: Path, entries: list[dict[str, Any]], **context: Any) -> Path:
    path.write_text(json.dumps(document(entries, **context)))
    return path


@pytest.fixture
def result_file(tmp_path: Path) -> Path:
    return write(tmp_path / "paired.json",
                 paired_entries(0, RATIOS) + launch_run("runtime", "submit", 0, 3.7))


def test_rows_hold_every_ratio_with_its_interval_and_verdict(result_file: Path) -> None:
    rows = ratio_rows(load(result_file))
    by_key = {(r.path, r.reference): r for r in rows}
    assert set(by_key) == set(RATIOS) | {("same_path", "runtime")}
    assert by_key[("driver", "runtime")].verdict == "cheaper"
    assert by_key[("runtime", "driver")].verdict == "dearer"
    assert by_key[("runtime_launchkernel", "runtime")].verdict == NOT_RESOLVED
    assert by_key[("same_path", "runtime")].resolved is None
    assert all(r.benchmark == "launch/paired/submit/params:0" for r in rows)
    table = format_table(rows)
    assert "0.880–0.920" in table and NOT_RESOLVED in table


def test_sentences_say_one_thing_per_path_and_never_rank_an_unresolved_one(
        result_file: Path) -> None:
    lines = sentences(ratio_rows(load(result_file)))
    assert lines[0].startswith("launch/paired/submit/params:0: `runtime` against itself")
    by_path = {line.split("`")[1]: line for line in lines[1:]}
    assert set(by_path) == {"driver", "runtime_launchkernel", "graph", "runtime"}
    assert by_path["driver"] == "`driver`: 0.90× `runtime` (95% CI 0.88–0.92)."
    assert by_path["runtime_launchkernel"] == (
        f"`runtime_launchkernel`: {NOT_RESOLVED} against `runtime` (1.00×, 95% CI 0.99–1.01).")
    assert "0.02× `runtime` (95% CI 0.019–0.021)" in by_path["graph"]
    assert "0.022× `driver` (95% CI 0.021–0.023)" in by_path["graph"]


def test_payload_ratios_read_against_the_same_path_at_zero_bytes(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json",
                 paired_entries(4096, {("driver", "params0"): (1.3, 1.25, 1.35, True)}))
    lines = sentences(ratio_rows(load(path)))
    assert lines[1] == "`driver`: 1.30× itself at 0 parameter bytes (95% CI 1.25–1.35)."


def test_the_command_prints_the_table_and_the_sentences(run_script: RunScript,
                                                        result_file: Path) -> None:
    table = run_script("ratios", result_file)
    assert table.returncode == 0, table.stderr
    assert "driver" in table.stdout and NOT_RESOLVED in table.stdout
    text = run_script("ratios", result_file, "--sentences")
    assert text.returncode == 0, text.stderr
    assert "`driver`: 0.90× `runtime` (95% CI 0.88–0.92)." in text.stdout.splitlines()


def test_the_sentences_show_a_path_of_control_characters_escaped(run_script: RunScript,
                                                                 tmp_path: Path) -> None:
    """A path's name reaches the sentences as the result holds it; each line stays printable."""
    hostile = "dri\x1b]0;x\x07ver\u202e"
    ratio = RATIOS[("driver", "runtime")]
    path = write(tmp_path / "p.json", paired_entries(0, {(hostile, "runtime"): ratio}))
    text = run_script("ratios", path, "--sentences")
    assert text.returncode == 0, text.stderr
    assert all(line.isprintable() for line in text.stdout.split("\n")), text.stdout
    assert "dri\\x1b]0;x\\x07ver" in text.stdout, text.stdout


def test_two_runs_whose_intervals_overlap_agree(run_script: RunScript, tmp_path: Path) -> None:
    moved = {key: (r * 1.01, lo * 1.01, hi * 1.01, res) for key, (r, lo, hi, res) in RATIOS.items()}
    first = write(tmp_path / "a.json", paired_entries(0, RATIOS))
    second = write(tmp_path / "b.json", paired_entries(0, moved))
    done = run_script("ratios", first, second)
    assert done.returncode == 0, done.stderr
    assert f"{len(RATIOS) + 1} of {len(RATIOS) + 1} ratios agree" in done.stdout


def test_a_ratio_whose_intervals_part_fails_the_agreement(run_script: RunScript,
                                                          tmp_path: Path) -> None:
    flipped = dict(RATIOS)
    flipped[("driver", "runtime")] = (1.05, 1.03, 1.07, True)
    first = write(tmp_path / "a.json", paired_entries(0, RATIOS))
    second = write(tmp_path / "b.json", paired_entries(0, flipped))
    pairs = agreements(ratio_rows(load(first)), ratio_rows(load(second)))
    assert [(p.first.path, p.first.reference) for p in pairs if not p.overlap] == [
        ("driver", "runtime")]
    done = run_script("ratios", first, second)
    assert done.returncode == 1
    assert f"{len(RATIOS)} of {len(RATIOS) + 1} ratios agree" in done.stdout
    assert "NO" in done.stdout


@pytest.mark.parametrize("ratios, problem", [
    ({("driver", "runtime"): (0.95, 0.96, 0.98, True)}, "outside its interval"),
    ({("driver", "runtime"): (0.0, 0.0, 0.1, True)}, "not > 0"),
])
def test_a_ratio_outside_its_interval_is_refused_in_one_line(
        run_script: RunScript, tmp_path: Path, ratios: Ratios, problem: str) -> None:
    path = write(tmp_path / "bad.json", paired_entries(0, ratios))
    done = run_script("ratios", path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and problem in done.stderr


def test_a_result_without_paired_benchmarks_is_refused_in_one_line(
        run_script: RunScript, tmp_path: Path) -> None:
    path = write(tmp_path / "plain.json", launch_run("driver", "submit", 0, 3.2))
    done = run_script("ratios", path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"gpubench-tools ratios: {path}: no paired launch ratios "
                                   "(run gpubench with --benchmark_filter=launch/paired/)")


def test_a_missing_file_is_refused_in_one_line(run_script: RunScript, tmp_path: Path) -> None:
    done = run_script("ratios", tmp_path / "absent.json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1


@pytest.mark.parametrize("position", ["first", "second"])
@pytest.mark.parametrize("content", [pytest.param(c, id=n) for n, c, _ in bad_results()])
def test_every_kind_of_bad_file_is_refused_in_one_line(
        tmp_path: Path, result_file: Path, capsys: pytest.CaptureFixture[str], position: str,
        content: object) -> None:
    bad = write_bad(tmp_path / "bad.json", content)
    arguments = [bad] if position == "first" else [result_file, bad]
    capsys.readouterr()
    status = main([str(a) for a in arguments])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.startswith(f"gpubench-tools ratios: {bad}") and err.count("\n") == 1, err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_stdout_that_cannot_be_written(result_file: Path) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*command("ratios"), str(result_file)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "gpubench-tools ratios: stdout: No space left on device\n"


def test_compare_shows_both_runs_ratios_and_whether_they_agree(tmp_path: Path,
                                                               run_script: RunScript) -> None:
    moved = dict(RATIOS)
    moved[("driver", "runtime")] = (0.80, 0.79, 0.81, True)  # clear of BASE's 0.88-0.92
    base = write(tmp_path / "base.json", paired_entries(0, RATIOS), merged_runs=5)
    new = write(tmp_path / "new.json", paired_entries(0, moved))
    done = run_script("compare", str(base), str(new))
    assert done.returncode == 0, done.stderr
    assert f"{len(RATIOS)} of {len(RATIOS) + 1} paired ratios agree" in done.stdout
    line = next(l for l in done.stdout.splitlines() if "driver" in l and "0.800" in l)
    assert "0.900 (0.880–0.920)" in line and line.rstrip().endswith("NO")


def test_runs_pool_into_their_geometric_mean_with_the_wider_of_two_intervals() -> None:
    # Runs apart by more than their own intervals: the spread between them sets the width.
    ratio, lo, hi = pooled([(2.10, 2.08, 2.12), (2.30, 2.28, 2.32), (2.20, 2.18, 2.22)])
    assert ratio == pytest.approx((2.10 * 2.30 * 2.20) ** (1 / 3))
    assert lo < 2.10 and hi > 2.30
    # Runs that agree closely: their own intervals, combined as a mean's, set it.
    ratio, lo, hi = pooled([(1.50, 1.40, 1.60), (1.50, 1.40, 1.60), (1.50, 1.40, 1.60),
                            (1.50, 1.40, 1.60)])
    assert ratio == pytest.approx(1.5)
    assert (lo, hi) == pytest.approx((1.5 * (1.40 / 1.60) ** 0.25, 1.5 * (1.60 / 1.40) ** 0.25))
    assert pooled([(0.9, 0.8, 1.0)]) == (0.9, 0.8, 1.0)


def test_a_pooled_ratio_is_judged_again_on_its_pooled_interval(tmp_path: Path) -> None:
    # Each run resolves the driver as dearer; the runs disagree so much that together they
    # cannot tell it from the runtime.
    runs: list[Ratios] = [{("driver", "runtime"): (1.04, 1.02, 1.06, True)},
                          {("driver", "runtime"): (0.97, 0.95, 0.99, True)},
                          {("driver", "runtime"): (1.02, 1.01, 1.03, True)}]
    path = write(tmp_path / "runs.json", paired_runs(runs))
    row = next(r for r in ratio_rows(load(path)) if r.path == "driver")
    assert row.runs == 3 and row.lo < 1 < row.hi
    assert row.verdict == NOT_RESOLVED
    # Runs that agree: resolved together as each alone.
    steady = [{("driver", "runtime"): (0.93, 0.92, 0.94, True)}] * 3
    path = write(tmp_path / "steady.json", paired_runs(steady))
    row = next(r for r in ratio_rows(load(path)) if r.path == "driver")
    assert row.verdict == "cheaper" and row.hi < 0.99


def test_pooled_runs_without_the_band_resolve_what_every_run_and_the_pool_resolve(
        tmp_path: Path) -> None:
    """Runs written without the same-path band: a pooled ratio is resolved where the pooled
    interval clears 1 and every run resolved it, not by the first run's verdict alone."""
    def runs_of(*flags: bool) -> Path:
        entries = paired_runs([{("driver", "runtime"): (0.90, 0.88, 0.92, flag)}
                               for flag in flags])
        for entry in entries:
            for key in ("same_path_vs_runtime", "same_path_vs_runtime_lo",
                        "same_path_vs_runtime_hi"):
                entry.pop(key, None)
        return write(tmp_path / f"runs_{len(flags)}_{sum(flags)}.json", entries)

    def verdict(path: Path) -> str:
        return next(r for r in ratio_rows(load(path)) if r.path == "driver").verdict

    assert verdict(runs_of(True, True, True)) == "cheaper"
    assert verdict(runs_of(True, False, True)) == NOT_RESOLVED
    assert verdict(runs_of(False, True, True)) == NOT_RESOLVED


def test_per_process_levels_part_single_runs_but_not_pooled_processes(tmp_path: Path) -> None:
    # What the H200 shows: each process sits at a level of its own (here spread by 3.5%), and
    # one process's interval (here +-2%) covers its blocks only. Two runs part; two recordings
    # of five processes each, pooled, agree.
    rng = np.random.default_rng(26)

    def process() -> Ratios:
        level = 2.2 * float(np.exp(rng.normal(0, 0.035)))
        return {("driver", "params0"): (level, level / 1.02, level * 1.02, True)}

    parted = pooled_parted = 0
    for trial in range(40):
        first = [process() for _ in range(5)]
        second = [process() for _ in range(5)]
        one = agreements(ratio_rows(load(write(tmp_path / "a1.json", paired_runs(first[:1])))),
                         ratio_rows(load(write(tmp_path / "b1.json", paired_runs(second[:1])))))
        five = agreements(ratio_rows(load(write(tmp_path / "a5.json", paired_runs(first)))),
                          ratio_rows(load(write(tmp_path / "b5.json", paired_runs(second)))))
        parted += sum(not p.overlap for p in one if p.first.path == "driver")
        pooled_parted += sum(not p.overlap for p in five if p.first.path == "driver")
    assert parted >= 8
    assert pooled_parted <= 1


@pytest.mark.parametrize("context, words", [
    ({}, "One run"),
    ({"merged_runs": 5}, "Pooled over 5 separate processes"),
])
def test_the_output_says_what_its_intervals_cover(run_script: RunScript, tmp_path: Path,
                                                  context: dict[str, Any], words: str) -> None:
    runs = [RATIOS] * (context.get("merged_runs", 1))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document(paired_runs(runs), **context)))
    done = run_script("ratios", path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(words)


def test_repetitions_of_one_process_say_they_miss_the_process_level(run_script: RunScript,
                                                                   tmp_path: Path) -> None:
    path = write(tmp_path / "reps.json", paired_runs([RATIOS] * 3))
    done = run_script("ratios", path, "--sentences")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("Pooled over 3 repetitions of one process")
    assert "scripts/gpubench-tools record" in done.stdout.splitlines()[0]


def test_runs_that_hold_different_ratios_are_refused_in_one_line(run_script: RunScript,
                                                                 tmp_path: Path) -> None:
    entries = paired_runs([RATIOS, RATIOS])
    second = next(e for e in entries if e.get("repetition_index") == 1)
    for key in [k for k in second if k.startswith("driver_vs_runtime")]:
        del second[key]
    path = write(tmp_path / "odd.json", entries)
    done = run_script("ratios", path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "its runs hold different ratios" in done.stderr


def test_the_documented_launch_lead_is_what_the_command_prints_of_the_committed_file(
        run_script: RunScript) -> None:
    # docs/results.md names the command whose output it quotes: its bullets must be that
    # output's first benchmark, from the committed file, so the lead cannot drift from the numbers.
    readme = (SCRIPTS.parent / "docs" / "results.md").read_text().splitlines()
    marker = "<!-- the output of: scripts/gpubench-tools ratios "
    start = next(i for i, line in enumerate(readme) if line.startswith(marker))
    command = readme[start][len("<!-- the output of: "):-len(" -->")].split()
    bullets = []
    for line in readme[start + 2:]:
        if not line.startswith("- "):
            break
        bullets.append(line[2:])
    done = run_script(command[1], *[str(SCRIPTS.parent / a) if a.endswith(".json")
                                    else a for a in command[2:]])
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()[1:]  # after the note on what the intervals cover
    next_benchmark = next(i for i, line in enumerate(printed)
                          if i > 0 and line.startswith("launch/paired/"))
    assert bullets == printed[:next_benchmark]
