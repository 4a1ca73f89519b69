"""--filter (gpubench-tools plot, export, compare, report) and --headline (gpubench-tools fleet) in
bounded time: a pattern whose backtracking never ends on the names of a file is refused in one line
after name_filter.MATCH_SECONDS, not matched for hours; one that is too long is refused at once. And
the other way round: a filter written to select given benchmarks selects those alone."""

import time
from pathlib import Path

import pytest
from conftest import H200
from hostile_inputs import assert_kept_promise, result_with_names, run, write_result
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gpubench_tools.reading.name_filter import (
    MATCH_SECONDS,
    MAX_FILTER_CHARS,
    FilterError,
    changed_filter,
    name_filter,
    selecting,
)
from gpubench_tools.reading.result_file import load

# A run of one character, then one that ends the match: (c+)+$ tries every split of the run.
letter = st.sampled_from("abxyz")
nested = st.tuples(letter, st.sampled_from(["({c}+)+$", "({c}*)*$", "({c}|{c})+$",
                                            "(({c}+)+)+!", "(.*{c}){{12}}$", "(?:{c}+)+$"]))


def slow_case(c: str, shape: str) -> tuple[str, str]:
    return shape.format(c=c), c * 40 + "/4096"


# Each example waits the whole MATCH_SECONDS, a core busy all of it: two cover the shapes.
@settings(max_examples=2, deadline=None, database=None)
@given(case=nested)
def test_nested_quantifiers_are_refused_in_bounded_time(case: tuple[str, str]) -> None:
    pattern, name = slow_case(*case)
    started = time.monotonic()
    with pytest.raises(FilterError, match=f"longer than {MATCH_SECONDS:g} s"):
        name_filter(pattern).select(["copy/HtoD/pinned/async/4096", name])
    assert time.monotonic() - started < MATCH_SECONDS + 1


def test_a_filter_that_matches_in_time_selects_in_order() -> None:
    names = ["copy/HtoD/a/4096", "launch/x/submit/params:0", "copy/DtoH/a/4096"]
    assert name_filter("^copy/").select(names) == [names[0], names[2]]
    assert name_filter("(a+)+$").select(["a" * 5000]) == ["a" * 5000]  # matching is fast


def test_too_long_and_invalid_filters() -> None:
    with pytest.raises(FilterError, match=f"more than the {MAX_FILTER_CHARS}"):
        name_filter("a" * (MAX_FILTER_CHARS + 1))
    for bad in ["(", "(" * 1000 + ")" * 1000, "a{99999999999}"]:
        with pytest.raises(FilterError):
            name_filter(bad)


def arguments(script: str, result: Path, pattern: str, work: Path) -> list[object]:
    return {
        "plot": [result, "-o", work / "figures", "--filter", pattern],
        "export": [result, "--format", "bencher", "--filter", pattern],
        "compare": [result, result, "--filter", pattern],
        "report": [result, result, "-o", work / "report", "--filter", pattern],
    }[script]


PROCESS_SETTINGS = settings(max_examples=1, deadline=None, database=None,
                            phases=(Phase.explicit, Phase.generate),
                            suppress_health_check=[HealthCheck.function_scoped_fixture])


# The limit lives in name_filter (tested above); one command that reads results and one that
# draws them show that each ends in one line.
@pytest.mark.parametrize("script", ["compare", "plot"])
@PROCESS_SETTINGS
@given(case=nested)
def test_scripts_refuse_a_filter_that_backtracks_without_end(
        tmp_path_factory: pytest.TempPathFactory, script: str, case: tuple[str, str]) -> None:
    pattern, name = slow_case(*case)
    work = tmp_path_factory.mktemp("filter")
    result = write_result(work / "r.json", result_with_names([name.removesuffix("/4096")]))
    started = time.monotonic()
    proc = run(script, arguments(script, result, pattern, work), timeout=30)
    assert time.monotonic() - started < MATCH_SECONDS + 15
    assert_kept_promise(proc, script, succeeds=False)
    assert f"longer than {MATCH_SECONDS:g} s" in proc.stderr.decode(), proc.stderr


def test_fleet_refuses_a_headline_that_backtracks_without_end(tmp_path: Path) -> None:
    from hostile_inputs import script_arguments
    result = write_result(tmp_path / "r.json", result_with_names(["a" * 40]))
    arguments = script_arguments("fleet", result, tmp_path)
    proc = run("fleet", [*arguments, "--headline", "(a+)+$"], timeout=60)
    assert_kept_promise(proc, "fleet", succeeds=False)
    assert "--headline=(a+)+$: matching" in proc.stderr.decode(), proc.stderr


# Every benchmark of the H200's default suite.
NAMES = list(load(H200 / "ci_baseline.json").benchmarks)


@settings(max_examples=40, deadline=None, database=None)
@given(chosen=st.sets(st.sampled_from(NAMES), min_size=1, max_size=25))
def test_selecting_selects_exactly_the_named_benchmarks(chosen: set[str]) -> None:
    """Over the H200's real names, with the suffixes gpubench's names carry."""
    text = selecting(sorted(chosen))
    assert text is not None and len(text) <= MAX_FILTER_CHARS
    pattern = name_filter(text)
    for suffix in ("", "/manual_time", "/real_time", "/device:1"):
        assert set(pattern.select(n + suffix for n in NAMES)) == {n + suffix for n in chosen}


def test_selecting_nothing_or_too_much_is_no_filter() -> None:
    assert selecting([]) is None
    assert selecting(NAMES) is None  # every benchmark of the suite: more than a filter holds
    assert selecting(["a.b/c:d", "a.b/e"]) == "^a\\.b/(c\\:d|e)(/|$)"
    assert selecting(["copy/a", "copy/b\nc"]) is None  # a filter is one line


def test_changed_filter_takes_whole_families_where_the_names_do_not_fit() -> None:
    few = [n for n in NAMES if n.startswith("copy/HtoD/pinned/")]
    assert changed_filter(few[:3]) == selecting(few[:3])
    many = [n for n in NAMES if n.startswith(("copy/", "launch/graph"))]
    assert selecting(many) is None and changed_filter(many) == "^(copy|launch)(/|$)"
    assert changed_filter([]) is None
