"""Properties of gpubench-tools fleet's judgement that no file can talk it out of, on generated
inputs over 16-GPU fleets built from real H200 repetitions (fleet_builder), judged in process:

- cosmetic differences (case, spacing, a build's suffix, a host clock within its band, a setting's
  spelling) never set a GPU apart, and a slow GPU so spelled is still found; a real difference sets
  it apart, and a GPU apart is named;
- facts of a figure that a minority of GPUs give otherwise (which way is better, its unit, scale or
  counter, whether the host paces it) name those GPUs on those benchmarks and change no verdict:
  the judgement is the one without their figures;
- a GPU lacking benchmarks is named with exactly those it lacks, whatever families they are of.
"""

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path

import fleet_builder as fb
import pytest
from family_facts import with_facts
from fleet_noise import committed_limits
from hypothesis import given, settings
from hypothesis import strategies as st

from gpubench_tools.models.fleet.agreement import figure_facts
from gpubench_tools.models.fleet.groups import apart, group_gpus, lacking
from gpubench_tools.models.fleet.identity import MHZ_BAND
from gpubench_tools.models.fleet.limits import process_losses_of
from gpubench_tools.models.fleet.outliers import Group, Rule, judge
from gpubench_tools.reading.fleet.records import Gpu, result_found
from gpubench_tools.reading.result_file import loads
from gpubench_tools.reading.results import Benchmark

SIZE = 16
SEEDS = st.integers(0, 2)
GPUS = st.integers(0, SIZE - 1)
SLOW_SWEEP = "copy/HtoD/pinned/async/"  # device-timed: a 25% loss of it is far past any noise
CHECK = settings(max_examples=25, deadline=None)
Document = dict


@functools.lru_cache(maxsize=None)
def base_texts(seed: int, sources: tuple[str, ...]) -> tuple[str, ...]:
    """The fleet's documents as JSON text, with gpubench's facts in each context."""
    return tuple(json.dumps(with_facts(doc)) for doc in fb.build_fleet(SIZE, seed, sources))


def gpu_of(doc: Document) -> Gpu:
    name = fb.file_name(doc)
    return result_found(name, loads(json.dumps(doc), Path(name))).gpus[0]


@functools.lru_cache(maxsize=None)
def base_gpu(seed: int, sources: tuple[str, ...], index: int) -> Gpu:
    return gpu_of(json.loads(base_texts(seed, sources)[index]))


def fleet(seed: int, changes: dict[int, Callable[[Document], None]],
          sources: tuple[str, ...] = fb.COPY_LAUNCH) -> list[Gpu]:
    """The fleet's GPUs, those of `changes` with each change made to their document."""
    gpus = []
    for index in range(SIZE):
        if index not in changes:
            gpus.append(base_gpu(seed, sources, index))
            continue
        doc = json.loads(base_texts(seed, sources)[index])
        changes[index](doc)
        gpus.append(gpu_of(doc))
    return gpus


def judged(gpus: list[Gpu], rule: Rule = Rule()) -> list[Group]:
    """The groups judged as gpubench-tools fleet judges them, with the committed limits'
    process losses: each GPU is also a real process's level (fleet_builder)."""
    groups = group_gpus(gpus)
    limits = committed_limits()
    for group in groups:
        if len(group.gpus) >= rule.min_gpus:
            judge(group, rule, process_losses_of(limits, group.gpus[0].gpu_name))
    return groups


def slow(doc: Document) -> None:
    fb.scale_bandwidth(doc, fb.starts(SLOW_SWEEP), 0.75)


def flagged(groups: list[Group]) -> set[str]:
    return {gpu.host for group in groups for gpu in group.flagged}


# --- cosmetic differences ----------------------------------------------------------------------

SPACES = st.sampled_from(["", " ", "  ", "\t", "\u00a0", " \u3000"])


@st.composite
def respelled(draw: st.DrawFn, text: str) -> str:
    """`text` with each letter's case drawn, its inner spaces doubled or not, and spaces around."""
    cased = "".join(c.upper() if draw(st.booleans()) else c.lower() for c in text)
    inner = draw(st.sampled_from([" ", "  ", "\t", "\u00a0"]))
    return draw(SPACES) + cased.replace(" ", inner) + draw(SPACES)


@st.composite
def respelled_driver(draw: st.DrawFn, driver: str) -> str:
    parts = [draw(st.sampled_from(["", "0", "00"])) + part.lstrip("0") or "0"
             for part in driver.split(".")]
    return draw(SPACES) + ".".join(parts) + draw(SPACES)


@st.composite
def respelled_version(draw: st.DrawFn, version: str) -> str:
    suffix = draw(st.lists(st.sampled_from(["-dirty", "-broken", "-modified", ".d20261129"]),
                           max_size=2))
    return draw(respelled(version)) + "".join(suffix)


# Spellings of 0 seconds for benchmark_min_time, whose bare number Google Benchmark reads as
# seconds; of 16 CPUs as a JSON number or text.
ZERO_SECONDS = st.sampled_from(["0s", "0.0s", "0", "0.000s", "0e0s", "+0s", " 0S", "0.0 s",
                                "-0s", ".0s"])
SIXTEEN = st.sampled_from([16, 16.0, "16", " 16 "])
# Host clocks that chain to 2100 MHz within MHZ_BAND.
IN_BAND = st.floats(2100 / (1 + MHZ_BAND) + 0.5, 2100 * (1 + MHZ_BAND) - 0.5)


@st.composite
def spellings(draw: st.DrawFn) -> tuple[int, int, dict, list[int], list[dict]]:
    """A fleet's seed, its slow GPU, that GPU's key spelled otherwise (some of its parts), its
    caches' order, and each GPU's settings and CPU count spelled as it may be: nothing of what
    they mean differs from the others'."""
    seed, slow_gpu = draw(SEEDS), draw(GPUS)
    context = json.loads(base_texts(seed, fb.COPY_LAUNCH)[0])["context"]
    key = dict(gpu_name=draw(respelled(context["gpu_name"])),
               driver_version=draw(respelled_driver(context["driver_version"])),
               gpubench_version=draw(respelled_version(context["gpubench_version"])),
               mhz_per_cpu=draw(st.one_of(IN_BAND, IN_BAND.map(round))))
    key = {name: value for name, value in key.items() if draw(st.booleans())}
    order = draw(st.permutations(range(len(context["caches"]))))
    each = [dict(benchmark_min_time=draw(ZERO_SECONDS), num_cpus=draw(SIXTEEN),
                 saxpy_l2=draw(respelled("cold"))) for _ in range(SIZE)]
    return seed, slow_gpu, key, order, each


@CHECK
@given(spellings())
def test_a_difference_of_spelling_sets_no_gpu_apart(
        case: tuple[int, int, dict, list[int], list[dict]]) -> None:
    seed, slow_gpu, key, order, each = case

    def change(index: int) -> Callable[[Document], None]:
        def made(doc: Document) -> None:
            doc["context"].update(each[index])
            if index == slow_gpu:
                doc["context"].update(key, caches=[doc["context"]["caches"][i] for i in order])
                slow(doc)
        return made

    groups = judged(fleet(seed, {index: change(index) for index in range(SIZE)}))
    assert [len(group.gpus) for group in groups] == [SIZE]
    assert apart(groups, Rule.min_gpus) == []
    assert flagged(groups) == {f"node{slow_gpu:02d}"}


REAL_DIFFERENCES: list[tuple[str, st.SearchStrategy]] = [
    ("gpu_name", st.sampled_from(["NVIDIA H100 80GB HBM3", "NVIDIA H200 NVL"])),
    ("driver_version", st.sampled_from(["575.57.08", "580.159.05", "580.160.04"])),
    ("gpubench_version", st.text("0123456789abcdef", min_size=12, max_size=12)
     .map(lambda commit: f"0.1.0+{commit}-dirty")),
    ("mhz_per_cpu", st.one_of(st.floats(500, 2100 / (1 + MHZ_BAND) - 1),
                              st.floats(2100 * (1 + MHZ_BAND) + 1, 6000))),
    ("benchmark_min_time", st.sampled_from(["0.5s", "1s", "10x", "0.01"])),
    ("num_cpus", st.integers(1, 15)),
    ("energy", st.just("on: 0.5 s window")),
]
PARTS_OF = {"gpu_name": "GPU", "driver_version": "driver", "gpubench_version": "gpubench",
            "mhz_per_cpu": "host CPU", "num_cpus": "host CPU",
            "benchmark_min_time": "measured with", "energy": "measured with"}


@CHECK
@given(SEEDS, GPUS, st.sampled_from(REAL_DIFFERENCES).flatmap(
    lambda difference: st.tuples(st.just(difference[0]), difference[1])))
def test_a_gpu_set_apart_by_a_real_difference_is_named(seed: int, gpu: int,
                                                       difference: tuple[str, object]) -> None:
    """A GPU unlike all others is in a group of its own, judged by floors alone: named, with
    the part of its key that sets it apart."""
    key, value = difference

    def change(doc: Document) -> None:
        doc["context"][key] = value
        slow(doc)

    named = {a.gpu.host: a for a in apart(judged(fleet(seed, {gpu: change})), Rule.min_gpus)}
    assert set(named) == {f"node{gpu:02d}"}
    assert named[f"node{gpu:02d}"].size == 1
    assert PARTS_OF[key] in {part for part, _, _ in named[f"node{gpu:02d}"].differences}


# --- facts of a figure that a minority of GPUs give otherwise -----------------------------------

LIES = ["direction", "unit", "scale", "counter", "host"]


def lied(bench: Benchmark, lie: str) -> Benchmark:
    """The benchmark as a GPU's file would read that says `lie` of its figure."""
    if lie == "host":
        flipped = 0 if bench.host_timed else 1
        return dataclasses.replace(
            bench, values=dict(bench.values, host_timed=flipped),
            repetitions=[dict(r, host_timed=flipped) for r in bench.repetitions])
    facts = bench.facts
    assert facts is not None
    first, *rest = facts.figures
    if lie == "counter":
        figures = (*rest[:1], first, *rest[1:])
    else:
        changed = {"direction": dict(bigger_is_better=not first.bigger_is_better),
                   "unit": dict(unit=f"{first.unit} per GPU"),
                   "scale": dict(scale=first.scale * 1e3)}[lie]
        figures = (dataclasses.replace(first, **changed), *rest)
    return dataclasses.replace(bench, facts=dataclasses.replace(facts, figures=figures))


def with_benchmarks(gpu: Gpu, benchmarks: dict[str, Benchmark]) -> Gpu:
    return dataclasses.replace(gpu, benchmarks=benchmarks)


@st.composite
def lies_told(draw: st.DrawFn) -> tuple[int, int, dict[int, tuple[str, list[str]]]]:
    """A seed; the GPU whose HtoD pinned copies are 25% slower (a liar or not); fewer than half
    the GPUs, each with a lie (LIES) about a set of benchmarks."""
    seed = draw(SEEDS)
    liars = draw(st.sets(GPUS, min_size=1, max_size=SIZE // 2 - 1))
    slow_gpu = draw(st.one_of(st.sampled_from(sorted(liars)), GPUS))
    names = sorted(base_gpu(seed, fb.COPY_LAUNCH, 0).benchmarks)
    told = {liar: (draw(st.sampled_from(LIES)),
                   sorted(draw(st.sets(st.sampled_from(names), min_size=1))))
            for liar in sorted(liars)}
    return seed, slow_gpu, told


def lying_fleet(seed: int, slow_gpu: int, told: dict[int, tuple[str, list[str]]]
                ) -> tuple[list[Gpu], list[Gpu], set[tuple[str, str]]]:
    """The fleet with the lies told; the same fleet with the liars' lied benchmarks removed;
    the (GPU, benchmark) whose facts a lie changed."""
    gpus = fleet(seed, {slow_gpu: slow})
    lying, honest, lies = list(gpus), list(gpus), set()
    for index, (lie, names) in told.items():
        gpu = gpus[index]
        benchmarks = dict(gpu.benchmarks)
        for name in names:
            benchmarks[name] = lied(gpu.benchmarks[name], lie)
        changed = {name for name in names
                   if figure_facts(benchmarks[name]) != figure_facts(gpu.benchmarks[name])}
        lying[index] = with_benchmarks(gpu, benchmarks)
        honest[index] = with_benchmarks(gpu, {name: bench for name, bench in benchmarks.items()
                                              if name not in changed})
        lies |= {(gpu.uuid, name) for name in changed}
    return lying, honest, lies


def verdicts(groups: list[Group]) -> tuple:
    """What a judgement says of every GPU: its flags, and per benchmark the rule and reference."""
    return ({(f.gpu.uuid, f.benchmark, round(f.speed, 9)) for g in groups for f in g.flags},
            [(g.thresholds, g.host_timed, g.splits, g.uncorroborated) for g in groups])


@CHECK
@given(lies_told())
def test_facts_a_minority_gives_otherwise_name_it_and_change_no_verdict(
        case: tuple[int, int, dict[int, tuple[str, list[str]]]]) -> None:
    seed, slow_gpu, told = case
    lying, honest, lies = lying_fleet(seed, slow_gpu, told)
    groups = judged(lying)
    assert len(groups) == 1
    assert {(d.gpu.uuid, d.benchmark) for d in groups[0].disagreements} == lies
    assert all(d.group is not None for d in groups[0].disagreements)
    assert verdicts(groups) == verdicts(judged(honest))
    named = {g.host for g in groups[0].flagged + groups[0].disagreeing}
    assert f"node{slow_gpu:02d}" in named  # found slow, or named for its facts: never passed


def test_facts_given_by_no_majority_are_not_judged_and_every_gpu_is_named() -> None:
    """8 GPUs say a copy sweep is host-paced, 8 that it is not: no side's word decides."""
    gpus = fleet(0, {3: slow})
    name = f"{SLOW_SWEEP}1073741824"
    split = [with_benchmarks(g, dict(g.benchmarks, **{name: lied(g.benchmarks[name], "host")}))
             if i % 2 else g for i, g in enumerate(gpus)]
    group = judged(split)[0]
    assert name not in group.benchmarks
    assert {d.gpu.uuid for d in group.disagreements if d.benchmark == name} == {
        g.uuid for g in gpus}
    assert all(d.group is None for d in group.disagreements)


# --- missing benchmarks ------------------------------------------------------------------------

@st.composite
def dropped_sets(draw: st.DrawFn) -> tuple[int, int, dict[int, list[str]]]:
    """A seed of the CI pair's fleet (saxpy, copies and launches), its slow GPU, and up to 5
    GPUs each with a set of benchmarks it lacks: drawn ones, a whole family, or all."""
    seed = draw(SEEDS)
    names = list(base_gpu(seed, fb.CI_PAIR, 0).benchmarks)
    families = sorted({name.split("/")[0] for name in names})
    sets = st.one_of(
        st.sets(st.sampled_from(names), min_size=1).map(sorted),
        st.sampled_from(families).map(lambda f: [n for n in names if n.startswith(f + "/")]),
        st.just(names))
    return seed, draw(GPUS), {index: draw(sets)
                              for index in sorted(draw(st.sets(GPUS, min_size=1, max_size=5)))}


@CHECK
@given(dropped_sets())
def test_a_gpu_lacking_benchmarks_is_named_with_them(
        case: tuple[int, int, dict[int, list[str]]]) -> None:
    seed, slow_gpu, dropped = case
    gpus = fleet(seed, {slow_gpu: slow}, fb.CI_PAIR)
    for index, names in dropped.items():
        gpus[index] = with_benchmarks(gpus[index], {
            name: bench for name, bench in gpus[index].benchmarks.items() if name not in names})
    groups = judged(gpus)
    assert [len(group.gpus) for group in groups] == [SIZE]
    found = {item.gpu.uuid: set(item.missing) for item in lacking(groups)}
    assert found == {gpus[index].uuid: set(names) for index, names in dropped.items()}
    assert all(item.first_ran_by >= SIZE - len(dropped) for item in lacking(groups))


@pytest.mark.parametrize("sources", [fb.COPY_LAUNCH, fb.CI_PAIR], ids=["copy_launch", "ci_pair"])
def test_a_fleet_run_alike_lacks_nothing_and_is_one_group(sources: tuple[str, ...]) -> None:
    groups = judged(fleet(0, {}, sources))
    assert [len(group.gpus) for group in groups] == [SIZE]
    assert lacking(groups) == [] and apart(groups, Rule.min_gpus) == []
