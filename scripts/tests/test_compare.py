import gzip
import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import H200, SCRIPTS, RunScript
from gbench_builder import (
    copy_run,
    document,
    launch_run,
    load_json,
    module_run,
    recorded,
    recorded_baseline,
    saxpy_run,
    scaled,
    with_counters,
    with_repetitions,
    write_json,
)

from gpubench_tools.cli.compare import parse_args, rules_from
from gpubench_tools.models import comparison
from gpubench_tools.models.comparison import (
    SAME,
    SLOWER,
    Row,
    mann_whitney_p,
    natural_key,
    reachable,
)
from gpubench_tools.reading.facts import strip_gb_suffixes
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.results import Benchmark
from gpubench_tools.renderers.comparison_text import TABLE_HEADERS

SIZE = 1 << 20
COPY = f"copy/HtoD/pinned/async/{SIZE}"
LAUNCH = "launch/runtime/submit/params:0"
COLUMNS = {name: i for i, name in enumerate(TABLE_HEADERS)}
LAUNCH_INTERLEAVED = H200 / "stability" / "launch_submit_interleaved_10rep.json"
LAUNCH_CONSECUTIVE = H200 / "stability" / "launch_submit_halfsecond_10rep.json"
COPY_INTERLEAVED = H200 / "stability" / "copy_64m_256m_interleaved_10rep.json"
COPY_1G_INTERLEAVED = H200 / "stability" / "copy_1g_interleaved_10rep.json"
CI_NEW_1 = H200 / "comparison" / "ci_new_1.json"
CI_NEW_2 = H200 / "comparison" / "ci_new_2.json"
AA_1 = H200 / "verdicts" / "aa_1.json.gz"
AA_2 = H200 / "verdicts" / "aa_2.json.gz"


def suite(gbps: Any = 50.0, us: Any = 2.0, **kw: Any) -> list[dict]:
    return copy_run("HtoD", "pinned", "async", SIZE, gbps, **kw) + launch_run(
        "runtime", "submit", 0, us, **kw)


def compare(tmp_path: Path, run_script: RunScript, base: list[dict], cont: list[dict],
            *args: object, cont_context: dict | None = None):
    b = write_json(tmp_path / "base.json", recorded_baseline(base))
    c = write_json(tmp_path / "cont.json", document(cont, **(cont_context or {})))
    return run_script("compare", b, c, "--markdown", *args)


def rows(markdown: str) -> dict[str, dict[str, str]]:
    """Benchmark table rows of gpubench-tools compare's markdown, by benchmark name, by column."""
    found = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(COLUMNS) and "/" in cells[0]:
            found[cells[0]] = dict(zip(TABLE_HEADERS, cells))
    return found


def row(markdown: str, name: str) -> dict[str, str]:
    return rows(markdown)[name]


def test_identical_inputs_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    copy = row(proc.stdout, COPY)
    assert (copy["NEW vs BASE"], copy["resolution"], copy["verdict"]) == \
        ("1.00×", "1.03×", "SAME")
    assert "Regression check: same GPU, driver and CUDA" in proc.stdout
    assert "OK: 0 of 2 benchmark(s) regressed" in proc.stdout


@pytest.mark.parametrize("base", [CI_NEW_1, "single"])
def test_a_baseline_of_one_process_is_no_regression_check(tmp_path: Path, run_script: RunScript,
                                                          base: Path | str) -> None:
    """One process's run leaves out what moves between processes: two runs of one binary on the
    H200 (ci_new_1.json, ci_new_2.json, five repetitions each within 0.1%) put the 1 MiB
    device-to-device copy 1.05× apart, which their U test calls a regression. A BASE without
    merged_runs, with repetitions or without, is one line and exit 3; --report compares."""
    new = CI_NEW_2
    if base == "single":
        base = write_json(tmp_path / "single.json", document(suite()))
        new = write_json(tmp_path / "new.json", document(suite()))
    proc = run_script("compare", base, new)
    assert proc.returncode == 3 and proc.stdout.startswith("REPORT: "), proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        f"gpubench-tools compare: no regression check: BASE {base} is one process's run")
    assert "scripts/gpubench-tools record" in proc.stderr and "--report" in proc.stderr
    report = run_script("compare", CI_NEW_1, CI_NEW_2, "--report")
    assert report.returncode == 0, report.stderr
    assert "Comparison report, not a regression check (BASE is one process's run)" in \
        report.stdout
    assert report.stdout.startswith("REPORT: 41 benchmark(s) compared: 0 FASTER, 1 SLOWER")
    # The same runs as a recorded baseline are a regression check, which finds the copy.
    base = recorded(json.loads(CI_NEW_1.read_text()))
    check = run_script("compare", write_json(tmp_path / "recorded.json", base), CI_NEW_2)
    assert check.returncode == 1 and "FAIL: 1 of 41" in check.stdout, check.stderr


@pytest.mark.parametrize("count", ["5", 0, -1, True, 1.5, None, [5], 2**17 + 1, 10**30])
def test_a_merged_runs_that_is_no_count_is_one_line(tmp_path: Path, run_script: RunScript,
                                                    count: object) -> None:
    base = write_json(tmp_path / "base.json", document(suite(), merged_runs=count))
    for args in ((base, base), (base, base, "--report")):
        proc = run_script("compare", *args)
        assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
        assert proc.stderr == (f"gpubench-tools compare: {base}: merged_runs {str(count)!r} is no "
                               "count of runs\n")


@pytest.mark.parametrize(("contender", "name", "ratio"), [
    (suite(gbps=40.0), COPY, "1.25× slower"),  # bandwidth 1.25 times lower
    (suite(us=2.5), LAUNCH, "1.25× slower"),  # launch time 1.25 times longer
])
def test_flags_planted_regression(tmp_path: Path, run_script: RunScript, contender: list[dict],
                                  name: str, ratio: str) -> None:
    proc = compare(tmp_path, run_script, suite(), contender)
    assert proc.returncode == 1
    changed = row(proc.stdout, name)
    assert (changed["NEW vs BASE"], changed["verdict"]) == (ratio, "SLOWER")
    assert "FAIL: 1 of 2 benchmark(s) regressed" in proc.stdout


@pytest.mark.parametrize(("contender", "written"), [
    (suite(gbps=40.0, us=2.5),
     f"^(copy/HtoD/pinned/async/{SIZE}|launch/runtime/submit/params\\:0)(/|$)\n"),
    (suite(gbps=60.0), f"^copy/HtoD/pinned/async/{SIZE}(/|$)\n"),  # FASTER
    (suite(), ""),
])
def test_changed_filter_names_the_changes(tmp_path: Path, run_script: RunScript,
                                          contender: list[dict], written: str) -> None:
    """What gpubench-tools gate confirms: the benchmarks found SLOWER or FASTER, as a gpubench
    filter."""
    out = tmp_path / "changed.txt"
    compare(tmp_path, run_script, suite(), contender, "--changed-filter", out)
    assert out.read_text(encoding="utf-8") == written


def test_changed_filter_unwritable_is_one_line(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--changed-filter", tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("gpubench-tools compare: ") and proc.stderr.count("\n") == 1


def test_a_median_that_contradicts_its_repetitions_is_one_line(tmp_path: Path,
                                                              run_script: RunScript) -> None:
    """Every repetition ten times slower beside the median of the base: no verdict on it."""
    lying = suite(us=[2.0, 2.1, 2.2])
    for entry in lying:
        if entry["run_type"] == "iteration" and entry["run_name"].startswith(LAUNCH):
            entry.update(real_time=10 * entry["real_time"],
                         us_per_launch=10 * entry["us_per_launch"])
    proc = compare(tmp_path, run_script, suite(us=[2.0, 2.1, 2.2]), lying)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("gpubench-tools compare: ") and proc.stderr.count("\n") == 1
    assert "median aggregate of 'real_time' is 2.1, the median of its 3 repetitions 21" \
        in proc.stderr


@pytest.mark.parametrize(("again", "status", "copy_verdict", "launch_verdict"), [
    (suite(gbps=40.0, us=2.5), 1, "SLOWER (confirmed)", "SLOWER (confirmed)"),
    (suite(us=2.5), 1, "SAME (SLOWER not confirmed)", "SLOWER (confirmed)"),
    (suite(gbps=60.0, us=2.5), 1, "SAME (SLOWER not confirmed)", "SLOWER (confirmed)"),
    (suite(), 0, "SAME (SLOWER not confirmed)", "SAME (SLOWER not confirmed)"),
])
def test_confirm_judges_each_change_again_on_its_runs_alone(
        tmp_path: Path, run_script: RunScript, again: list[dict], status: int,
        copy_verdict: str, launch_verdict: str) -> None:
    confirm = write_json(tmp_path / "confirm.json", document(again))
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0, us=2.5), "--confirm", confirm)
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert row(proc.stdout, COPY)["verdict"] == copy_verdict
    assert row(proc.stdout, LAUNCH)["verdict"] == launch_verdict
    assert f"CONFIRM: {confirm}: each change NEW shows judged again" in proc.stdout


def test_confirm_leaves_what_did_not_change(tmp_path: Path, run_script: RunScript) -> None:
    """Only changes are judged again: a benchmark SAME in NEW stays SAME, whatever CONFIRM."""
    confirm = write_json(tmp_path / "confirm.json", document(suite(gbps=40.0, us=2.5)))
    proc = compare(tmp_path, run_script, suite(), suite(), "--confirm", confirm)
    assert proc.returncode == 0
    assert {r["verdict"] for r in rows(proc.stdout).values()} == {"SAME"}


def test_confirm_on_the_h200s_runs(run_script: RunScript, tmp_path: Path) -> None:
    """The gate's first five runs and five runs of the changed benchmarks alone, on one H200,
    against the committed baseline of another: the confirming runs clear the 64 MiB
    bidirectional copy and two small chases, and confirm graph replay, the graph's GPU gap and
    the large chases, which differ between the two cards."""
    recording = json.loads(gzip.open(H200 / "verdicts" / "gate_aa" / "filtered_confirm"
                                     / "gate.json.gz").read())
    first = write_json(tmp_path / "first.json", with_repetitions(recording, lambda i: i < 5))
    again = write_json(tmp_path / "again.json", with_repetitions(recording, lambda i: i >= 5))
    proc = run_script("compare", H200 / "ci_baseline.json", first, "--confirm", again,
                      "--markdown", "--only-changed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = rows(proc.stdout)
    assert found["copy/bidir/pinned/async/67108864"]["verdict"] == "SAME (SLOWER not confirmed)"
    assert found["latency/chase/device/2097152"]["verdict"] == "SAME (FASTER not confirmed)"
    assert found["launch/graph_nodes/replay_gpu/nodes:2048"]["verdict"] == "FASTER (confirmed)"
    assert sum(r["verdict"] == "FASTER (confirmed)" for r in found.values()) == 7


SAME_CARD = H200 / "verdicts" / "gate_aa" / "same_card" / "aa25.json.gz"
PLANTED = H200 / "verdicts" / "gate_aa" / "planted"


def test_the_gate_on_one_card_finds_nothing_in_unchanged_code(run_script: RunScript,
                                                              tmp_path: Path) -> None:
    """The gate as it runs, on one H200: 15 runs of the suite as the baseline, its own five
    candidate runs (repetitions 15-19) and five more: neither five finds a change."""
    recording = json.loads(gzip.open(SAME_CARD).read())
    base = write_json(tmp_path / "base.json", with_repetitions(recording, lambda i: i < 15))
    for name, keep in (("gate", lambda i: 15 <= i < 20), ("more", lambda i: i >= 20)):
        new = write_json(tmp_path / f"{name}.json", with_repetitions(recording, keep))
        proc = run_script("compare", base, new, "--markdown")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert len(found := rows(proc.stdout)) == 657
        assert {r["verdict"] for r in found.values()} == {"SAME"}


def test_the_gate_confirms_a_planted_slowdown_on_the_h200s_runs(run_script: RunScript,
                                                                 tmp_path: Path) -> None:
    """gpubench-tools gate's runs on an H200 against a baseline with 8 saxpy figures planted 8%
    faster: those 8 are SLOWER in the first five runs and in the five confirming ones, nothing
    else."""
    base = tmp_path / "base.json"
    subprocess.run([sys.executable,
                    H200.parents[1] / "tools" / "planted_baselines" / "saxpy_2p24_faster.py", base],
                   check=True)
    runs = {name: tmp_path / f"{name}.json" for name in ("gate", "gate.confirm")}
    for name, path in runs.items():
        path.write_bytes(gzip.open(PLANTED / f"{name}.json.gz").read())
    proc = run_script("compare", base, runs["gate"], "--confirm", runs["gate.confirm"],
                      "--markdown")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    changed = {n for n, r in rows(proc.stdout).items() if r["verdict"] != "SAME"}
    assert changed == {f"saxpy/{v}/16777216" for v in ("cublas", "driver", "graph", "runtime",
                                                       "thrust", "vec4", "vec4_tile",
                                                       "vec4_tile_streaming")}
    assert {rows(proc.stdout)[n]["verdict"] for n in changed} == {"SLOWER (confirmed)"}


@pytest.mark.parametrize(("context", "key"), [({"gpu_uuid": "GPU-other"}, "gpu_uuid"),
                                              ({"gpubench_version": "0.0.1"}, "gpubench_version"),
                                              ({"driver_version": "1.0"}, "driver_version")])
def test_confirming_runs_of_another_gpu_or_build_are_one_line(
        tmp_path: Path, run_script: RunScript, context: dict, key: str) -> None:
    confirm = write_json(tmp_path / "confirm.json", document(suite(gbps=40.0), **context))
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--confirm", confirm)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools compare: {confirm}: {key} ")


@pytest.mark.parametrize("side", ["base", "cont"])
def test_confirming_runs_that_are_a_side_are_one_line(tmp_path: Path, run_script: RunScript,
                                                      side: str) -> None:
    """--confirm naming NEW would confirm every change with the runs that showed it; naming
    BASE would clear every one. Either file, by any path to it, is refused."""
    spelled = tmp_path / ".." / tmp_path.name / f"{side}.json"
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--confirm", spelled)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    label = {"base": "BASE", "cont": "NEW"}[side]
    assert proc.stderr == (f"gpubench-tools compare: {spelled}: is {label} "
                           f"({tmp_path / f'{side}.json'}): the confirming runs must be runs of "
                           "their own\n")


@pytest.mark.parametrize("content", ["", "[1, 2]", "{\"context\": {}}", "\x00\xff"])
def test_an_unusable_confirm_file_is_one_line(tmp_path: Path, run_script: RunScript,
                                              content: str) -> None:
    confirm = tmp_path / "confirm.json"
    confirm.write_text(content, encoding="utf-8", errors="surrogateescape")
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--confirm", confirm)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools compare: {confirm}: ")


def test_one_symmetric_measure_of_change(tmp_path: Path, run_script: RunScript) -> None:
    """Half the bandwidth and twice the time are the same change; so are their reverses."""
    slower = compare(tmp_path, run_script, suite(), suite(gbps=25.0, us=4.0))
    faster = compare(tmp_path, run_script, suite(gbps=25.0, us=4.0), suite())
    assert {r["NEW vs BASE"] for r in rows(slower.stdout).values()} == {"2.00× slower"}
    assert {r["NEW vs BASE"] for r in rows(faster.stdout).values()} == {"2.00× faster"}
    assert "change %" not in slower.stdout


def test_improvements_are_faster_and_pass(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=60.0, us=1.6))
    assert proc.returncode == 0
    copy, launch = row(proc.stdout, COPY), row(proc.stdout, LAUNCH)
    assert (copy["NEW vs BASE"], copy["verdict"]) == ("1.20× faster", "FASTER")
    assert (launch["NEW vs BASE"], launch["verdict"]) == ("1.25× faster", "FASTER")


@pytest.mark.parametrize(("threshold", "status", "verdict"), [(5, 0, "SAME"), (2, 1, "SLOWER")])
def test_threshold(tmp_path: Path, run_script: RunScript, threshold: float, status: int,
                   verdict: str) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=50.0 * 0.97),
                   f"--threshold={threshold}")
    assert proc.returncode == status
    assert row(proc.stdout, COPY)["verdict"] == verdict
    assert row(proc.stdout, COPY)["resolution"] == f"{1 + threshold / 100:.2f}×"


def robust_spread(values: list[float]) -> float:
    values = np.asarray(values)
    return 100 * 1.4826 * np.median(np.abs(values - np.median(values))) / np.median(values)


@pytest.mark.parametrize(("factor", "verdict"), [(0.92, "SAME"), (0.8, "SLOWER")])
def test_resolution_is_the_spread_of_both_medians(tmp_path: Path, run_script: RunScript,
                                                  factor: float, verdict: str) -> None:
    """Each side's figure is the median of 5 repetitions whose own spread is 6.7%: its spread
    is sqrt(pi/2)/sqrt(5) of that, and the resolution twice both sides' combined, 10.6% (BASE's
    farthest repetition lies 9.9% from its median). A change of 1.09× stays under it; one of
    1.25× passes it and parts the repetitions fully, as the U test at 0.01 needs with 5 a
    side."""
    base = [10.0, 10.9, 9.1, 10.45, 9.55]
    new = [factor * g for g in base]
    proc = compare(tmp_path, run_script, suite(gbps=base), suite(gbps=new))
    copy = row(proc.stdout, COPY)
    assert float(copy["spread % BASE"]) == pytest.approx(robust_spread(base), abs=0.005)
    assert float(copy["spread % NEW"]) == pytest.approx(robust_spread(new), abs=0.005)
    resolution = 2 * np.hypot(robust_spread(base), robust_spread(new)) \
        * np.sqrt(np.pi / 2) / np.sqrt(5)
    assert resolution == pytest.approx(10.6, abs=0.05)
    assert copy["resolution"] == f"{1 + resolution / 100:.2f}×"
    assert copy["verdict"] == verdict
    assert proc.returncode == (verdict == "SLOWER")


def test_one_odd_repetition_does_not_widen_the_resolution(tmp_path: Path,
                                                          run_script: RunScript) -> None:
    base = [50.0, 50.1, 49.9, 50.05, 49.95]
    new = [g / 1.05 for g in base[:4]] + [40.0]  # one repetition met a stalled host
    proc = compare(tmp_path, run_script, suite(gbps=base), suite(gbps=new))
    copy = row(proc.stdout, COPY)
    assert 100 * np.std(new, ddof=1) / np.mean(new) > 7  # a CV would make it 1.15×
    assert copy["resolution"] == "1.03×" and copy["verdict"] == "SLOWER"


# 15 baseline runs within 0.5% of 50 GB/s, and one that landed 12% lower: the build did that by
# itself once in 15 processes.
ODD_BASELINE = [50.0, 50.2, 49.8, 50.1, 49.9, 50.25, 49.75, 50.05, 49.95, 50.15, 49.85, 50.0,
                50.1, 49.9, 44.0]


@pytest.mark.parametrize(("args", "resolution", "verdict"), [
    ((), "1.14×", "SAME"),  # BASE's farthest run, 12% off: the build did that by itself
    (("--reach-chance=0.1",), "1.03×", "SLOWER"),  # BASE's third lowest, 49.8
])
def test_five_runs_are_held_against_the_baseline_run_their_median_may_pass(
        tmp_path: Path, run_script: RunScript, args: tuple[str, ...], resolution: str,
        verdict: str) -> None:
    """NEW's figure is the median of its 5 runs. By default its change must pass BASE's
    farthest run; with --reach-chance=0.1, the least far BASE run that a median of 5 runs of
    BASE's build passes with a chance of 10% or less, BASE's third lowest of 15 (7.3%)."""
    new = [g / 1.06 for g in ODD_BASELINE[:5]]
    proc = compare(tmp_path, run_script, suite(gbps=ODD_BASELINE), suite(gbps=new), *args)
    copy = row(proc.stdout, COPY)
    assert (copy["resolution"], copy["verdict"]) == (resolution, verdict)
    assert proc.returncode == (verdict == "SLOWER")


def test_a_single_run_is_held_against_the_farthest_baseline_run(
        tmp_path: Path, run_script: RunScript) -> None:
    """One run lies past BASE's farthest of 15 with a chance of 1/16, past its second farthest
    with 2/16: at --reach-chance=0.1 it is still held against the farthest, 12% off."""
    proc = compare(tmp_path, run_script, suite(gbps=ODD_BASELINE), suite(gbps=50.0 / 1.06),
                   "--reach-chance=0.1")
    copy = row(proc.stdout, COPY)
    assert (copy["resolution"], copy["verdict"]) == ("1.14×", "SAME")
    assert proc.returncode == 0


def test_noise_pct_of_single_runs(tmp_path: Path, run_script: RunScript) -> None:
    """gpubench's noise_pct gives a run without repetitions its spread: 4% a side makes the
    resolution 2 * hypot(4, 4) = 11.3%."""
    noisy = {"noise_pct": 4.0, "host_timed": 0}
    base = suite(counters=noisy)
    same = compare(tmp_path, run_script, base, suite(gbps=50 / 1.10, counters=noisy))
    assert row(same.stdout, COPY)["resolution"] == "1.11×"
    assert row(same.stdout, COPY)["verdict"] == "SAME"
    slower = compare(tmp_path, run_script, base, suite(gbps=50 / 1.15, counters=noisy))
    assert row(slower.stdout, COPY)["verdict"] == "SLOWER" and slower.returncode == 1


@pytest.mark.parametrize(("counters", "slowdown", "verdict", "resolution"), [
    ({"host_timed": 1}, 1.20, "SAME", "1.25×"),  # the host's speed moves this much
    ({"host_timed": 1}, 1.50, "SLOWER", "1.25×"),
    ({"host_timed": 0}, 1.20, "SLOWER", "1.03×"),
    ({}, 1.20, "SLOWER", "1.03×"),  # written before host_timed: the spread and 3% alone
])
def test_host_timed_figures_have_their_own_floor(tmp_path: Path, run_script: RunScript,
                                                 counters: dict, slowdown: float, verdict: str,
                                                 resolution: str) -> None:
    base = launch_run("runtime", "submit", 0, 4.0, counters=counters)
    new = launch_run("runtime", "submit", 0, 4.0 * slowdown, counters=counters)
    launch = row(compare(tmp_path, run_script, base, new).stdout, LAUNCH)
    assert (launch["verdict"], launch["resolution"]) == (verdict, resolution)
    assert launch["clock"] == {1: "host", 0: "GPU"}.get(counters.get("host_timed"), "-")


def test_too_few_repetitions_noted(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(gbps=[10.0, 10.1]), suite(gbps=[5.0, 5.1]))
    assert proc.returncode == 0
    assert "too few repetitions" in proc.stdout


@pytest.mark.parametrize("ties", [False, True])
def test_reachable_says_what_the_u_test_can_give(ties: bool) -> None:
    """Over every size up to 20 runs a side, fully separated samples (a change no run of either
    side hides) give p < 0.01 exactly where reachable() says so, with values that tie within a
    side or none: where scipy approximates the p of few runs (a tie, or both sides past 8), its
    smallest p is larger than the exact one (3 runs against 13: 0.0106, not 0.0036)."""
    alpha = 0.01
    for base_runs, new_runs in itertools.product(range(2, 21), repeat=2):
        base = [100.0 + i for i in range(base_runs)]
        new = [200.0 + i for i in range(new_runs)]
        if ties:
            base[1] = base[0]
        p = mann_whitney_p(base, new)
        assert (p < alpha) == reachable(base_runs, new_runs, alpha, ties=ties), (
            base_runs, new_runs, p)
        if reachable(base_runs, new_runs, alpha):
            assert p < alpha, (base_runs, new_runs, p)


def test_a_benchmarks_own_ties_say_whether_its_change_can_be_found() -> None:
    """3 runs against 13: with a tie or two the U test gives no p < 0.01, and the report counts
    the benchmark as held SAME; with every baseline run at one value (a figure that steps) the
    ties' correction lets it."""
    new = np.array([200.0, 201.0, 202.0])
    one_tie = np.array([100.0, 100.0, *range(101, 112)])
    many_ties = np.array([100.0] * 13)
    assert comparison.separated_p(one_tie, new) >= 0.01
    assert comparison.separated_p(many_ties, new) < 0.01
    assert comparison.separated_p(one_tie, new) == mann_whitney_p(one_tie, new)


def test_aggregates_only_uses_the_cv_aggregate(tmp_path: Path, run_script: RunScript) -> None:
    reps = [50.0, 50.5, 49.5]
    proc = compare(tmp_path, run_script, suite(gbps=reps, aggregates_only=True),
                   suite(gbps=[0.5 * g for g in reps], aggregates_only=True))
    assert proc.returncode == 1
    copy = row(proc.stdout, COPY)
    assert copy["p"] == "-" and copy["verdict"] == "SLOWER"
    # The cv aggregate is the noise that is left.
    assert float(copy["spread % BASE"]) == pytest.approx(100 * np.std(reps, ddof=1) / 50.0,
                                                         abs=0.005)
    assert "--benchmark_report_aggregates_only=true" in proc.stdout
    assert proc.stdout.count("holds no repetitions") == 2


def test_single_runs_are_noted(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=[49.0, 50.0, 51.0]))
    assert proc.returncode == 0
    assert "BASE (" in proc.stdout and "one run per benchmark" in proc.stdout
    assert "scripts/gpubench-tools record" in proc.stdout
    assert row(proc.stdout, COPY)["repetitions"] == "- / 3"


def test_different_gpu_cannot_be_compared(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0, us=2.5),
                   cont_context={"gpu_name": "NVIDIA H100", "pcie_link": "Gen3 x8"})
    assert proc.returncode == 3 and proc.stdout.startswith("## gpubench comparison\n\nREPORT: ")
    assert row(proc.stdout, COPY)["NEW vs BASE"] == "2.00× slower"
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gpubench-tools compare: no regression check: gpu_name differ")
    assert "NVIDIA H100" in proc.stderr and "--report" in proc.stderr


def test_different_gpu_with_report(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0, us=2.5), "--report",
                   cont_context={"gpu_name": "NVIDIA H100", "pcie_link": "Gen3 x8"})
    assert proc.returncode == 0, proc.stdout
    assert "Comparison report, not a regression check (gpu_name differ)" in proc.stdout
    assert row(proc.stdout, COPY)["NEW vs BASE"] == "2.00× slower"
    assert "| gpu_name | NVIDIA H200 | NVIDIA H100 |" in proc.stdout
    assert "| pcie_link | (absent) | Gen3 x8 |" in proc.stdout
    assert "REPORT: 2 benchmark(s) compared: 0 FASTER, 2 SLOWER, 0 SAME." in proc.stdout


@pytest.mark.parametrize("key", ["driver_version", "cuda_runtime_version"])
def test_driver_or_cuda_change_cannot_be_compared(tmp_path: Path, run_script: RunScript,
                                                  key: str) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=35.0), cont_context={key: "9.9"})
    assert proc.returncode == 3 and "REPORT: " in proc.stdout
    assert proc.stderr.startswith(f"gpubench-tools compare: no regression check: {key} differ")
    report = compare(tmp_path, run_script, suite(), suite(gbps=35.0), "--report",
                     cont_context={key: "9.9"})
    assert report.returncode == 0 and f"({key} differ)" in report.stdout


ENERGY = "NVML's energy counter from one of its updates to the first at least 10 updates later"
SAXPY = "saxpy/vec4/1048576"


def saxpy_suite(gbps: float = 1000.0) -> list[dict]:
    return suite() + saxpy_run("vec4", 1 << 20, [gbps, gbps * 1.001, gbps * 0.999], 4800.0)


@pytest.mark.parametrize(("base_context", "cont_context", "differing"), [
    ({"saxpy_l2": "warm"}, {"saxpy_l2": "cold"}, "saxpy_l2 warm vs cold"),
    ({}, {"energy": ENERGY}, "energy off vs on"),
    ({"energy": ENERGY, "saxpy_l2": "cold"}, {"saxpy_l2": "warm\n" + "x" * 500},
     "saxpy_l2 cold vs warm x"),
    ({"gpubench_build_type": "Release"}, {"gpubench_build_type": "Debug"},
     "gpubench_build_type Release vs Debug"),
    ({"benchmark_min_time": "0s"}, {"benchmark_min_time": "0.5s"},
     "benchmark_min_time 0s vs 0.5s"),
    ({"benchmark_min_warmup_time": "0s"}, {"benchmark_min_warmup_time": "2s"},
     "benchmark_min_warmup_time 0s vs 2s"),
])
def test_runs_measured_otherwise_are_no_regression_check(
        tmp_path: Path, run_script: RunScript, base_context: dict, cont_context: dict,
        differing: str) -> None:
    """A warm L2 against a cold one (or --energy on one side, a Debug build against a Release
    one, another --benchmark_min_time) moves figures with no change of code: no verdict of a
    regression check, one line naming the settings and exit 3; with --report, a report whose
    mode line names them."""
    b = write_json(tmp_path / "base.json", document(saxpy_suite(), **base_context))
    c = write_json(tmp_path / "cont.json", document(saxpy_suite(600.0), **cont_context))
    proc = run_script("compare", b, c)
    assert proc.returncode == 3 and proc.stdout.startswith("REPORT: "), proc.stderr
    assert proc.stderr.count("\n") == 1 and len(proc.stderr) < 700
    assert proc.stderr.startswith(
        f"gpubench-tools compare: no regression check: measured otherwise ({differing}")
    report = run_script("compare", b, c, "--report")
    assert report.returncode == 0, report.stderr
    assert f"Comparison report, not a regression check (measured otherwise: {differing}" \
        in report.stdout


@pytest.mark.parametrize(("base_filter", "new_filter", "note"), [
    (None, "^saxpy/", "BASE states no --benchmark_filter, NEW --benchmark_filter=^saxpy/:"),
    ("^(saxpy|copy)/", None,
     "BASE states --benchmark_filter=^(saxpy|copy)/, NEW no --benchmark_filter:"),
    ("^saxpy/\x1b[2J", "^saxpy/", "BASE states --benchmark_filter=^saxpy/\\x1b[2J, NEW"),
    ("^saxpy/", "^saxpy/", None),
])
def test_runs_of_different_filters_are_noted(tmp_path: Path, run_script: RunScript,
                                             base_filter: str | None, new_filter: str | None,
                                             note: str | None) -> None:
    """A benchmark run among fewer others can measure otherwise: where the two runs were given
    different filters (one of them none), a note says so, and the check is still made."""
    def filtered(text: str | None) -> dict:
        return {} if text is None else {"benchmark_filter": text}
    b = write_json(tmp_path / "base.json",
                   recorded_baseline(saxpy_suite(), **filtered(base_filter)))
    c = write_json(tmp_path / "cont.json", document(saxpy_suite(), **filtered(new_filter)))
    proc = run_script("compare", b, c)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK: 0 of"), proc.stdout[:300]
    if note is None:
        assert "benchmark_filter" not in proc.stdout.replace("benchmark_filter:", ""), proc.stdout
    else:
        assert note in proc.stdout and "runs_by_stage.txt" in proc.stdout, proc.stdout


def test_saxpy_l2_is_no_setting_where_saxpy_is_not_compared(tmp_path: Path,
                                                             run_script: RunScript) -> None:
    """--l2 changes saxpy alone; a file that does not state it differs in nothing."""
    b = write_json(tmp_path / "base.json", recorded_baseline(saxpy_suite(), saxpy_l2="warm"))
    c = write_json(tmp_path / "cont.json", document(saxpy_suite(), saxpy_l2="cold"))
    proc = run_script("compare", b, c, "--filter", "^copy/")
    assert proc.returncode == 0 and "Regression check: same GPU" in proc.stdout, proc.stderr
    unstated = write_json(tmp_path / "unstated.json", document(saxpy_suite()))
    assert run_script("compare", b, unstated).returncode == 0
    # A file written before gpubench stated its build type is judged against either.
    release = write_json(tmp_path / "release.json",
                         document(saxpy_suite(), saxpy_l2="warm", gpubench_build_type="Release"))
    assert run_script("compare", b, release).returncode == 0


def test_confirming_runs_measured_otherwise_are_one_line(tmp_path: Path,
                                                         run_script: RunScript) -> None:
    confirm = write_json(tmp_path / "confirm.json",
                         document(suite(gbps=40.0), energy=ENERGY))
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--confirm", confirm)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools compare: {confirm}: measured otherwise than NEW "
                                  "(energy off vs on, NEW's first)")


@pytest.mark.parametrize(("new_filter", "confirm_filter", "shown"), [
    (None, "^launch/", "states --benchmark_filter=^launch/, NEW no --benchmark_filter"),
    ("^(copy|launch)/", None,
     "states no --benchmark_filter, NEW --benchmark_filter=^(copy|launch)/"),
])
def test_confirming_runs_given_another_filter_are_one_line(
        tmp_path: Path, run_script: RunScript, new_filter: str | None,
        confirm_filter: str | None, shown: str) -> None:
    """Runs of the changed benchmarks alone would judge them among fewer others than NEW ran
    them with, where some measure otherwise: the confirming runs are given NEW's filter."""
    def filtered(text: str | None) -> dict:
        return {} if text is None else {"benchmark_filter": text}
    confirm = write_json(tmp_path / "confirm.json",
                         document(suite(gbps=40.0), **filtered(confirm_filter)))
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--confirm", confirm,
                   cont_context=filtered(new_filter))
    assert (proc.returncode, proc.stdout) == (2, "") and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"gpubench-tools compare: {confirm}: {shown}: "), proc.stderr


@pytest.mark.parametrize("uuid", ["GPU-1111", "GPU-\x1b[31m\n" + "9" * 200])
def test_another_card_of_the_same_model_is_named(tmp_path: Path, run_script: RunScript,
                                                 uuid: str) -> None:
    """Still a regression check (exit 1 on SLOWER), whose mode line names both cards in one
    printable line."""
    proc = compare(tmp_path, run_script, suite(), suite(gbps=35.0),
                   cont_context={"gpu_uuid": uuid})
    assert proc.returncode == 1, proc.stderr
    mode = next(line for line in proc.stdout.splitlines() if line.startswith("Regression check"))
    assert "same GPU model, driver and CUDA" in mode and "BASE GPU-0000, NEW GPU-" in mode
    assert "\x1b" not in mode and len(mode) < 400
    same = compare(tmp_path, run_script, suite(), suite(gbps=35.0))
    assert "Regression check: same GPU, driver and CUDA (" in same.stdout
    assert "another card" not in same.stdout


def test_report_option_on_the_same_gpu(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=25.0), "--report")
    assert proc.returncode == 0
    assert "(--report)" in proc.stdout and row(proc.stdout, COPY)["verdict"] == "SLOWER"


def test_context_identical(tmp_path: Path, run_script: RunScript) -> None:
    assert "The contexts are identical." in compare(tmp_path, run_script, suite(), suite(),
                                                    cont_context={"merged_runs": 5}).stdout


def test_a_health_record_differs_by_its_fields(tmp_path: Path, run_script: RunScript) -> None:
    """Two health records (JSON objects) differ in the fields that differ, each a row, so a
    replayed PCIe packet is not one more value in a line of twenty; a record one file lacks,
    or that is no object, is one row as it stands."""
    health = {"ecc_mode": "enabled", "pcie_replay_count": 0, "xid_events": []}
    base = write_json(tmp_path / "base.json", recorded_baseline(
        suite(), gpu_health_after=json.dumps(health), gpu_health_before=json.dumps(health)))
    cont = write_json(tmp_path / "cont.json", document(
        suite(), gpu_health_after=json.dumps(dict(health, pcie_replay_count=2, xid_events=[79])),
        gpu_health_before="not a record", device_1_health_after=json.dumps(health)))
    proc = run_script("compare", base, cont)
    assert proc.returncode == 0, proc.stderr
    context = proc.stdout.split("Context differences")[1].split("Summary per family")[0]
    lines = [line.split() for line in context.splitlines()[3:] if line.strip()]
    assert ["gpu_health_after.pcie_replay_count", "0", "2"] in lines
    assert ["gpu_health_after.xid_events", "[]", "[79]"] in lines
    assert not {"gpu_health_after", "gpu_health_after.ecc_mode"} & {line[0] for line in lines}
    assert ["gpu_health_before", *json.dumps(health).split(), "not", "a", "record"] in lines
    assert ["device_1_health_after", "(absent)", *json.dumps(health).split()] in lines


def test_verdict_and_changes_lead(tmp_path: Path, run_script: RunScript) -> None:
    """The verdict, then the changes, SLOWER first, each with its ratio and uncertainty, then
    the count of SAME with the largest change within its resolution: a SAME row never stands
    above a SLOWER one."""
    base = suite() + launch_run("driver", "submit", 0, 2.0)
    new = suite(gbps=45.0, us=2.02) + launch_run("driver", "submit", 0, 3.0)
    b = write_json(tmp_path / "b.json", recorded_baseline(base))
    n = write_json(tmp_path / "n.json", document(new))
    plain = run_script("compare", b, n).stdout.splitlines()
    assert plain[0] == "FAIL: 2 of 3 benchmark(s) regressed (0 FASTER, 2 SLOWER, 1 SAME)."
    assert plain[2:8] == [
        "SLOWER (2), NEW vs BASE, the largest first:",
        "  launch/driver/submit/params:0: 1.50× slower (resolution 1.03×, spread - / -, "
        "no U test)",
        f"  {COPY}: 1.11× slower (resolution 1.03×, spread - / -, no U test)",
        "",
        "1 SAME, the largest changes within their resolution:",
        f"  {LAUNCH}: 1.01× slower (resolution 1.03×, spread - / -, no U test)"]
    assert plain[-1] == plain[0]
    markdown = run_script("compare", b, n, "--markdown").stdout.split("\n\n")
    assert markdown[0] == "## gpubench comparison" and markdown[1].startswith("FAIL: 2 of 3")
    assert markdown[2] == "SLOWER (2), NEW vs BASE, the largest first:"
    assert markdown[3].splitlines()[2].startswith("| launch/driver/submit/params:0 | 2 | 3 | µs")
    assert markdown[4].startswith("1 SAME, the largest changes within their resolution:\n- ")


def test_filter(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(us=4.0), "--filter=^copy/")
    assert proc.returncode == 0 and list(rows(proc.stdout)) == [COPY]
    assert "OK: 0 of 1 benchmark(s) regressed" in proc.stdout
    assert "Only in" not in proc.stdout  # launch is filtered out, not missing


@pytest.mark.parametrize(("pattern", "problem"), [
    ("^peer/", "no benchmark that --filter=^peer/ finds in common with"),
    ("copy/(", "argument --filter: not a regular expression"),
])
def test_filter_errors_are_one_line(tmp_path: Path, run_script: RunScript, pattern: str,
                                    problem: str) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(), f"--filter={pattern}")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gpubench-tools compare: ") and problem in proc.stderr


def test_rows_sorted_by_size_of_change_within_a_family(tmp_path: Path,
                                                       run_script: RunScript) -> None:
    sizes = [4096, 1 << 20, 1 << 26]
    base = sum((copy_run("HtoD", "pinned", "async", s, 50.0) for s in sizes), [])
    base += sum((launch_run("driver", "submit", p, 2.0) for p in (0, 8)), [])
    new = (copy_run("HtoD", "pinned", "async", 4096, 50 / 1.02)
           + copy_run("HtoD", "pinned", "async", 1 << 20, 50 * 1.3)
           + copy_run("HtoD", "pinned", "async", 1 << 26, 50 / 1.1)
           + launch_run("driver", "submit", 0, 2.0) + launch_run("driver", "submit", 8, 2.2))
    names = list(rows(compare(tmp_path, run_script, base, new).stdout))
    assert names == [f"copy/HtoD/pinned/async/{s}" for s in (1 << 20, 1 << 26, 4096)] + \
        ["launch/driver/submit/params:8", "launch/driver/submit/params:0"]


def test_natural_key() -> None:
    names = ["saxpy/vec4/1048576", "copy/HtoD/pinned/async/65536", "launch/g/submit/params:256",
             "copy/HtoD/pinned/async/4096", "launch/g/submit/params:32764", "copy/DtoH/x/y/8"]
    assert sorted(names, key=natural_key) == [
        "copy/DtoH/x/y/8", "copy/HtoD/pinned/async/4096", "copy/HtoD/pinned/async/65536",
        "launch/g/submit/params:256", "launch/g/submit/params:32764", "saxpy/vec4/1048576"]


def test_natural_key_orders_numbers_of_any_length() -> None:
    """A size of thousands of digits (past int()'s 4300) sorts as the number it is, and leading
    zeros do not change a number."""
    huge = "9" * 5000
    names = [f"copy/x/{huge}", "copy/x/0010", "copy/x/9", f"copy/x/1{huge}"]
    assert sorted(names, key=natural_key) == [
        "copy/x/9", "copy/x/0010", f"copy/x/{huge}", f"copy/x/1{huge}"]
    assert natural_key("copy/x/0010") == natural_key("copy/x/10")


def test_geometric_mean_per_family(tmp_path: Path, run_script: RunScript) -> None:
    base = (copy_run("HtoD", "pinned", "async", 4096, 10.0)
            + copy_run("HtoD", "pinned", "async", 8192, 10.0)
            + launch_run("driver", "submit", 0, 2.0) + launch_run("graph", "submit", 0, 1.0))
    new = (copy_run("HtoD", "pinned", "async", 4096, 20.0)  # 2× faster
           + copy_run("HtoD", "pinned", "async", 8192, 5.0)  # 2× slower
           + launch_run("driver", "submit", 0, 2.4) + launch_run("graph", "submit", 0, 1.2))
    proc = compare(tmp_path, run_script, base, new, "--report")
    summary = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
               for line in proc.stdout.split("### Summary per family")[1].splitlines()
               if line.startswith("| ") and not line.startswith("| family")}
    assert summary["copy"] == ["copy", "2", "1.00×", "1", "1", "0"]
    assert summary["launch"] == ["launch", "2", "1.20× slower", "0", "2", "0"]


def test_only_changed(tmp_path: Path, run_script: RunScript) -> None:
    proc = compare(tmp_path, run_script, suite(), suite(gbps=40.0), "--only-changed")
    assert list(rows(proc.stdout)) == [COPY]
    assert "launch: 1 compared, 0 changed" in proc.stdout
    assert "1 of 2 benchmark(s) regressed" in proc.stdout


def test_benchmarks_in_one_file_are_named_by_family(tmp_path: Path,
                                                    run_script: RunScript) -> None:
    extra = copy_run("DtoH", "pinned", "sync", 4096, 5.0) + module_run("ptx_jit", 900.0)
    sax = saxpy_run("vec4", 1024, 100.0, peak_gbps=4000.0)
    proc = compare(tmp_path, run_script, suite() + extra, suite() + sax)
    section = proc.stdout.split("### Benchmarks in one file only")[1]
    assert "Only in BASE (2), not compared:" in section
    assert "- copy (1): copy/DtoH/pinned/sync/4096" in section
    assert "- launch (1): launch/module/ptx_jit" in section
    assert "Only in NEW (1), not compared:" in section
    assert "- saxpy (1): all 1 (the other file has no saxpy benchmarks)" in section


def test_plain_text_table(tmp_path: Path, run_script: RunScript) -> None:
    b = write_json(tmp_path / "b.json", recorded_baseline(suite()))
    proc = run_script("compare", b, b)
    assert proc.returncode == 0
    line = next(line for line in proc.stdout.splitlines() if line.startswith(COPY))
    assert line.split()[1:4] == ["50", "50", "GB/s"] and line.split()[-1] == "SAME"
    assert "|" not in proc.stdout


# Real data: the H200's committed results.

def halves(tmp_path: Path, source: Path, aggregates_only: bool = False) -> tuple[Path, Path]:
    """An A/A pair: one run's repetitions 0-4 against its repetitions 5-9."""
    doc = load_json(source)
    first = with_repetitions(doc, lambda i: i < 5, aggregates_only)
    second = with_repetitions(doc, lambda i: i >= 5, aggregates_only)
    return (write_json(tmp_path / "first.json", first),
            write_json(tmp_path / "second.json", second))


@pytest.mark.parametrize("source", [LAUNCH_INTERLEAVED, COPY_INTERLEAVED, COPY_1G_INTERLEAVED])
def test_a_a_split_is_all_same(tmp_path: Path, run_script: RunScript, source: Path) -> None:
    first, second = halves(tmp_path, source)
    proc = run_script("compare", first, second, "--markdown", "--report")
    assert proc.returncode == 0, proc.stdout
    found = rows(proc.stdout)
    assert len(found) == len(load_json(source)["benchmarks"]) // 14  # 10 iterations + 4 aggregates
    assert {r["verdict"] for r in found.values()} == {"SAME"}
    assert {r["repetitions"] for r in found.values()} == {"5 / 5"}


def judged(base: dict, new: dict, tmp_path: Path, *flags: str) -> dict[str, Row]:
    """gpubench-tools compare's rows, by name, with its default rules and `flags` (in this process:
    many calls)."""
    rules = rules_from(parse_args(["base.json", "new.json", *flags]))
    judgement = comparison.compare(load(write_json(tmp_path / "base.json", base)),
                                   load(write_json(tmp_path / "new.json", new)), rules)
    return {r.name: r for r in judgement.rows}


def run_names(doc: dict, keep: Callable[[str], bool]) -> list[str]:
    return sorted({e["run_name"] for e in doc["benchmarks"]
                   if keep(strip_gb_suffixes(e["run_name"]))})


def slowed(doc: dict, runs: list[str], factor: float) -> dict:
    for run in runs:
        doc = scaled(doc, run, factor)
    return doc


def host_timed_launches(name: str) -> dict[str, float]:
    """host_timed as gpubench writes it, for the launch family (every figure host-timed)."""
    return {"host_timed": 1.0 if name.startswith("launch/") else 0.0}


def test_consecutive_halves_move_with_the_host(tmp_path: Path) -> None:
    """Ten consecutive repetitions: the host's speed moved between the first five and the last
    five by more than either half's spread. The spread alone flags it; the host-timed floor,
    once the file says the figures are host-timed, does not."""
    doc = load_json(LAUNCH_CONSECUTIVE)
    first = with_repetitions(doc, lambda i: i < 5)
    second = with_repetitions(doc, lambda i: i >= 5)
    moved = {n for n, r in judged(first, second, tmp_path).items() if r.verdict != SAME}
    assert "launch/driver_extra/submit/params:8" in moved
    first, second = (with_counters(d, host_timed_launches) for d in (first, second))
    rows_ = judged(first, second, tmp_path)
    assert {r.verdict for r in rows_.values()} == {SAME}
    assert {r.host_timed for r in rows_.values()} == {True}


def relative_range(doc: dict, run: str) -> float:
    values = [b["bytes_per_second"] for b in doc["benchmarks"]
              if b["run_name"] == run and b.get("run_type") != "aggregate"]
    return float(np.ptp(values) / np.median(values))


@pytest.mark.parametrize("source", [COPY_INTERLEAVED, COPY_1G_INTERLEAVED])
def test_five_percent_slower_gpu_timed_copies_are_caught(tmp_path: Path, source: Path) -> None:
    """Every event-timed copy of the second half made 5% slower: each is flagged, but for some
    copies both ways at once (bidir), whose repetitions move by more than 5% inside one run."""
    doc = load_json(source)
    first = with_repetitions(doc, lambda i: i < 5)
    second = with_repetitions(doc, lambda i: i >= 5)
    # Pageable copies are staged by the driver on the host, so never gated: not GPU-timed.
    gpu_timed = run_names(doc, lambda n: ("/async/" in n or "/zerocopy/" in n)
                          and "/pageable/" not in n)
    assert len(gpu_timed) >= 10
    unplanted = judged(first, second, tmp_path)
    rows_ = judged(first, slowed(second, gpu_timed, 1.05), tmp_path)
    for run in gpu_timed:
        row_ = rows_[strip_gb_suffixes(run)]
        if "/bidir/" in run:
            # Both directions at once move by 5-20% between repetitions of one run (each half's
            # range): a miss is where a half ranges over more than 10%, or the second was faster
            # to begin with.
            name = strip_gb_suffixes(run)
            assert row_.verdict == SLOWER or unplanted[name].ratio > 1.03 or max(
                relative_range(first, run), relative_range(second, run)) > 0.10, (run, row_)
        else:
            assert row_.verdict == SLOWER, (run, row_)
    untouched = [r for n, r in rows_.items() if n + "/manual_time" not in gpu_timed]
    assert {r.verdict for r in untouched} == {SAME}


def test_half_again_slower_launches_are_caught(tmp_path: Path) -> None:
    """Every launch figure of the second half made 1.5 times slower, the file saying they are
    host-timed: each is flagged but where the halves themselves are already 1.15 times apart
    the other way (the host's speed moved that much inside one run), which leaves the planted
    change under the 1.25× floor."""
    doc = with_counters(load_json(LAUNCH_INTERLEAVED), host_timed_launches)
    first = with_repetitions(doc, lambda i: i < 5)
    second = with_repetitions(doc, lambda i: i >= 5)
    launches = run_names(doc, lambda n: n.startswith("launch/"))
    unplanted = judged(first, second, tmp_path)
    rows_ = judged(first, slowed(second, launches, 1.5), tmp_path)
    assert len(rows_) == len(launches) == 30
    assert min(r.resolution_pct for r in rows_.values()) == 25  # the host-timed floor
    assert all(r.resolution_pct < 50 for r in rows_.values())
    missed = {n for n, r in rows_.items() if r.verdict != SLOWER}
    assert all(unplanted[n].ratio > 1.15 for n in missed), missed
    assert len(missed) <= 3


def test_two_processes_one_repetition_each_way(tmp_path: Path) -> None:
    """Two processes of one build a minute apart, five interleaved repetitions each: every
    launch SAME; one device-to-device copy of 1 MiB is 5% apart from one process to the next
    with no spread inside either, which no repetition inside one process can show: the reason
    the CI gate takes each process as one repetition (gpubench-tools record)."""
    base, new = load_json(CI_NEW_1), load_json(CI_NEW_2)
    rows_ = judged(base, new, tmp_path)
    assert {n for n, r in rows_.items() if r.verdict != SAME} == \
        {"copy/DtoD/device/async/1048576"}
    device = run_names(base, lambda n: (n.startswith("saxpy/") and int(n.split("/")[-1]) >= 1 << 20)
                       or ("/async/" in n and "pageable" not in n
                           and int(n.split("/")[-1]) >= 1 << 20))
    planted = judged(base, slowed(new, device, 1.05), tmp_path)
    caught = {n for n, r in planted.items() if r.verdict == SLOWER}
    # saxpy/driver at 2^20 is bimodal in this build: each repetition lands near 1400 or near
    # 1475 GB/s, so five against five cannot tell a 5% move from the modes' mix (p 0.056).
    bimodal = "saxpy/driver/1048576"
    # saxpy/vec4 at 2^20 is bimodal too: BASE's repetitions lie near 1450 and near 1528 GB/s,
    # 5.4% from its median, so its resolution says it cannot see 5%.
    levels = "saxpy/vec4/1048576"
    assert caught == {strip_gb_suffixes(n) for n in device} - {bimodal, levels}
    assert planted[bimodal].p_value > 0.05 and planted[bimodal].ratio < 1 / 1.05
    assert planted[levels].resolution_pct > 5.3


def test_the_whole_suite_recorded_twice_as_the_gate_records_it(tmp_path: Path) -> None:
    """Two recordings of the default suite by gpubench-tools record (five processes each), one
    after the other (their first runs eight minutes apart, by the files' dates), judged with the
    U test at 0.05 as the gate judged five runs a side before its baseline held many (at 0.01,
    five against five must part fully): all 598 benchmarks SAME.
    The regressions planted by plant_slowdowns.py (5% on GPU-timed copies from 1 MiB, saxpy from
    2^20; 50% on host-timed launch figures) are all caught but six: device-to-device copies that
    stay in the L2 (1-16 MiB), where a process lands in one of two states 7% apart and the two
    recordings had moved the other way by about as much as was planted, and three host-paced
    figures whose five processes spread by 1.45 to 2 times, so that the U test cannot part them
    (graph submission, JIT of PTX)."""
    import plant_slowdowns
    base, new = load_json(AA_1), load_json(AA_2)
    rows_ = judged(base, new, tmp_path, "--alpha=0.05")
    assert len(rows_) == 598 and {r.verdict for r in rows_.values()} == {SAME}
    factors = {run: plant_slowdowns.factor(next(b for b in new["benchmarks"]
                                                if b["run_name"] == run))
               for run in run_names(new, lambda n: True)}
    planted_runs = [run for run, factor in factors.items() if factor is not None]
    planted = new
    for run in planted_runs:
        planted = scaled(planted, run, factors[run])
    found = judged(base, planted, tmp_path, "--alpha=0.05")
    names = {strip_gb_suffixes(run) for run in planted_runs}
    assert len(names) == 255
    missed = {n for n in names if found[n].verdict != SLOWER}
    assert missed == {"copy/DtoD/device/async/1048576", "copy/DtoD/device/async/4194304",
                      "copy/DtoD/device/async/16777216", "launch/graph/submit/params:32764",
                      "launch/floor/graph/submit", "launch/module/ptx_jit"}
    for name in missed:  # moved the other way unplanted, or repetitions the U test can't part
        assert rows_[name].ratio > 1.02 or found[name].p_value >= 0.05, (name, found[name])
    assert {r.verdict for n, r in found.items() if n not in names} == {SAME}


def test_other_gpu_against_the_h200(tmp_path: Path, run_script: RunScript) -> None:
    doc = load_json(H200 / "gpubench.json")
    other = json.loads(json.dumps(doc))
    other["context"].update(gpu_name="NVIDIA A100-SXM4-80GB", driver_version="550.54.15",
                            cuda_runtime_version="12.4", pcie_link="Gen4 x16 (max Gen4 x16)")
    for entry in other["benchmarks"]:  # every figure half as good
        if entry.get("aggregate_name", "median") in ("mean", "median"):
            for key in ("real_time", "cpu_time", "us_per_launch", "us_per_copy"):
                if key in entry:
                    entry[key] *= 2
            if "bytes_per_second" in entry:
                entry["bytes_per_second"] /= 2
    a100 = write_json(tmp_path / "a100.json", other)
    refused = run_script("compare", H200 / "gpubench.json", a100)
    assert refused.returncode == 3 and refused.stdout.startswith("REPORT: ")
    proc = run_script("compare", H200 / "gpubench.json", a100, "--markdown", "--report")
    assert proc.returncode == 0, proc.stderr
    assert "Comparison report, not a regression check" in proc.stdout
    for key, h200, a100 in (("gpu_name", "NVIDIA H200", "NVIDIA A100-SXM4-80GB"),
                            ("driver_version", "580.159.04", "550.54.15"),
                            ("cuda_runtime_version", "13.0", "12.4"),
                            ("pcie_link", "Gen5 x16 (max Gen5 x16)", "Gen4 x16 (max Gen4 x16)")):
        assert f"| {key} | {h200} | {a100} |" in proc.stdout
    names = {entry["run_name"] for entry in doc["benchmarks"]}
    copies = sum(name.startswith("copy/") for name in names)
    found = rows(proc.stdout)
    assert len(found) == len(names)
    assert {r["NEW vs BASE"] for r in found.values()} == {"2.00× slower"}
    assert f"| copy | {copies} | 2.00× slower | 0 | {copies} | 0 |" in proc.stdout


def test_plant_slowdowns_tool(tmp_path: Path) -> None:
    """The lead's evidence tool: a 1.5 times slower launch figure against its own run is
    flagged everywhere but where the baseline's own repetitions lie farther apart than that
    (one of driver_extra's ten at 32764 bytes took 2.33 times their median, and its resolution,
    2.46×, says it cannot see 1.5); its classification follows host_timed, else the README's
    table."""
    proc = subprocess.run([sys.executable, str(SCRIPTS / "tests" / "plant_slowdowns.py"),
                           LAUNCH_INTERLEAVED, LAUNCH_INTERLEAVED, tmp_path / "planted.json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-2:] == ["30 planted, 30 compared, 1 wrong",
                          "  launch/driver_extra/submit/params:32764 SAME (expected SLOWER)"]
    assert ("launch/driver_extra/submit/params:32764: planted 1.50× slower, seen 1.50× slower, "
            "resolution 2.46×, SAME") in lines
    import plant_slowdowns
    assert plant_slowdowns.factor({"run_name": "copy/HtoD/pageable/sync/1048576"}) is None
    assert plant_slowdowns.factor({"run_name": "copy/HtoD/pinned/async/1048576"}) == 1.05
    assert plant_slowdowns.factor({"run_name": "copy/HtoD/pinned/async/4096"}) is None
    assert plant_slowdowns.factor({"run_name": "launch/x/submit/params:0",
                                   "host_timed": 0}) is None
    assert plant_slowdowns.factor({"run_name": "launch/x/submit/params:0"}) == 1.5


def test_a_figure_timed_with_its_clocks_held_down_is_named(tmp_path: Path,
                                                           run_script: RunScript) -> None:
    """gpubench writes clock_limited_ms (how long NVML's clock-limiting policies held the clocks
    during a benchmark's timed loop) and the SM clock at both ends: the comparison names each
    side's benchmarks timed with the clocks held down, and says nothing where none was."""
    base, new = load_json(CI_NEW_1), load_json(CI_NEW_2)
    first = next(b["run_name"] for b in new["benchmarks"] if b.get("run_type") == "iteration")
    # One process's runs each: a comparison report, which names the clocks as a check does.
    quiet = run_script("compare", write_json(tmp_path / "base.json", base),
                       write_json(tmp_path / "new.json", new), "--report")
    assert "clocks held down" not in quiet.stdout
    for entry in new["benchmarks"]:
        if entry["run_name"] == first and entry.get("run_type") == "iteration":
            entry["clock_limited_ms"] = 12.5
    held = run_script("compare", write_json(tmp_path / "base.json", base),
                      write_json(tmp_path / "held.json", new), "--report")
    name = strip_gb_suffixes(first)
    note = next(line for line in held.stdout.splitlines() if "clocks held down" in line)
    assert note.startswith("NEW ran 1 compared benchmark(s)") and name in note
    assert "BASE ran" not in held.stdout


def test_an_sm_clock_that_fell_marks_the_benchmark_throttled() -> None:
    """Without NVML's violation times, a fall of the SM clock by more than 10% across the loop
    marks a benchmark as throttled, and 10% or less does not."""
    def bench(start: float, end: float) -> Benchmark:
        run = {"real_time": 1.0, "sm_clock_start_mhz": start, "sm_clock_end_mhz": end}
        return Benchmark("x/y", dict(run), [run], "one run")
    assert bench(1980, 1700).throttled
    assert not bench(1980, 1800).throttled


def test_kernel_clocks_apart_are_a_note_not_a_figure(tmp_path: Path,
                                                     run_script: RunScript) -> None:
    """sm_clock_kernel_mhz is a condition of a figure: the comparison judges each benchmark by
    its figure whatever the clock, and names the benchmarks whose kernels read clocks more than
    10% apart on the two sides, and none where they are within 10%."""
    base, new = load_json(CI_NEW_1), load_json(CI_NEW_2)
    first = next(b["run_name"] for b in new["benchmarks"] if b.get("run_type") == "iteration")

    def clock(doc: dict, mhz: float) -> dict:
        for entry in doc["benchmarks"]:
            if entry["run_name"] == first and entry.get("run_type") == "iteration":
                entry["sm_clock_kernel_mhz"] = mhz
        return doc

    close = run_script("compare", write_json(tmp_path / "base.json", clock(base, 1980.0)),
                       write_json(tmp_path / "new.json", clock(new, 1800.0)), "--report")
    assert "sm_clock_kernel_mhz" not in close.stdout
    apart = run_script("compare", write_json(tmp_path / "base.json", clock(base, 1980.0)),
                       write_json(tmp_path / "new.json", clock(new, 1500.0)), "--report")
    name = strip_gb_suffixes(first)
    note = next(line for line in apart.stdout.splitlines() if "sm_clock_kernel_mhz" in line)
    assert note.startswith("1 compared benchmark(s)") and f"{name} (1980 vs 1500 MHz)" in note
    assert [line for line in close.stdout.splitlines() if name in line] == \
        [line for line in apart.stdout.splitlines() if name in line and "MHz" not in line]


@pytest.mark.parametrize("markdown", [False, True])
def test_a_report_shows_no_control_character_of_a_name(tmp_path: Path, run_script: RunScript,
                                                       markdown: bool) -> None:
    """Names reach the largest changes, the benchmarks in one file only and the notes, not only
    the tables: every line of the report is printable, whichever section shows a name."""
    from hostile_inputs import result_with_names
    shared, base_only, new_only = "\x1b]0;x\x07", "mid\u2028\x00", "new\x9b\u202e"
    base = recorded(result_with_names([shared, base_only, "z"]))
    new = scaled(result_with_names([shared, new_only, "z"]),
                 f"launch/{shared}/submit/params:0/manual_time", 3.0)
    proc = run_script("compare", write_json(tmp_path / "b.json", base),
                      write_json(tmp_path / "n.json", new), *(["--markdown"] if markdown else []))
    assert proc.returncode in (0, 1), proc.stderr
    assert "Only in BASE" in proc.stdout, proc.stdout[:2000]
    assert "the largest changes within their resolution" in proc.stdout, proc.stdout[:2000]
    assert all(line.isprintable() for line in proc.stdout.split("\n")), proc.stdout[:2000]


@pytest.mark.parametrize(("base_ns", "new_ns", "verdict", "code"),
                         [(0.0, 50000.0, "SLOWER", 1), (50000.0, 0.0, "FASTER", 0)])
def test_a_figure_of_zero_on_one_side_is_a_change(tmp_path: Path, run_script: RunScript,
                                                  base_ns: float, new_ns: float, verdict: str,
                                                  code: int) -> None:
    """A GPU gap of 0 ns against 50 µs has no ratio: it is a change all the same, not SAME."""
    paths = []
    for name, gap in (("base", base_ns), ("new", new_ns)):
        # Both as a baseline is recorded, to keep it short.
        doc = recorded(json.loads((H200 / "launch_gpu_gap.json").read_text()))
        for entry in doc["benchmarks"]:
            if "gap_ns" in entry and entry.get("aggregate_name") not in ("stddev", "cv"):
                entry["gap_ns"] = gap
        paths.append(write_json(tmp_path / f"{name}.json", doc))
    proc = run_script("compare", *paths)
    assert (proc.returncode, proc.stderr) == (code, ""), proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("launch/gpu_gap/")]
    assert rows and all(line.split()[-1] == verdict for line in rows), proc.stdout


@pytest.mark.parametrize(("base", "new", "noted"), [
    ("true", "false", True), ("false", "true", True), ("true", "true", False),
    (None, "true", False)])
def test_runs_of_different_interleaving_are_noted(tmp_path: Path, run_script: RunScript,
                                                  base: str | None, new: str | None,
                                                  noted: bool) -> None:
    """A repetition interleaved among other benchmarks runs beside them: runs that differ in it
    (both saying) are noted, and the check is still made."""
    def stated(text: str | None) -> dict:
        return {} if text is None else {"benchmark_enable_random_interleaving": text}
    b = write_json(tmp_path / "base.json", recorded_baseline(saxpy_suite(), **stated(base)))
    c = write_json(tmp_path / "cont.json", document(saxpy_suite(), **stated(new)))
    proc = run_script("compare", b, c)
    assert proc.returncode == 0 and proc.stdout.startswith("OK: 0 of"), proc.stdout[:300]
    note = f"BASE states benchmark_enable_random_interleaving={base}, NEW {new}:"
    assert (note in proc.stdout) == noted, proc.stdout
