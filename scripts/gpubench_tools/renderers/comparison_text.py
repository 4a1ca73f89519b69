"""A Comparison as text: plain text for terminals and CI logs, markdown for
$GITHUB_STEP_SUMMARY and report.md.

render_comparison gives gpubench-tools compare's output: the verdict and the largest changes first,
the details after, the verdict again last. Each section is a list of blocks; blocks are joined by
blank lines. gpubench-tools report builds report.md from the same sections, and the HTML report and
its figures take their formats of values and ratios, notes and verdict lines from here, so every
report reads alike.
"""

import json
import math
from collections.abc import Sequence

from gpubench_tools.models.comparison import (
    ANSWER_ORDER,
    FASTER,
    SAME,
    SLOWER,
    UNRESOLVED,
    Comparison,
    Row,
    Spread,
    family_summaries,
    filter_text,
    rows_by_family,
    settings_text,
)
from gpubench_tools.models.launch_ratios import agreements, ratio_rows
from gpubench_tools.reading.facts import THROTTLE_DROP, by_family
from gpubench_tools.reading.fleet.health_records import parse_record
from gpubench_tools.reading.results import Result
from gpubench_tools.reading.safe_text import markdown_text, one_line, printable, shorten
from gpubench_tools.reading.safe_text import printable_lines
from gpubench_tools.reading.settings import FILTER_KEY, INTERLEAVING_KEY, SETTING_SHOWN
from gpubench_tools.renderers.launch_ratios_text import format_agreements
from gpubench_tools.renderers.text_table import render
from gpubench_tools.renderers.verdict_text import rule_text, verdict_line

LARGEST_SHOWN = 5  # names listed in a one-line message
CHANGES_SHOWN = 30  # changes of one verdict listed under the verdict; the rest are counted
NEAR_SHOWN = 3  # SAME rows listed with the largest changes within their resolution
VERSION_SHOWN = 60  # characters of a gpubench_version shown in a run's label
CONTEXT_SHOWN = 80  # characters of a context value shown among the context differences
NAMES_SHOWN = 8  # names of one family listed before they are folded into groups with counts
GROUPS_SHOWN = 12  # groups of names listed before the rest is counted
ABSENT = "(absent)"  # a context key or field one file lacks, as the context differences show it


def format_value(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def format_ratio(ratio: float) -> str:
    """'1.80× faster', '1.25× slower' ('×' times as fast as the baseline, or as slow)."""
    if not math.isfinite(ratio):
        return "-"
    if round(ratio, 2) == 1 and round(1 / ratio, 2) == 1:
        return "1.00×"
    times = ratio if ratio > 1 else 1 / ratio
    shown = f"{times:.2f}" if times < 100 else f"{times:.0f}"
    return f"{shown}× faster" if ratio > 1 else f"{shown}× slower"


def format_resolution(pct: float) -> str:
    """The resolution in the ratio's own terms: '1.03×' (a change of 3% either way)."""
    times = 1 + pct / 100
    return f"{times:.2f}×" if times < 100 else f"{times:.0f}×"


def format_spread(spread: Spread | None) -> str:
    return "-" if spread is None else f"{spread.pct:.2f}"


def format_timing(row: Row) -> str:
    """What paces the figure: the host, the GPU, or the host timed over a host reference
    (`host/ref`, judged by the GPU's floor); `-` where neither file says."""
    if row.host_referenced:
        return "host/ref"
    return "-" if row.host_timed is None else ("host" if row.host_timed else "GPU")


def repetitions(row: Row) -> str:
    return " / ".join("-" if s is None else str(s.repetitions)
                      for s in (row.base_spread, row.cont_spread))


TABLE_HEADERS = ["benchmark", "BASE", "NEW", "unit", "NEW vs BASE", "resolution",
                 "spread % BASE", "spread % NEW", "repetitions", "clock", "p", "verdict"]


def table_row(row: Row) -> list[str]:
    return [
        row.name,
        format_value(row.baseline),
        format_value(row.contender),
        row.metric.unit,
        format_ratio(row.ratio),
        format_resolution(row.resolution_pct),
        format_spread(row.base_spread),
        format_spread(row.cont_spread),
        repetitions(row),
        format_timing(row),
        "-" if row.p_value is None else f"{row.p_value:.3g}",
        row.verdict_text,
    ]


def heading(title: str, markdown: bool, level: int = 2) -> str:
    return f"{'#' * level} {title}" if markdown else f"{title}\n{'=' * len(title)}"


def setup_text(result: Result) -> str:
    return f"{result.describe()}, CUDA {printable(result.cuda_version)}"


def mode_line(comparison: Comparison) -> str:
    c = comparison
    if c.regression_check:
        if (cards := c.other_card) is None:
            return f"Regression check: same GPU, driver and CUDA ({setup_text(c.base)})."
        return (f"Regression check: same GPU model, driver and CUDA ({setup_text(c.base)}), "
                f"but another card (BASE {cards[0]}, NEW {cards[1]}): what differs between two "
                "cards of one model shows here as a change.")
    differing = c.differing_identity
    why = "; ".join([*([f"{', '.join(differing)} differ"] if differing else []),
                     *([f"measured otherwise: {settings_text(c.differing_settings)}"]
                       if c.differing_settings else []),
                     *(["BASE is one process's run"] if c.one_process_base else [])]) \
        or "--report"
    cards = "" if c.other_card is None else \
        f"; another card (BASE {c.other_card[0]}, NEW {c.other_card[1]})"
    return (f"Comparison report, not a regression check ({why}): "
            f"{setup_text(c.base)} vs {setup_text(c.cont)}{cards}.")


def run_text(result: Result) -> str:
    """A run as its label reads: GPU, driver and the gpubench build (context gpubench_version,
    which names its commit), so that two commits' runs read apart."""
    version = result.context_text("gpubench_version")
    return result.describe() + (f", gpubench {one_line(version, VERSION_SHOWN)}"
                                if version else "")


def header_section(comparison: Comparison, markdown: bool,
                   title: str = "gpubench comparison", level: int = 2) -> list[str]:
    """The verdict, the changes with their uncertainty (answer_section), then the files, the
    mode and the rule."""
    c = comparison
    files = [f"BASE: {printable(c.base.path)} ({run_text(c.base)})",
             f"NEW:  {printable(c.cont.path)} ({run_text(c.cont)})"]
    if c.confirm is not None:
        files.append(f"CONFIRM: {printable(c.confirm.path)}: each change NEW shows judged again "
                     "on these runs alone, standing where they give the same verdict")
    if markdown:  # text from the files, and so each line holding it, renders as text
        return [heading(title, True, level), markdown_text(verdict_line(c)),
                *answer_section(c, True), "\n".join(f"- {markdown_text(line)}" for line in files),
                markdown_text(mode_line(c)), markdown_text(rule_text(c.rules, bool(c.unresolved)))]
    return [verdict_line(c), *answer_section(c, False),
            "\n".join([*files, mode_line(c), rule_text(c.rules, bool(c.unresolved))])]


def format_p(row: Row) -> str:
    return "no U test" if row.p_value is None else f"p {row.p_value:.2g}"


def spread_text(row: Row) -> str:
    """Each side's spread of one repetition, BASE's first: '1.1% / 0.75%'."""
    return " / ".join("-" if s is None else f"{s.pct:.2g}%"
                      for s in (row.base_spread, row.cont_spread))


def uncertainty_text(row: Row) -> str:
    """'resolution 1.03×, spread 1.1% / 0.75%, p 0.0079': what a change had to pass."""
    return (f"resolution {format_resolution(row.resolution_pct)}, spread {spread_text(row)}, "
            f"{format_p(row)}")


def change_text(row: Row) -> str:
    """'name: 1.05× slower (resolution 1.03×, spread 1.1% / 0.75%, p 0.0079)', and whether
    confirming runs confirmed it."""
    confirmed = {True: ", confirmed", False: f", {row.first_verdict} not confirmed"}.get(
        row.confirmed, "")
    why = f": {row.why}" if row.why else ""
    return f"{row.name}: {format_ratio(row.ratio)} ({uncertainty_text(row)}){confirmed}{why}"


CHANGE_HEADERS = ["benchmark", "BASE", "NEW", "unit", "NEW vs BASE", "resolution",
                  "spread % BASE / NEW", "p", "verdict"]


def change_row(row: Row) -> list[str]:
    return [row.name, format_value(row.baseline), format_value(row.contender), row.metric.unit,
            format_ratio(row.ratio), format_resolution(row.resolution_pct), spread_text(row),
            "-" if row.p_value is None else f"{row.p_value:.2g}",
            row.verdict_text + (f": {row.why}" if row.why else "")]


def family_counts(names: Sequence[str]) -> str:
    """'copy (12), saxpy (3)': how many of `names` each family holds."""
    return ", ".join(f"{family} ({len(members)})"
                     for family, members in by_family(names, str).items())


def changes_block(title: str, rows: list[Row], markdown: bool) -> list[str]:
    """A list of changes under its title: the first CHANGES_SHOWN, the rest counted by family
    (markdown: folded)."""
    shown, rest = rows[:CHANGES_SHOWN], rows[CHANGES_SHOWN:]
    if markdown:
        blocks = [markdown_text(title), render(CHANGE_HEADERS, [change_row(r) for r in shown],
                                               markdown=True, align="left")]
        if rest:
            blocks.append(f"<details><summary>the other {len(rest)}: "
                          f"{markdown_text(family_counts([r.name for r in rest]))}</summary>\n\n"
                          + render(CHANGE_HEADERS, [change_row(r) for r in rest],
                                   markdown=True, align="left") + "\n\n</details>")
        return blocks
    lines = [title, *(f"  {change_text(r)}" for r in shown)]
    if rest:
        lines.append(f"  and {len(rest)} more ({family_counts([r.name for r in rest])}), each "
                     "in its family's table below")
    return ["\n".join(lines)]


def answer_section(comparison: Comparison, markdown: bool) -> list[str]:
    """The changes under the verdict, SLOWER first, then UNRESOLVED (each with why), then
    FASTER, each with its ratio and uncertainty, the largest first; then the changes confirming
    runs did not confirm; then how many are SAME, with the largest changes within their
    resolution."""
    c, blocks = comparison, []
    for verdict in ANSWER_ORDER:
        if rows := c.changed(verdict):
            what = ": no verdict can be reached," if verdict == UNRESOLVED else ","
            blocks += changes_block(f"{verdict} ({len(rows)}){what} NEW vs BASE, the largest "
                                    "first:", rows, markdown)
    if rows := c.not_confirmed:
        blocks += changes_block(f"Not confirmed ({len(rows)}): changes NEW showed that its "
                                "confirming runs did not, so SAME:", rows, markdown)
    same = c.changed(SAME)
    if same:
        near = [r for r in same if r.size_of_change > 0 and r.confirmed is None][:NEAR_SHOWN]
        title = f"{len(same)} SAME" + (", the largest changes within their resolution:"
                                      if near else ".")
        bullet, shown = ("- ", markdown_text) if markdown else ("  ", str)
        blocks.append("\n".join([title, *(f"{bullet}{shown(change_text(r))}" for r in near)]))
    return blocks


def context_fields(result: Result, key: str) -> dict[str, str]:
    """A context value as rows: a JSON object (a GPU's health) field by field, else itself."""
    text = result.context_text(key)
    if text is None:
        return {}
    value = parse_record(result.context[key])
    if isinstance(value, dict):
        return {f"{key}.{field}": json.dumps(v, ensure_ascii=False) if not isinstance(v, str)
                else v for field, v in value.items()}
    return {key: text}


def differing_context(results: Sequence[Result], key: str) -> list[tuple[str, list[str]]]:
    """The rows in which the results' context `key` differs, each (name, a cell per result): of
    a JSON object every result holds (a GPU's health), the fields that differ, so a changed
    error count is not lost in a line of every field; else the key, as each holds it."""
    per_result = [context_fields(result, key) for result in results]
    if any(not fields or key in fields for fields in per_result):  # not an object in each
        per_result = [{key: text} if (text := result.context_text(key)) is not None else {}
                      for result in results]
    rows = []
    for field in dict.fromkeys(f for fields in per_result for f in fields):
        cells = [fields.get(field, ABSENT) for fields in per_result]
        if len(set(cells)) > 1:
            rows.append((field, cells))
    return rows


def context_section(comparison: Comparison, markdown: bool) -> list[str]:
    """The context keys that differ (differing_context)."""
    if not comparison.context_differences:
        return [f"{heading('Context', markdown, 3)}\n\nThe contexts are identical."]
    rows = [[field, *(cut_value(cell) for cell in cells)]
            for key in comparison.context_differences
            for field, cells in differing_context([comparison.base, comparison.cont], key)]
    return [heading("Context differences", markdown, 3),
            render(["context key", "BASE", "NEW"], rows, markdown=markdown, align="left")]


def cut_value(text: str) -> str:
    """A context value cut to CONTEXT_SHOWN characters, saying how long it is where cut: a
    family schema or a GPU's health is thousands of characters on one line."""
    if len(text) <= CONTEXT_SHOWN:
        return text
    return f"{shorten(text, CONTEXT_SHOWN)} ({len(text):,} characters)"


def summary_section(comparison: Comparison, markdown: bool) -> list[str]:
    verdicts = [FASTER, SLOWER, SAME] + ([UNRESOLVED] if comparison.unresolved else [])
    rows = [[s.family, str(s.compared), format_ratio(s.geomean_ratio),
             *(str(s.counts[v]) for v in verdicts)] for s in family_summaries(comparison.rows)]
    return [heading("Summary per family", markdown, 3),
            render(["family", "compared", "NEW vs BASE (geometric mean)", *verdicts],
                   rows, markdown=markdown)]


def only_in_one_section(comparison: Comparison, markdown: bool) -> list[str]:
    blocks = []
    for label, names, other in (("BASE", comparison.only_base, comparison.cont),
                                ("NEW", comparison.only_cont, comparison.base)):
        if not names:
            continue
        lines = []
        for family, members in by_family(names, str).items():
            if not other.family(family):
                listed = f"all {len(members)} (the other file has no {family} benchmarks)"
            else:
                listed = folded_names(members)
            line = f"{family} ({len(members)}): {listed}"
            lines.append(f"- {markdown_text(line)}" if markdown else f"  {line}")
        blocks.append(f"Only in {label} ({len(names)}), not compared:\n" + "\n".join(lines))
    return [heading("Benchmarks in one file only", markdown, 3), *blocks] if blocks else []


def folded_names(names: list[str]) -> str:
    """Names of one family as a reader takes them in: each where there are NAMES_SHOWN or fewer,
    else grouped by their first two parts with a count each ('copy/HtoD (120), ...'), the
    first GROUPS_SHOWN groups and how many more."""
    if len(names) <= NAMES_SHOWN:
        return ", ".join(names)
    groups: dict[str, int] = {}
    for name in names:
        group = "/".join(name.split("/")[:2])
        groups[group] = groups.get(group, 0) + 1
    shown = [f"{group} ({count})" for group, count in list(groups.items())[:GROUPS_SHOWN]]
    if len(groups) > GROUPS_SHOWN:
        rest = list(groups.values())[GROUPS_SHOWN:]
        shown.append(f"{len(groups) - GROUPS_SHOWN} more groups ({sum(rest)})")
    return ", ".join(shown)


def family_tables(comparison: Comparison, markdown: bool,
                  only_changed: bool) -> list[tuple[str, str | None]]:
    """(title, table) per family; the table is None where --only-changed leaves no row."""
    tables = []
    for family, rows in rows_by_family(comparison.rows).items():
        # A change the confirming runs did not show is listed too: it is what the gate cleared.
        shown = ([r for r in rows if r.verdict != SAME or r.confirmed is False]
                 if only_changed else rows)
        title = f"{family}: {len(rows)} compared"
        if only_changed:
            title += f", {sum(r.verdict != SAME for r in shown)} changed"
        table = render(TABLE_HEADERS, [table_row(r) for r in shown], markdown=markdown)
        tables.append((title, table if shown else None))
    return tables


def tables_section(comparison: Comparison, markdown: bool, only_changed: bool) -> list[str]:
    """Each family's table of every benchmark (of the changes, with only_changed); in markdown,
    a summary for CI, each folded: the changes above are what is read."""
    blocks = []
    for title, table in family_tables(comparison, markdown, only_changed):
        if markdown:
            body = table if table is not None else "No benchmark changed."
            blocks.append(f"<details><summary>{markdown_text(title)}</summary>\n\n{body}\n\n"
                          "</details>")
            continue
        blocks.append(heading(title, markdown, 3))
        if table is not None:
            blocks.append(table)
    return blocks


def paired_section(comparison: Comparison, markdown: bool) -> list[str]:
    """The launch paths' paired ratios (launch/paired/) of both runs, each with its 95%
    interval, and whether the two runs agree (their intervals overlap)."""
    compared = {r.name for r in comparison.rows}
    pairs = [p for p in agreements(ratio_rows(comparison.base), ratio_rows(comparison.cont))
             if p.first.benchmark in compared]
    if not pairs:
        return []
    agreeing = sum(p.overlap for p in pairs)
    table = format_agreements(pairs, markdown, labels=("BASE", "NEW"))
    if markdown:
        table = f"<details><summary>the {len(pairs)} ratios</summary>\n\n{table}\n\n</details>"
    return [heading("Launch paths against each other (launch/paired/)", markdown, 3),
            f"{agreeing} of {len(pairs)} paired ratios agree between BASE and NEW (their 95% "
            "intervals overlap); a ratio below 1 is the cheaper path.", table]


def kernel_clock_note(comparison: Comparison) -> str | None:
    """A note naming the compared benchmarks whose kernels read SM clocks more than
    THROTTLE_DROP apart on the two sides (sm_clock_kernel_mhz, a condition of the figure, not a
    figure compared): their change may be the clock's."""
    apart = []
    for row in comparison.rows:
        base = comparison.base.benchmarks[row.name].kernel_sm_clock_mhz
        cont = comparison.cont.benchmarks[row.name].kernel_sm_clock_mhz
        if base and cont and abs(cont - base) > THROTTLE_DROP * max(base, cont):
            apart.append(f"{row.name} ({base:.0f} vs {cont:.0f} MHz)")
    if not apart:
        return None
    shown = ", ".join(apart[:10]) + (", ..." if len(apart) > 10 else "")
    return (f"{len(apart)} compared benchmark(s) ran at SM clocks more than "
            f"{100 * THROTTLE_DROP:.0f}% apart as their kernels read them "
            f"(sm_clock_kernel_mhz, BASE vs NEW): {shown}. Their change may be the clock's.")


def notes_section(comparison: Comparison, markdown: bool = False) -> list[str]:
    c, notes = comparison, []
    for label, result in (("BASE", c.base), ("NEW", c.cont)):
        with_reps = sum(b.repetition_values().size >= 2 for b in result.benchmarks.values())
        if with_reps == 0:
            how = ("only aggregates (--benchmark_report_aggregates_only=true)"
                   if any(b.cv is not None for b in result.benchmarks.values())
                   else "one run per benchmark")
            notes.append(f"{label} ({result.path}) holds no repetitions, {how}: no verdict "
                         "has the U test, and a run's spread from one minute to the next is "
                         "not in its resolution. Record both sides with scripts/gpubench-tools "
                         "record (docs/ci.md).")
    for label, result in (("BASE", c.base), ("NEW", c.cont)):
        throttled = [r.name for r in c.rows if result.benchmarks[r.name].throttled]
        if throttled:
            shown = ", ".join(throttled[:10]) + (", ..." if len(throttled) > 10 else "")
            notes.append(f"{label} ran {len(throttled)} compared benchmark(s) with the GPU's "
                         f"clocks held down (clock_limited_ms, or the SM clock fell by more than "
                         f"10%): {shown}. Their figures are of a throttled GPU.")
    if clock_note := kernel_clock_note(comparison):
        notes.append(clock_note)
    if filter_note := filter_difference_note(comparison):
        notes.append(filter_note)
    if order_note := interleaving_difference_note(comparison):
        notes.append(order_note)
    untested = sum(r.p_value is None for r in c.rows)
    if untested and not notes:
        notes.append(f"{untested} benchmark(s) lack repetitions in a file: their verdicts "
                     "rest on the resolution alone.")
    unreachable = sum(not r.p_reachable for r in c.rows)
    if unreachable:
        notes.append(f"{unreachable} benchmark(s) have too few repetitions for p < "
                     f"{c.rules.alpha:g} to be possible, so they stay SAME; use more "
                     "repetitions.")
    if c.rows and all(r.host_timed is None for r in c.rows):
        notes.append("Neither file says which figures are host-timed (gpubench writes "
                     "host_timed since it measures its own noise): every resolution has the "
                     f"{c.rules.threshold:g}% floor.")
    return [markdown_text(note) for note in notes] if markdown else notes


def filter_difference_note(comparison: Comparison) -> str | None:
    """Where the two runs were given different --benchmark_filter (one of them none), that a
    benchmark among other benchmarks can measure otherwise; None where they agree."""
    base, new = (r.context_text(FILTER_KEY) for r in (comparison.base, comparison.cont))
    if base == new:
        return None
    return (f"BASE states {filter_text(base)}, NEW {filter_text(new)}: a benchmark run among "
            "other benchmarks can measure otherwise (on one H200, graph replay took 0.61-0.70 "
            "µs a node in runs of 11 benchmarks and 0.79-0.84 µs in runs of the suite: "
            "results/h200/verdicts/gate_aa/filtered_confirm/runs_by_stage.txt).")


def interleaving_difference_note(comparison: Comparison) -> str | None:
    """Where one run interleaved its repetitions at random and the other did not (both say),
    that each repetition ran beside other benchmarks; None where they agree or one does not say.
    """
    base, new = (r.context_text(INTERLEAVING_KEY) for r in (comparison.base, comparison.cont))
    if base is None or new is None or base == new:
        return None
    return (f"BASE states {INTERLEAVING_KEY}={one_line(base, SETTING_SHOWN)}, NEW "
            f"{one_line(new, SETTING_SHOWN)}: the interleaved run measured each repetition "
            "right after another benchmark's, the other after its own, and a benchmark can "
            "measure otherwise beside others (as between runs of different filters: "
            "results/h200/verdicts/gate_aa/filtered_confirm/runs_by_stage.txt). "
            "scripts/gpubench-tools gate records its candidate as its baseline was.")


def render_comparison(comparison: Comparison, markdown: bool = False,
                      only_changed: bool = False) -> str:
    """The verdict and the largest changes first, the details after, the verdict again last
    (where a CI log's tail shows it)."""
    blocks = [*header_section(comparison, markdown), *context_section(comparison, markdown),
              *summary_section(comparison, markdown), *only_in_one_section(comparison, markdown),
              *tables_section(comparison, markdown, only_changed),
              *paired_section(comparison, markdown), *notes_section(comparison, markdown),
              markdown_text(verdict_line(comparison)) if markdown else verdict_line(comparison)]
    # Names and paths reach many sections (the largest changes, one file only, the notes):
    # every line is made printable here, once, so none shows a file's control characters.
    return printable_lines("\n\n".join(blocks) + "\n")
