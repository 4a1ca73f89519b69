"""The judgement of two gpubench results: each benchmark both hold, its change and its verdict.

compare() judges each benchmark by the rule gpubench-tools compare's help states (its family's
figure, the symmetric ratio of the medians, a resolution from the floor, both sides' spreads and
how far a median of NEW's runs can lie among BASE's own runs, the Mann-Whitney U test;
UNRESOLVED where the two files take the figure or its clock otherwise, where a spread is no
spread, or where the resolution passes a ceiling) and says whether the two files can make a
regression check: one GPU, driver and CUDA, measured alike, against a BASE of separate runs.
confirmed() judges NEW's changes again on confirming runs alone. The rule lives here, apart from
how a comparison is shown (comparison_text) and from gpubench-tools compare's command line, so
that gpubench-tools compare, gpubench-tools report and the HTML report judge alike.
"""

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.models.baseline_reach import reach_pct
from gpubench_tools.models.unresolved import incomparable, unresolved_why
from gpubench_tools.reading.facts import REAL_TIME_US, Metric, by_family, family_of
from gpubench_tools.reading.name_filter import NameFilter
from gpubench_tools.reading.results import Benchmark, Result
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.reading.settings import (
    FILTER_KEY,
    MEASUREMENT_SETTINGS,
    SETTING_SHOWN,
    setting_text,
)
from gpubench_tools.writing.outputs import same_file

# Equal in a regression check; a difference in any makes the run a comparison report.
IDENTITY_KEYS = ("gpu_name", "driver_version", "cuda_runtime_version")
# Another card of the same model is still a regression check, named in the mode line: two H200s
# measured 1.6% apart on saxpy at 2^28 (results/h200/verdicts/splits/).
CARD_KEY = "gpu_uuid"
CARD_SHOWN = 80  # characters of a gpu_uuid shown (a UUID has 40)
# Shown first among the context differences: what a reader looks for.
LEADING_CONTEXT_KEYS = (*IDENTITY_KEYS, "driver_cuda_version", "pcie_link", "gpubench_version",
                        "gpu_state_before", "gpu_state_after")
SAME, FASTER, SLOWER, UNRESOLVED = "SAME", "FASTER", "SLOWER", "UNRESOLVED"
# The order in which changes are read: what fails a regression check first.
CHANGE_ORDER = (SLOWER, FASTER)
# The order in which an answer lists its verdicts: what fails a regression check first.
ANSWER_ORDER = (SLOWER, UNRESOLVED, FASTER)


@dataclass(frozen=True)
class Rules:
    """What a change has to pass to count."""
    threshold: float  # %, the resolution's floor for a GPU-timed figure (or one not known)
    host_threshold: float  # %, the floor for a host-timed figure
    sigmas: float  # how many combined spreads a change has to pass
    alpha: float  # significance level of the U test
    # BASE's run a median of NEW's runs must pass is the least far one it passes with this
    # chance or less, were both sides one build's runs (reach_rank); 0: BASE's farthest.
    reach_chance: float = 0.0


# The standard error of the median of n normal values is sqrt(pi/2) times that of their mean.
_MEDIAN_STANDARD_ERROR = math.sqrt(math.pi / 2)


@dataclass(frozen=True)
class Spread:
    pct: float  # relative spread of one repetition, %
    repetitions: int  # behind the figure (1: a single run, spread from noise_pct)


@dataclass(frozen=True)
class Row:
    name: str
    metric: Metric
    baseline: float
    contender: float
    ratio: float  # how many times better the contender is: > 1 faster, < 1 slower
    base_spread: Spread | None
    cont_spread: Spread | None
    host_timed: bool | None  # None: neither file says
    resolution_pct: float  # smallest change this benchmark can detect, in % of the ratio
    p_value: float | None  # Mann-Whitney U, where both sides have repetitions
    p_reachable: bool  # whether p < alpha is possible with this many repetitions
    verdict: str
    why: str | None = None  # why no verdict could be reached, where UNRESOLVED
    # A change in NEW judged again on confirming runs alone: True where they gave the same
    # verdict, False where they did not (the verdict is then SAME); None where not judged again.
    confirmed: bool | None = None
    first_verdict: str | None = None  # NEW's own verdict where it was judged again
    # A host-timed figure over host work timed in the same rounds (Benchmark.paced_by_host),
    # judged by the GPU's floor: host_timed is False for it.
    host_referenced: bool = False

    @property
    def verdict_text(self) -> str:
        if self.confirmed is None:
            return self.verdict
        return (f"{self.verdict} (confirmed)" if self.confirmed
                else f"{self.verdict} ({self.first_verdict} not confirmed)")

    @property
    def family(self) -> str:
        return family_of(self.name)

    @property
    def size_of_change(self) -> float:
        """|ln ratio|: the same for 1.05× slower and 1.05× faster; NaN sorts as no change."""
        return abs(math.log(self.ratio)) if math.isfinite(self.ratio) else -1.0


@dataclass(frozen=True)
class FamilySummary:
    family: str
    geomean_ratio: float
    counts: dict[str, int]  # by verdict

    @property
    def compared(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Comparison:
    base: Result
    cont: Result
    rows: list[Row]  # by family; within one, the largest change first
    rules: Rules
    forced_report: bool  # --report: a report even where a regression check could be made
    context_differences: list[str]  # the context keys whose values differ
    # Measurement settings both files state otherwise (key, BASE's, NEW's), of those that apply
    # to a family compared: settings.MEASUREMENT_SETTINGS.
    differing_settings: list[tuple[str, str, str]]
    only_base: list[str]
    only_cont: list[str]
    confirm: Result | None = None  # runs that judged NEW's changes again
    accept_unresolved: bool = False  # --accept-unresolved: UNRESOLVED fails no regression check

    @property
    def checkable(self) -> bool:
        """Whether a difference between the two files can be judged a regression: one GPU,
        driver and CUDA, measured with the same settings, against a BASE recorded in separate
        runs."""
        return not (self.differing_identity or self.differing_settings or self.one_process_base)

    @property
    def regression_check(self) -> bool:
        return self.checkable and not self.forced_report

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == SLOWER] if self.regression_check else []

    @property
    def unresolved(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == UNRESOLVED]

    @property
    def failing_unresolved(self) -> bool:
        """Whether UNRESOLVED benchmarks fail this regression check (unless accepted)."""
        return bool(self.regression_check and self.unresolved and not self.accept_unresolved)

    def changed(self, verdict: str) -> list[Row]:
        """The rows of `verdict`, the largest change first."""
        return sorted((r for r in self.rows if r.verdict == verdict), key=largest_first)

    @property
    def not_confirmed(self) -> list[Row]:
        """The changes NEW showed that its confirming runs did not (now SAME), the largest
        first."""
        return sorted((r for r in self.rows if r.confirmed is False and r.verdict == SAME),
                      key=largest_first)

    @property
    def exit_status(self) -> int:
        return 1 if self.regressions or self.failing_unresolved else 0

    @property
    def one_process_base(self) -> bool:
        """BASE is one process's run: what moves between processes (each allocates its buffers
        anew and meets the host's speed of its minute) is in none of its figures' spreads, so
        no difference from it can be judged a regression."""
        return self.base.separate_runs == 1

    @property
    def differing_identity(self) -> list[str]:
        return [k for k in IDENTITY_KEYS
                if self.base.context_text(k) != self.cont.context_text(k)]

    @property
    def other_card(self) -> tuple[str, str] | None:
        """Both sides' gpu_uuid where they name two cards; None for one card or an unknown one."""
        uuids = (self.base.context_text(CARD_KEY), self.cont.context_text(CARD_KEY))
        if not all(uuids) or uuids[0] == uuids[1]:
            return None
        return one_line(uuids[0], CARD_SHOWN), one_line(uuids[1], CARD_SHOWN)


def natural_key(name: str) -> tuple[tuple[tuple[str, tuple[int, str]], ...], ...]:
    """Sorts names by family, variant and size, numbers as numbers: .../4096 before
    .../65536, params:256 before params:4096. A run of digits is ordered by its length without
    leading zeros, then by its digits: the number's order, for a run of any length (int() would
    refuse one of thousands of digits)."""
    def number_key(digits: str) -> tuple[int, str]:
        significant = digits.lstrip("0")
        return (len(significant), significant) if digits else (-1, "")

    def part_key(part: str) -> tuple[tuple[str, tuple[int, str]], ...]:
        pieces = re.split(r"(\d+)", part)  # text at even indices, digits at odd ones
        return tuple((text, number_key(digits))
                     for text, digits in zip(pieces[::2], [*pieces[1::2], ""]))
    return tuple(part_key(part) for part in name.split("/"))


def largest_first(row: Row) -> tuple:
    return -row.size_of_change, natural_key(row.name)


def better_ratio(baseline: float, contender: float, bigger_is_better: bool) -> float:
    """How many times better the contender is (GB/s: contender / baseline; µs: baseline /
    contender)."""
    if baseline <= 0 or contender <= 0:
        return math.nan
    return contender / baseline if bigger_is_better else baseline / contender


def change_pct(ratio: float) -> float:
    """The size of a change in % of the symmetric ratio: 1.05× faster and 1.05× slower are
    both 5."""
    return (max(ratio, 1 / ratio) - 1) * 100 if math.isfinite(ratio) else math.nan


def separated_p(base: np.ndarray, cont: np.ndarray) -> float:
    """The smallest p the U test gives to samples of these sizes and these ties within each
    side: that of NEW's values moved past all of BASE's, as a change no run hides would move
    them."""
    return mann_whitney_p(base, cont - cont.min() + base.max() + 1)


def reachable(base_runs: int, new_runs: int, alpha: float, ties: bool | None = None) -> bool:
    """Whether the U test over this many repetitions a side can give p < alpha: with a tie or two
    among the runs (`ties`) or none, or, where None, either way (every benchmark of a suite can).
    scipy computes p exactly where a side holds at most 8 and no values tie, and otherwise by the
    normal approximation, whose smallest p is larger for few runs (3 against 13: 0.0036 exact,
    0.0106 approximated); a tie's correction narrows it, hardly for a tie or two, so theirs is the
    approximation's own (many ties reach lower: separated_p). Where a side has fewer than 2 no
    test is made, and the verdict rests on the resolution alone."""
    if base_runs < 2 or new_runs < 2:
        return True
    # Imported here: scipy.stats is most of the start-up time.
    from scipy.stats import mannwhitneyu

    base = np.arange(base_runs, dtype=float)
    new = np.arange(new_runs, dtype=float) + base_runs
    cases = (False, True) if ties is None else (ties,)
    return all(mannwhitneyu(base, new, alternative="two-sided",
                            method="asymptotic" if tied else "auto").pvalue < alpha
               for tied in cases)


def mann_whitney_p(base: Iterable[float], cont: Iterable[float]) -> float:
    base, cont = list(base), list(cont)
    # The same values on both sides (a run against itself, as the gate first reads its
    # baseline): U sits at its mean, where the test's p is 1.
    if sorted(base) == sorted(cont):
        return 1.0
    # Imported here: scipy.stats is most of the start-up time, and only repetitions need it.
    from scipy.stats import mannwhitneyu

    p = float(mannwhitneyu(base, cont, alternative="two-sided").pvalue)
    return 1.0 if math.isnan(p) else p  # NaN: every value equal on both sides


def side_spread(bench: Benchmark, metric: Metric) -> Spread | None:
    """The relative spread of one repetition of a figure: the larger of its repetitions'
    robust spread and gpubench's noise_pct; Google Benchmark's cv where only aggregates are
    left; None where the file says nothing of it. A figure of 0 (a gap of 0 ns) has no spread
    relative to it, only its noise_pct."""
    robust = None
    repetitions = int(bench.repetition_values(metric).size) or 1
    if bench.value(metric) != 0:
        robust = bench.robust_spread_pct(metric)
        if robust is None and (cv := bench.cv_pct(metric)) is not None:
            robust, repetitions = cv
    found = [x for x in (robust, bench.noise_pct) if x is not None]
    return Spread(max(found), repetitions) if found else None


def figure_spread_pct(spread: Spread) -> float:
    """The spread of a side's figure, the median of its repetitions: the spread of one
    repetition over sqrt(n), times sqrt(pi/2) (a median's standard error against a mean's);
    one repetition's spread where the figure is a single run."""
    if spread.repetitions < 2:
        return spread.pct
    return spread.pct * _MEDIAN_STANDARD_ERROR / math.sqrt(spread.repetitions)


def resolution_pct(base: Spread | None, cont: Spread | None, host_timed: bool | None,
                   rules: Rules, base_reach: float = 0.0) -> float:
    """The largest of the floor, --sigmas times the combined spread of both sides' figures, and
    `base_reach`, how far a median of NEW's runs can lie among BASE's own runs (reach_pct; by
    default BASE's farthest run): one build moves by that much between runs (each process lands
    on a level of its own), so a change within it is no measurement of the candidate."""
    floor = rules.host_threshold if host_timed else rules.threshold
    spread = math.hypot(*(figure_spread_pct(s) for s in (base, cont) if s is not None))
    return max(floor, rules.sigmas * spread, base_reach)


def compare_benchmark(base: Benchmark, cont: Benchmark, rules: Rules) -> Row:
    # Fall back to real time if the files disagree on which counters a benchmark reports.
    metric = base.metric if base.metric == cont.metric else REAL_TIME_US
    why = incomparable(base, cont, metric)
    b_reps, c_reps = base.repetition_values(metric), cont.repetition_values(metric)
    p_value = None
    if len(b_reps) >= 2 and len(c_reps) >= 2:
        p_value = mann_whitney_p(b_reps, c_reps)
    p_reachable = (p_value is None or not np.isfinite(np.concatenate([b_reps, c_reps])).all()
                   or separated_p(b_reps, c_reps) < rules.alpha)
    b_value, c_value = base.value(metric), cont.value(metric)
    ratio = better_ratio(b_value, c_value, metric.bigger_is_better)
    # Where the files say otherwise, or only one says host-timed, the benchmark is incomparable;
    # one that says nothing beside GPU time is judged by the GPU's floor.
    timing = {base.paced_by_host(metric), cont.paced_by_host(metric)} - {None}
    host_timed = min(timing) if timing else None
    b_spread, c_spread = side_spread(base, metric), side_spread(cont, metric)
    resolution = resolution_pct(b_spread, c_spread, host_timed, rules,
                                reach_pct(b_value, b_reps, len(c_reps),
                                          rules.reach_chance))
    significant = p_value is None or p_value < rules.alpha
    verdict = SAME
    pcts = [None if s is None else s.pct for s in (b_spread, c_spread)]
    if why := why or unresolved_why(*pcts, resolution):
        verdict = UNRESOLVED
    elif change_pct(ratio) > resolution and significant:
        verdict = FASTER if ratio > 1 else SLOWER
    elif significant and min(b_value, c_value) == 0 < max(b_value, c_value):
        # A figure of 0 on one side (a gap of 0 ns) has no ratio, and any change from it is past
        # every resolution.
        verdict = FASTER if (c_value > b_value) == metric.bigger_is_better else SLOWER
    referenced = base.over_host_reference(metric) and cont.over_host_reference(metric)
    return Row(base.name, metric, b_value, c_value, ratio, b_spread, c_spread, host_timed,
               resolution, p_value, p_reachable, verdict, why, host_referenced=referenced)


def settings_differences(base: Result, cont: Result,
                         families: set[str]) -> list[tuple[str, str, str]]:
    """Each measurement setting that applies to one of `families` and that both files state,
    otherwise: (key, BASE's, NEW's), each value one line of at most SETTING_SHOWN characters. A
    file that does not say (no saxpy_l2) differs in nothing."""
    differing = []
    for setting in MEASUREMENT_SETTINGS:
        if setting.family is not None and setting.family not in families:
            continue
        b, c = setting_text(base.context, setting), setting_text(cont.context, setting)
        if b is not None and c is not None and b != c:
            differing.append((setting.key, one_line(b, SETTING_SHOWN),
                              one_line(c, SETTING_SHOWN)))
    return differing


def settings_text(differing: list[tuple[str, str, str]]) -> str:
    """'saxpy_l2 cold vs warm, energy off vs on' (BASE's vs NEW's)."""
    return ", ".join(f"{key} {b} vs {c}" for key, b, c in differing)


def filter_text(value: str | None) -> str:
    """The filter a run states (the context's benchmark_filter), as a note or a refusal names
    it."""
    return "no --benchmark_filter" if value is None else \
        f"--benchmark_filter={one_line(value, SETTING_SHOWN)}"


def context_differences(base: Result, cont: Result) -> list[str]:
    """The context keys whose values differ (or that one file lacks), the leading keys first."""
    keys = sorted(base.context.keys() | cont.context.keys(),
                  key=lambda k: (LEADING_CONTEXT_KEYS.index(k) if k in LEADING_CONTEXT_KEYS
                                 else len(LEADING_CONTEXT_KEYS), k))
    return [key for key in keys if base.context_text(key) != cont.context_text(key)]


def family_order(base: Result, cont: Result) -> dict[str, int]:
    """Where each family lists: in its facts' order (as the files list them, in files without
    facts), BASE's families first."""
    return {family: rank for rank, family in enumerate(dict.fromkeys([*base.families,
                                                                      *cont.families]))}


def row_order(row: Row, families: dict[str, int]) -> tuple:
    """By family; within a family the largest change first, then by name."""
    return families.get(row.family, len(families)), -row.size_of_change, natural_key(row.name)


def compare(base: Result, cont: Result, rules: Rules, force_report: bool = False,
            pattern: NameFilter | None = None, accept_unresolved: bool = False) -> Comparison:
    """The comparison of the benchmarks both files hold (those `pattern` finds, if given).
    Raises FilterError for a pattern too slow to match."""
    def selected(names: Iterable[str]) -> set[str]:
        return set(names if pattern is None else pattern.select(names))

    base_names, cont_names = selected(base.benchmarks), selected(cont.benchmarks)
    common = base_names & cont_names
    families = family_order(base, cont)
    rows = sorted((compare_benchmark(base.benchmarks[n], cont.benchmarks[n], rules)
                   for n in common), key=lambda row: row_order(row, families))
    return Comparison(
        base, cont, rows, rules, force_report, context_differences(base, cont),
        settings_differences(base, cont, {row.family for row in rows}),
        sorted(base_names - common, key=lambda n: (families.get(family_of(n), 0),
                                                   natural_key(n))),
        sorted(cont_names - common, key=lambda n: (families.get(family_of(n), 0),
                                                   natural_key(n))),
        accept_unresolved=accept_unresolved,
    )


def confirm_rows(rows: list[Row], base: Result, confirm: Result, rules: Rules) -> list[Row]:
    """`rows` with each change judged again on `confirm`'s runs alone against `base`: it stands
    where they give the same verdict, is UNRESOLVED where they can give none and is SAME
    otherwise. NEW's runs are the ones that showed the change, so judging them again with more
    runs beside them would count them twice; fresh runs alone are an independent second look.
    A change `confirm` does not hold stays, and so does UNRESOLVED."""
    judged = []
    for row in rows:
        if row.verdict in CHANGE_ORDER and row.name in confirm.benchmarks:
            again = compare_benchmark(base.benchmarks[row.name], confirm.benchmarks[row.name],
                                      rules)
            same = again.verdict == row.verdict
            verdict = row.verdict if same else (UNRESOLVED if again.why else SAME)
            why = again.why and f"the confirming runs give no verdict: {again.why}"
            row = replace(row, verdict=verdict, confirmed=same, first_verdict=row.verdict,
                          why=why)
        judged.append(row)
    return judged


def confirmed(comparison: Comparison, confirm: Result) -> Comparison:
    """`comparison` with its changes judged again on `confirm` (confirm_rows). GpubenchJsonError
    where `confirm` is of another GPU, driver, CUDA or build than NEW, measured otherwise or
    given another filter."""
    c = comparison
    for other, side in ((c.cont, "NEW"), (c.base, "BASE")):
        if same_file(confirm.path, other.path):
            raise GpubenchJsonError(f"{confirm.path}: is {side} ({other.path}): the confirming "
                                    "runs must be runs of their own")
    for key in (*IDENTITY_KEYS, CARD_KEY, "gpubench_version"):
        if confirm.context_text(key) != c.cont.context_text(key):
            raise GpubenchJsonError(
                f"{confirm.path}: {key} {one_line(confirm.context_text(key) or '(absent)', 80)} "
                f"differs from NEW's ({one_line(c.cont.context_text(key) or '(absent)', 80)}): "
                "the confirming runs must be of NEW's build on NEW's GPU")
    if differing := settings_differences(c.cont, confirm, {row.family for row in c.rows}):
        raise GpubenchJsonError(f"{confirm.path}: measured otherwise than NEW "
                                f"({settings_text(differing)}, NEW's first): the confirming "
                                "runs must be measured as NEW was")
    if (given := confirm.context_text(FILTER_KEY)) != (new := c.cont.context_text(FILTER_KEY)):
        raise GpubenchJsonError(
            f"{confirm.path}: states {filter_text(given)}, NEW {filter_text(new)}: the "
            "confirming runs must run NEW's benchmarks as NEW did, since among fewer others a "
            "benchmark can measure otherwise")
    return replace(c, rows=confirm_rows(c.rows, c.base, confirm, c.rules), confirm=confirm)


def rows_by_family(rows: list[Row]) -> dict[str, list[Row]]:
    return by_family(rows, lambda row: row.name)


def _geometric_mean(ratios: list[float]) -> float:
    """The ratios' geometric mean: 0 where one is 0, NaN where there are none."""
    if not ratios:
        return math.nan
    with np.errstate(divide="ignore"):
        return float(np.exp(np.log(ratios).mean()))


def family_summaries(rows: list[Row]) -> list[FamilySummary]:
    summaries = []
    for family, members in rows_by_family(rows).items():
        ratios = [r.ratio for r in members if math.isfinite(r.ratio)]
        counts = {v: sum(r.verdict == v for r in members)
                  for v in (FASTER, SLOWER, SAME, UNRESOLVED)}
        summaries.append(FamilySummary(family, _geometric_mean(ratios), counts))
    return summaries
