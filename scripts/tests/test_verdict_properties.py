"""Properties of gpubench-tools compare's verdicts that no file can talk it out of, on generated
inputs judged in process (the commands' one line and exit status checked once each at the end):

- resolution ceilings: whatever spreads either side states (noise_pct, Google Benchmark's cv of
  an aggregates-only file, repetitions far apart), a benchmark whose resolution passes 10× or
  whose spread of one repetition is no spread is UNRESOLVED, never SAME, and fails a regression
  check unless accepted; every other benchmark gets a verdict;
- host timing: one file saying host_timed against another saying GPU time, or saying nothing (a
  file written before host_timed), never widens the floor: the benchmark is incomparable;
- facts lies: a figure declared against what its unit or counter says, in one file or both, is
  refused before anything is judged, and a figure both files declare truthfully is judged in the
  direction its unit gives; files that take a figure otherwise (unit, scale, direction) are
  incomparable; runs that declare a family otherwise are not merged; export writes the direction
  the unit gives.
"""

import copy
import itertools
import json
import statistics
import tempfile
from pathlib import Path

import pytest
from conftest import RunScript
from family_facts import FACTS, with_facts
from gbench_builder import document, launch_run, recorded_baseline, run_entries, write_json
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gpubench_tools.models.baseline_reach import passing_chance, reach_rank
from gpubench_tools.models.comparison import SAME, SLOWER, UNRESOLVED, Rules, compare
from gpubench_tools.models.merge import MergeError, merge
from gpubench_tools.models.unresolved import (
    RESOLUTION_CEILING_PCT,
    SPREAD_CEILING_PCT,
    unresolved_why,
)
from gpubench_tools.reading.errors import MalformedResultError
from gpubench_tools.reading.result_file import loads
from gpubench_tools.reading.results import Result
from gpubench_tools.renderers.export import exported
from gpubench_tools.renderers.verdict_text import verdict_line

CHECK = settings(max_examples=40, deadline=None)
RULES = Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.01)
BASE, NEW = Path("base.json"), Path("new.json")

# Units by what they say a figure is, each as a file may spell it.
TIME_UNITS = ["ns", "us", "µs", "μs", "ms", "s", "ps", "cycles", "µs per launch", "ns/load",
              "ms (median)", "s/GB", " US ", "Seconds"]
RATE_UNITS = ["GB/s", "B/s", "/s", "launches/s", "GiB/s", "GB per second", "MHz", "GFLOPS",
              "items/µs", "Gbit/s"]
OTHER_UNITS = ["J/GB", "% of ceiling", "µJ", "µJ above idle", "widgets", ""]
TIME_COUNTERS = ["us_per_launch", "gap_ns", "ns_per_load", "real_time"]
RATE_COUNTERS = ["bytes_per_second", "items_per_second", "launches_per_s"]
OTHER_COUNTERS = ["joules_per_gb", "pct_of_peak", "widgets"]
KIND = {**{u: False for u in TIME_UNITS + TIME_COUNTERS},
        **{u: True for u in RATE_UNITS + RATE_COUNTERS},
        **{u: None for u in OTHER_UNITS + OTHER_COUNTERS}}


def result(doc: dict, path: Path) -> Result:
    return loads(json.dumps(doc), path)


def launch_facts(counter: str, unit: str, better: str, scale: float = 1.0) -> dict:
    """Facts whose launch family has one figure, as given."""
    facts = copy.deepcopy(FACTS)
    launch = next(f for f in facts["families"] if f["name"] == "launch")
    launch["figures"] = [{"counter": counter, "unit": unit, "scale": scale, "better": better,
                          "panel": False}]
    return facts


def figure_run(counter: str, values: list[float], **kw) -> list[dict]:
    """A launch benchmark whose real time and `counter` are each of `values`."""
    return run_entries("launch/driver/submit/params:0/manual_time",
                       [{"real_time": v, counter: v} for v in values], **kw)


# Resolution ceilings

spreads = st.one_of(st.none(), st.just(0.0), st.floats(1e-6, 1e7))  # as a reader takes them
levels = st.lists(st.floats(0.05, 40.0), min_size=1, max_size=6)


@CHECK
@given(base_levels=levels, new_levels=levels, slower=st.floats(0.1, 10.0),
       base_noise=spreads, new_noise=spreads, aggregates_only=st.tuples(st.booleans(),
                                                                         st.booleans()),
       new_cv=st.one_of(st.none(), st.just(0.0), st.floats(1e-6, 100)))
def test_a_benchmark_past_a_ceiling_is_unresolved_and_fails_the_check(
        base_levels: list[float], new_levels: list[float], slower: float,
        base_noise: float | None, new_noise: float | None,
        aggregates_only: tuple[bool, bool], new_cv: float | None) -> None:
    def entries(levels: list[float], factor: float, noise: float | None,
                only_aggregates: bool) -> list[dict]:
        counters = {} if noise is None else {"noise_pct": noise}
        return launch_run("driver", "submit", 0, [2.0 * factor * x for x in levels],
                          counters=counters, aggregates_only=only_aggregates)
    new_entries = entries(new_levels, slower, new_noise, aggregates_only[1])
    if new_cv is not None and aggregates_only[1]:  # a cv as an aggregates-only file states it
        for entry in new_entries:
            if entry.get("aggregate_name") == "cv":
                entry["us_per_launch"] = entry["real_time"] = new_cv
    base = result(recorded_baseline(entries(base_levels, 1.0, base_noise, aggregates_only[0])),
                  BASE)
    new = result(document(new_entries), NEW)
    for accept in (False, True):
        c = compare(base, new, RULES, accept_unresolved=accept)
        row = c.rows[0]
        stated = [s.pct for s in (row.base_spread, row.cont_spread) if s is not None]
        past = (any(not 0 <= pct <= SPREAD_CEILING_PCT for pct in stated)
                or not row.resolution_pct <= RESOLUTION_CEILING_PCT)
        assert (row.verdict == UNRESOLVED) == past, (row, stated)
        event(row.verdict)
        if row.verdict == UNRESOLVED:
            assert row.why and c.exit_status == (0 if accept else 1)
            assert verdict_line(c).startswith(
                f"{'OK' if accept else 'FAIL'}: 0 of 1 benchmark(s) regressed, 1 unresolved")
        else:
            assert row.why is None and c.exit_status == (row.verdict == SLOWER)


@CHECK
@given(spread=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
       other=st.one_of(st.none(), st.floats(0, SPREAD_CEILING_PCT)),
       resolution=st.floats(allow_nan=True, allow_infinity=True), base_side=st.booleans())
def test_a_spread_that_is_no_spread_or_a_resolution_past_the_ceiling_is_no_verdict(
        spread: float | None, other: float | None, resolution: float, base_side: bool) -> None:
    """Negative, NaN and infinite spreads reach no reader (it refuses them), but the model holds
    without it."""
    sides = (spread, other) if base_side else (other, spread)
    plausible = spread is None or 0 <= spread <= SPREAD_CEILING_PCT
    expected = not (plausible and resolution <= RESOLUTION_CEILING_PCT)
    assert (unresolved_why(*sides, resolution) is not None) == expected


# Host timing

timings = st.sampled_from([None, 0, 1])


@CHECK
@given(base_timed=timings, new_timed=timings, slower=st.floats(1.0, 1.5))
def test_one_file_saying_host_timed_never_widens_the_floor(
        base_timed: int | None, new_timed: int | None, slower: float) -> None:
    levels = [2.0, 2.01, 1.99, 2.002, 2.005, 1.995]

    def doc(factor: float, timed: int | None, make) -> dict:
        counters = {"noise_pct": 0.5} | ({} if timed is None else {"host_timed": timed})
        return make(launch_run("driver", "submit", 0, [factor * x for x in levels],
                               counters=counters))
    c = compare(result(doc(1.0, base_timed, recorded_baseline), BASE),
                result(doc(slower, new_timed, document), NEW), RULES)
    row = c.rows[0]
    event(row.verdict)
    said = {base_timed, new_timed}
    if 1 in said and said != {1}:  # host-timed on one file's word alone
        assert row.verdict == UNRESOLVED and row.why.startswith("incomparable"), row
        assert c.exit_status == 1
    else:  # both host-timed, or neither says so: the GPU's floor where none says host-timed
        assert row.verdict != UNRESOLVED
        floor = RULES.host_threshold if said == {1} else RULES.threshold
        assert row.resolution_pct >= floor and (row.host_timed is True) == (floor == 25.0)
        if floor == RULES.threshold and slower > 1.05:
            assert row.verdict == SLOWER


# Facts lies

@st.composite
def figures(draw, kinds: tuple = (True, False, None)) -> tuple[str, str, bool | None]:
    """A counter and a unit that say the same of a figure (or one of them nothing), and that."""
    kind = draw(st.sampled_from(kinds))
    units = {True: RATE_UNITS, False: TIME_UNITS, None: OTHER_UNITS}
    counters = {True: RATE_COUNTERS, False: TIME_COUNTERS, None: OTHER_COUNTERS}
    unit = draw(st.sampled_from(units[kind] + (OTHER_UNITS if kind is not None else [])))
    counter = draw(st.sampled_from(counters[kind] + (OTHER_COUNTERS if kind is not None
                                                      and KIND[unit] is not None else [])))
    return counter, unit, kind


@CHECK
@given(counter=st.sampled_from(TIME_COUNTERS + RATE_COUNTERS + OTHER_COUNTERS),
       unit=st.sampled_from(TIME_UNITS + RATE_UNITS + OTHER_UNITS),
       better=st.sampled_from(["higher", "lower"]))
def test_a_figure_is_refused_where_its_facts_contradict_its_unit_or_counter(
        counter: str, unit: str, better: str) -> None:
    said = {KIND[counter], KIND[unit]} - {None}
    lie = len(said) > 1 or (said and said != {better == "higher"})
    event("refused" if lie else "read")
    doc = with_facts(document(figure_run(counter, [2.0, 2.1])),
                     launch_facts(counter, unit, better))
    if lie:
        with pytest.raises(MalformedResultError, match=r"^new\.json: context "):
            result(doc, NEW)
    else:
        bench = result(doc, NEW).benchmarks["launch/driver/submit/params:0"]
        assert bench.metric.bigger_is_better == (better == "higher")
        assert exported(bench).bigger_is_better == (better == "higher")


@CHECK
@given(figure=figures(kinds=(True, False)), liars=st.sampled_from(["BASE", "NEW", "both"]))
def test_a_lie_in_either_file_or_both_is_refused_and_the_truth_is_judged_by_its_unit(
        figure: tuple[str, str, bool | None], liars: str) -> None:
    counter, unit, rate = figure
    truth, lie = ("higher", "lower") if rate else ("lower", "higher")
    # NEW takes twice as long: half the rate, twice the time.
    base_values = [10.0, 10.1, 9.9, 10.02, 10.05, 9.95]
    new_values = [v / 2 if rate else v * 2 for v in base_values]
    docs = {}
    for side, values, make in (("BASE", base_values, recorded_baseline),
                               ("NEW", new_values, document)):
        better = lie if liars in (side, "both") else truth
        docs[side] = with_facts(make(figure_run(counter, values)),
                                launch_facts(counter, unit, better))
    with pytest.raises(MalformedResultError,
                       match=rf"^{'new' if liars == 'NEW' else 'base'}\.json: .*declared better"):
        compare(result(docs["BASE"], BASE), result(docs["NEW"], NEW), RULES)
    for side in docs:  # the files told truthfully
        for figure_entry in docs[side]["context"]["gpubench_families"]["families"]:
            for f in figure_entry["figures"]:
                f["better"] = truth if f["counter"] == counter else f["better"]
    c = compare(result(docs["BASE"], BASE), result(docs["NEW"], NEW), RULES)
    assert [r.verdict for r in c.rows] == [SLOWER] and c.exit_status == 1


@CHECK
@given(figure=figures(), change=st.sampled_from(["scale", "unit", "better"]),
       scale=st.floats(1e-9, 1e9), new_side=st.booleans())
def test_files_that_take_a_figure_otherwise_are_incomparable(
        figure: tuple[str, str, bool | None], change: str, scale: float,
        new_side: bool) -> None:
    counter, unit, kind = figure
    better = "lower" if kind is False else "higher"
    other = launch_facts(counter, unit, better)
    changed = other["families"][1]["figures"][0]
    if change == "scale":
        changed["scale"] = scale
    elif change == "unit" or kind is not None:  # a unit that says the same, spelled otherwise
        changed["unit"] = unit + " (other)"
    else:  # which way is better, where neither counter nor unit says
        changed["better"] = "lower"
    values = [10.0, 10.1, 9.9, 10.02, 10.05, 9.95]
    facts = [launch_facts(counter, unit, better), other]
    if new_side:
        facts.reverse()
    c = compare(result(with_facts(recorded_baseline(figure_run(counter, values)), facts[0]),
                       BASE),
                result(with_facts(document(figure_run(counter, values)), facts[1]), NEW), RULES)
    row = c.rows[0]
    event(row.verdict)
    if facts[0] == facts[1]:
        assert row.verdict == SAME
        return
    assert row.verdict == UNRESOLVED and row.why.startswith("incomparable"), row
    assert c.exit_status == 1
    assert compare(c.base, c.cont, RULES, accept_unresolved=True).exit_status == 0


@settings(max_examples=12, deadline=None)
@given(figure=figures(kinds=(None,)), scale=st.floats(1e-3, 1e3), second=st.booleans())
def test_runs_that_declare_a_family_otherwise_are_not_merged(
        figure: tuple[str, str, bool | None], scale: float, second: bool) -> None:
    counter, unit, _ = figure
    facts = [launch_facts(counter, unit, "lower"), launch_facts(counter, unit, "lower", scale)]
    if second:
        facts.reverse()
    with tempfile.TemporaryDirectory() as folder:
        paths = [write_json(Path(folder) / f"run{i}.json",
                            with_facts(document(figure_run(counter, [2.0])), facts[i]))
                 for i in range(2)]
        if facts[0] == facts[1]:
            assert merge(paths)["context"]["gpubench_families"] == facts[0]
            return
        with pytest.raises(MergeError) as refused:
            merge(paths)
    message = str(refused.value)
    assert message.startswith(f"{paths[1]}: family 'launch' ") and str(paths[0]) in message
    assert "\n" not in message


# The commands: one line and the documented exit

def noisy_pair(tmp_path: Path) -> tuple[Path, Path]:
    levels = [2.0, 2.01, 1.99, 2.002, 2.005, 1.995]
    base = recorded_baseline(launch_run("driver", "submit", 0, levels,
                                        counters={"noise_pct": 1.0, "host_timed": 0}))
    new = document(launch_run("driver", "submit", 0, [2 * x for x in levels],
                              counters={"noise_pct": 1e6, "host_timed": 0}))
    return write_json(tmp_path / "base.json", base), write_json(tmp_path / "new.json", new)


def test_compare_says_unresolved_and_fails_unless_accepted(tmp_path: Path,
                                                           run_script: RunScript) -> None:
    base, new = noisy_pair(tmp_path)
    failed = run_script("compare", base, new)
    assert failed.returncode == 1 and failed.stderr == "", failed.stderr
    lines = failed.stdout.splitlines()
    assert lines[0] == ("FAIL: 0 of 1 benchmark(s) regressed, 1 unresolved (0 FASTER, "
                        "0 SLOWER, 0 SAME, 1 UNRESOLVED).")
    assert lines[2].startswith("UNRESOLVED (1): no verdict can be reached")
    assert "NEW's spread of 1e+06% is no spread of a measurement" in lines[3]
    accepted = run_script("compare", "--accept-unresolved", base, new)
    assert accepted.returncode == 0 and accepted.stdout.startswith(
        "OK: 0 of 1 benchmark(s) regressed, 1 unresolved (accepted: --accept-unresolved)")
    markdown = run_script("compare", "--markdown", base, new)
    assert markdown.returncode == 1 and "UNRESOLVED (1): no verdict" in markdown.stdout


def lying(doc: dict) -> dict:
    """`doc` with facts declaring every µs figure better higher."""
    facts = copy.deepcopy(FACTS)
    for family in facts["families"]:
        for figure in family["figures"]:
            if figure["unit"] == "µs":
                figure["better"] = "higher"
    return with_facts(doc, facts)


@pytest.mark.parametrize("subcommand", ["compare", "export", "merge"])
def test_a_facts_lie_is_one_line_and_exit_2(tmp_path: Path, run_script: RunScript,
                                            subcommand: str) -> None:
    runs = [launch_run("driver", "submit", 0, [2.0, 2.1, 1.9]),
            launch_run("driver", "submit", 0, [4.0, 4.2, 3.8])]
    paths = [write_json(tmp_path / f"{i}.json", lying(document(run)))
             for i, run in enumerate(runs)]
    args = {"compare": paths, "export": [paths[0], "--format", "bencher"],
            "merge": [*paths, "-o", tmp_path / "out.json"]}[subcommand]
    proc = run_script(subcommand, *args)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(
        f"gpubench-tools {subcommand}: {paths[0]}: context 'gpubench_families'")
    assert "counter 'us_per_launch' is declared better \"higher\", but its unit 'µs'" \
        in proc.stderr


def test_merge_of_runs_declaring_a_family_otherwise_is_one_line(tmp_path: Path,
                                                               run_script: RunScript) -> None:
    facts = [launch_facts("joules_per_gb", "J/GB", "lower"),
             launch_facts("joules_per_gb", "J/GB", "higher")]
    paths = [write_json(tmp_path / f"{i}.json",
                        with_facts(document(figure_run("joules_per_gb", [2.0])), facts[i]))
             for i in range(2)]
    proc = run_script("merge", *paths, "-o", tmp_path / "out.json")
    assert proc.returncode == 2 and not (tmp_path / "out.json").exists()
    assert proc.stderr == (
        f"gpubench-tools merge: {paths[1]}: family 'launch' is declared otherwise than in "
        f"{paths[0]} (figure joules_per_gb in J/GB (scale 1), lower better against "
        "joules_per_gb in J/GB (scale 1), higher better): runs of one build only\n")



@pytest.mark.parametrize(("base_runs", "new_runs"), [(6, 1), (6, 3), (7, 4), (9, 5), (5, 5)])
def test_the_passing_chance_is_what_every_order_of_one_builds_runs_gives(
        base_runs: int, new_runs: int) -> None:
    """Every way the runs of one build can fall in order, counted: how often NEW's median lies
    above BASE's rank-th highest run. Exact for an odd count of NEW's runs, a bound from above
    for an even one."""
    total = base_runs + new_runs
    orders = list(itertools.combinations(range(total), new_runs))  # NEW's places, 0 lowest
    for rank in range(1, base_runs + 1):
        passed = 0
        for places in orders:
            base = sorted(set(range(total)) - set(places))
            passed += statistics.median(places) > base[-rank]
        counted = passed / len(orders)
        if new_runs % 2:
            assert passing_chance(base_runs, new_runs, rank) == pytest.approx(counted)
        else:
            assert passing_chance(base_runs, new_runs, rank) >= counted - 1e-12


@pytest.mark.parametrize(("base_runs", "new_runs", "chance", "rank"), [
    (15, 5, 0.0, 1), (15, 5, 0.1, 3), (15, 5, 0.01, 1), (15, 1, 0.1, 1), (5, 5, 0.1, 1),
    (19, 5, 0.1, 4), (2, 1, 0.5, 1),
])
def test_the_reach_rank_is_the_least_far_run_passed_within_the_chance(
        base_runs: int, new_runs: int, chance: float, rank: int) -> None:
    assert reach_rank(base_runs, new_runs, chance) == rank
    if rank < base_runs:
        assert passing_chance(base_runs, new_runs, rank + 1) > chance
