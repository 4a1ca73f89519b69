"""The text report of gpubench-tools fleet: a section per kind of problem an operator acts on, worst
first.

Runs that did not finish or are missing (a node's peer run among them); GPU health; GPUs below their
model's floor; GPUs slower than their group; GPUs and links the nodes' peer copies blame, with the
matrix of each such node's pairs (renderers/fleet_peer_text.py); GPUs no group vouches for (in a
group too small to compare, giving other facts of a figure than their group, lacking benchmarks
their group ran). Every GPU is named by host and UUID. Text from the files goes into tables, whose
cells are escaped (text_table), never interpreted.
"""

from dataclasses import dataclass, field

import numpy as np

from gpubench_tools.models.fleet.agreement import Disagreement, FigureFacts
from gpubench_tools.models.fleet.groups import Apart, Lacking
from gpubench_tools.models.fleet.unscreened import Unscreened
from gpubench_tools.models.fleet.verdicts import Verdict
from gpubench_tools.models.fleet.health import WATCH, HealthReport
from gpubench_tools.models.fleet.limits import BelowFloor
from gpubench_tools.models.fleet.outliers import Flag, Group, Rule, sweep
from gpubench_tools.models.fleet.peer_blame import PeerFault
from gpubench_tools.models.fleet.peer_pairs import PeerJudgement
from gpubench_tools.reading.fleet.records import STATUSES, Gpu, RunRecord
from gpubench_tools.reading.safe_text import ascii_decimal, markdown_text
from gpubench_tools.renderers.fleet_peer_text import peer_rule, peer_section
from gpubench_tools.renderers.fleet_tables import figure, heading, item, table

# What a person reads first beside a slow GPU.
HINT_KEYS = ("pcie_link", "host_numa_node", "gpu_state_before")


@dataclass
class Findings:
    gpus: list[Gpu]
    records: list[RunRecord]  # missing, killed, failed, damaged, interrupted, stale
    health: HealthReport
    below_floor: list[BelowFloor]
    groups: list[Group]
    apart: list[Apart]  # GPUs of groups too small to compare within
    lacking: list[Lacking]  # GPUs without benchmarks others of their group ran
    limit_files: list[str]
    models_without_limits: list[str]
    unexpected_hosts: list[str]
    peer_records: list[RunRecord]  # peer runs that did not end well
    peer: PeerJudgement  # the nodes' peer runs, each pair against its like
    peer_faults: list[PeerFault]  # the GPUs, links and nodes their bad pairs blame
    # What earlier jobs left of GPUs a newer job measured again, per directory: not judged.
    superseded: list[str] = field(default_factory=list)
    # GPUs not screened as the others: another model or driver, one name over two nodes,
    # throttled during the run (models/fleet/unscreened.py)
    unscreened: list[Unscreened] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)  # one per GPU, worst first

    def attention(self) -> int:
        """GPUs the report asks an operator to act on (a missing host counts its GPUs, a peer
        run that did not end well each of its GPUs)."""
        named: set[str] = set()
        unnamed = 0
        for record in self.records + self.peer_records:
            if record.gpus or record.uuid:
                named.update(record.gpus or [record.uuid])
            else:
                unnamed += record.count
        named |= {f.uuid for f in self.health.findings if f.severity < WATCH}
        named |= {b.gpu.uuid for b in self.below_floor}
        for group in self.groups:
            named |= {g.uuid for g in group.flagged + group.disagreeing}
        named |= {a.gpu.uuid for a in self.apart}
        named |= {u.gpu.uuid for u in self.unscreened}
        named |= {device.uuid for fault in self.peer_faults for device in fault.devices}
        return len(named) + unnamed


def size_label(name: str) -> str:
    last = name.rpartition("/")[2]
    size = ascii_decimal(last)
    if size is None:
        return last
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return last


def _size_order(name: str) -> int:
    return ascii_decimal(name.rpartition("/")[2].removeprefix("params:")) or 0


def records_section(records: list[RunRecord], peer_records: list[RunRecord],
                    markdown: bool) -> list[str]:
    gpus = sum(r.count for r in records)
    peer = f", and {len(peer_records)} peer run(s)" if peer_records else ""
    lines = [heading(f"Runs that did not finish, and GPUs missing: {gpus} GPU(s){peer}",
                     markdown)]
    if not records and not peer_records:
        return lines + ["none"]
    rows = [[r.status, r.host or "?", r.uuid or "?",
             r.detail + (f" ({r.count} GPUs)" if r.count > 1 else ""), r.source]
            for r in worst_first(records)]
    rows += [[r.status, r.host or "?", "peer run", r.detail, r.source]
             for r in worst_first(peer_records)]
    return lines + [table(["status", "host", "GPU", "what", "file"], rows, markdown)]


def worst_first(records: list[RunRecord]) -> list[RunRecord]:
    return sorted(records, key=lambda r: (STATUSES.index(r.status), r.host or "", r.uuid or ""))


def health_section(findings: "Findings", markdown: bool) -> list[str]:
    health = findings.health
    hosts = {g.uuid: g.host for g in findings.gpus}
    flagged = {f.uuid for f in health.findings}
    lines = [heading(f"Health (NVML, before and after the run): {len(flagged)} GPU(s) flagged of "
                     f"{len(health.judged)} with a health record", markdown)]
    if not health.judged and not health.findings:
        return lines + ["no result holds a health record (a gpubench that writes none): "
                        "nothing to judge"]
    if health.findings:
        rows = [[hosts.get(f.uuid, "?"), f.uuid,
                 ("act now", "at maintenance", "watch, not counted")[f.severity], f.problem]
                for f in health.findings]
        lines.append(table(["host", "GPU", "urgency", "problem"], rows, markdown))
    rows = [[item(what), "every GPU with a record" if uuids >= health.judged else
             ", ".join(f"{item(hosts.get(u, '?'))} {item(u)}" for u in sorted(uuids))]
            for what, uuids in sorted(health.not_judged.items())]
    if rows:
        lines.append(table(["not judged", "GPUs"], rows, markdown, lists=True))
    return lines


def floor_section(findings: "Findings", markdown: bool) -> list[str]:
    below = findings.below_floor
    gpus = {b.gpu.uuid for b in below}
    files = ", ".join(findings.limit_files) or "none"
    lines = [heading(f"Below the floor of their GPU model: {len(gpus)} GPU(s)", markdown),
             table(["limits", "GPU models without limits"],
                   [[files, ", ".join(map(item, findings.models_without_limits)) or "none"]],
                   markdown, lists=True)]
    by_sweep: dict[tuple[str, str], list[BelowFloor]] = {}
    for b in below:
        by_sweep.setdefault((b.gpu.uuid, sweep(b.benchmark)), []).append(b)
    rows = []
    for (_, name), items in sorted(by_sweep.items(),
                                   key=lambda kv: min(b.value / b.floor for b in kv[1])):
        worst = min(items, key=lambda b: b.value / b.floor)
        sizes = ", ".join(size_label(b.benchmark) for b in sorted(items, key=lambda b: _size_order(
            b.benchmark))) if name != worst.benchmark else ""
        rows.append([worst.gpu.host, worst.gpu.uuid, name, sizes,
                     f"{worst.value / worst.floor:.3f}",
                     f"{figure(worst.value, 'GB/s')} / {figure(worst.floor, 'GB/s')}"])
    if rows:
        lines.append(table(["host", "GPU", "sweep", "sizes", "of floor", "value / floor"], rows,
                           markdown))
    return lines


def hints(gpu: Gpu, health: HealthReport) -> str:
    context = gpu.context
    parts = [f"{key} {context[key]}" for key in HINT_KEYS if key in context]
    if gpu.uuid in health.clock_events:
        parts.append("clock events during the run: " + ", ".join(health.clock_events[gpu.uuid]))
    kernel_clocks = [mhz for benchmark in gpu.benchmarks.values()
                     if (mhz := benchmark.kernel_sm_clock_mhz) is not None]
    if kernel_clocks:
        low, high = min(kernel_clocks), max(kernel_clocks)
        shown = f"{low:.0f} MHz" if round(low) == round(high) else f"{low:.0f} to {high:.0f} MHz"
        parts.append(f"SM clock read by its kernels {shown}")
    throttled = sorted(name for name, benchmark in gpu.benchmarks.items() if benchmark.throttled)
    if throttled:
        parts.append(f"{len(throttled)} benchmark(s) timed with the clocks held down, "
                     f"e.g. {throttled[0]}")
    return "; ".join(parts)


def outlier_rows(group: Group) -> list[list[str]]:
    """One row per flagged GPU and sweep: the sizes that flagged it, and the worst of them."""
    by_sweep: dict[tuple[str, str], list[Flag]] = {}
    for flag in group.flags:
        by_sweep.setdefault((flag.gpu.uuid, sweep(flag.benchmark)), []).append(flag)
    rows = []
    for (_, name), flags in sorted(by_sweep.items(), key=lambda kv: min(f.speed for f in kv[1])):
        worst = min(flags, key=lambda f: f.speed)
        sizes = ", ".join(size_label(f.benchmark) for f in sorted(
            flags, key=lambda f: _size_order(f.benchmark))) if name != worst.benchmark else ""
        rows.append([worst.gpu.host, worst.gpu.uuid, name, sizes, f"{worst.speed:.3f}",
                     f"{figure(worst.value, worst.unit)} / {figure(worst.median, worst.unit)}"
                     + (f" of the faster {worst.faster}" if worst.faster else ""),
                     f"{100 * worst.threshold:.1f}%" + (" (host)" if worst.host_timed else "")])
    return rows


def outliers_section(findings: "Findings", markdown: bool) -> list[str]:
    flagged = sum(len(g.flagged) for g in findings.groups)
    lines = [heading(f"Slower than their group: {flagged} GPU(s)", markdown)]
    for number, group in enumerate(findings.groups, start=1):
        if not group.flags:
            continue
        lines.append(f"group {number}:")
        lines.append(table(["host", "GPU", "sweep", "sizes", "speed", "value / group median",
                            "flagged over"], outlier_rows(group), markdown))
        rows = [[gpu.host, gpu.uuid, hints(gpu, findings.health), gpu.source]
                for gpu in sorted(group.flagged, key=lambda g: min(
                    f.speed for f in group.flags if f.gpu is g))]
        lines.append(table(["host", "GPU", "what to look at", "file"], rows, markdown))
    return lines


def apart_section(findings: "Findings", rule: Rule, markdown: bool) -> list[str]:
    lines = [heading(f"In a group too small to compare (--min-gpus={rule.min_gpus}), judged by "
                     f"floors alone: {len(findings.apart)} GPU(s)", markdown)]
    rows = [[a.gpu.host, a.gpu.uuid, str(a.group), str(a.size),
             "; ".join(f"{part} {its} (group 1: {theirs})" for part, its, theirs
                       in a.differences) or "-", a.gpu.source]
            for a in findings.apart]
    if rows:
        lines.append(table(["host", "GPU", "group", "GPUs", "what sets its group apart", "file"],
                           rows, markdown))
    return lines


def verdicts_section(findings: "Findings", markdown: bool) -> list[str]:
    gpus = sum(verdict.gpus for verdict in findings.verdicts)
    lines = [heading(f"Verdicts, one per GPU that needs attention, or per link or node its peer "
                     f"copies blame (the sections below give the detail): {gpus} GPU(s)",
                     markdown)]
    rows = [[v.host, v.index, v.pci_bus_id, v.uuid, v.wrong, v.how_far, v.to_do]
            for v in findings.verdicts]
    if rows:
        lines.append(table(["host", "index", "PCI bus", "GPU", "what is wrong", "how far",
                            "what to do"], rows, markdown))
    return lines


def unscreened_section(findings: "Findings", markdown: bool) -> list[str]:
    gpus = len({u.gpu.uuid for u in findings.unscreened})
    lines = [heading(f"Not screened as the others (another model or driver, two nodes under "
                     f"one name, throttled during the run): {gpus} GPU(s)", markdown)]
    rows = [[u.gpu.host, u.gpu.uuid, u.what, u.detail, u.gpu.source]
            for u in findings.unscreened]
    if rows:
        lines.append(table(["host", "GPU", "what", "why", "file"], rows, markdown))
    return lines


def facts_text(facts: FigureFacts) -> str:
    metric = facts.metric
    return (f"{metric.key} in {metric.unit} (x{metric.scale:g}), "
            f"{'higher' if metric.bigger_is_better else 'lower'} is better, "
            f"{'host-paced' if facts.host_paced else 'device-timed'}")


def facts_section(groups: list[Group], markdown: bool) -> list[str]:
    gpus = {g.uuid for group in groups for g in group.disagreeing}
    lines = [heading(f"Facts of a figure unlike their group's, not judged on it: {len(gpus)} "
                     "GPU(s)", markdown)]
    rows = []
    for number, group in enumerate(groups, start=1):
        by_gpu: dict[str, list[Disagreement]] = {}
        for disagreement in group.disagreements:
            by_gpu.setdefault(disagreement.gpu.uuid, []).append(disagreement)
        for found in by_gpu.values():
            first = found[0]
            said = (f"{facts_text(first.group)} ({first.agreeing} of {len(group.gpus)} GPUs)"
                    if first.group else "no facts given by most of its GPUs")
            rows.append([first.gpu.host, first.gpu.uuid, str(number), str(len(found)),
                         first.benchmark, facts_text(first.its), said, first.gpu.source])
    if rows:
        lines.append(table(["host", "GPU", "group", "benchmarks", "the first", "its facts",
                            "its group's", "file"], rows, markdown))
    return lines


def lacking_section(lacking: list[Lacking], markdown: bool) -> list[str]:
    lines = [heading(f"Lacking benchmarks others of their group ran (--missing-fails fails on "
                     f"them): {len(lacking)} GPU(s)", markdown)]
    rows = [[item.gpu.host, item.gpu.uuid, str(item.group), str(len(item.missing)),
             f"{item.missing[0]} (run by {item.first_ran_by} of {item.size} GPUs)",
             item.gpu.source]
            for item in lacking]
    if rows:
        lines.append(table(["host", "GPU", "group", "benchmarks lacked", "the first", "file"],
                           rows, markdown))
    return lines


def smallest_loss(group: Group, host_timed: bool) -> str:
    values = [100 * t for name, t in group.thresholds.items()
              if group.host_timed[name] == host_timed]
    if not values:
        return "-"
    return f"{np.median(values):.1f}% ({min(values):.1f}-{max(values):.1f}%)"


def groups_section(groups: list[Group], rule: Rule, markdown: bool) -> list[str]:
    lines = [heading("Groups (same GPU model, driver, gpubench version and host CPU, measured "
                     "alike)", markdown)]
    # The settings are shown where they tell groups apart: GPUs measured otherwise.
    settings_differ = len({group.key[4] for group in groups}) > 1
    rows = []
    for number, group in enumerate(groups, start=1):
        model, driver, version, cpu, settings = group.key
        if group.benchmarks:
            compared = str(len(group.benchmarks))
            if group.splits:
                compared += f" ({len(group.splits)} split in two parts)"
            device, host = smallest_loss(group, False), smallest_loss(group, True)
        else:
            compared = f"too few to compare (--min-gpus={rule.min_gpus}): floors only"
            device = host = "-"
        rows.append([str(number), model, driver, version, cpu,
                     *([settings] if settings_differ else []), str(len(group.gpus)), compared,
                     str(len(group.flagged)), str(group.uncorroborated), device, host])
    lines.append(table(["group", "GPU", "driver", "gpubench", "host CPU",
                        *(["measured with"] if settings_differ else []), "GPUs", "benchmarks",
                        "flagged", "flags of one size (not counted)",
                        "loss flagged, device-timed: median (range)", "host-timed"], rows,
                       markdown))
    return lines


def report(findings: Findings, rule: Rule, markdown: bool) -> str:
    results = len(findings.gpus)
    # The answer first, the rule it was reached by last.
    peers = (f", {len(findings.peer.matrices)} node(s)' peer runs" if findings.peer.matrices
             else "")
    lines = [f"gpubench-tools fleet: {findings.attention()} GPU(s) need attention; {results} GPU "
             f"result(s), {len(findings.groups)} group(s){peers}."]
    shown = markdown_text if markdown else str
    lines += [f"Superseded: {shown(text)}." for text in findings.superseded]
    lines += verdicts_section(findings, markdown)
    lines += records_section(findings.records, findings.peer_records, markdown)
    lines += health_section(findings, markdown)
    lines += floor_section(findings, markdown)
    lines += outliers_section(findings, markdown)
    lines += peer_section(findings.peer, findings.peer_faults, rule, markdown)
    lines += apart_section(findings, rule, markdown)
    lines += unscreened_section(findings, markdown)
    lines += facts_section(findings.groups, markdown)
    lines += lacking_section(findings.lacking, markdown)
    lines += groups_section(findings.groups, rule, markdown)
    if findings.unexpected_hosts:
        lines.append(table(["hosts with results that the expected hosts do not list"],
                           [[", ".join(map(item, findings.unexpected_hosts))]], markdown,
                           lists=True))
    lines.append(f"\nHow a GPU was judged. Outliers: {rule.describe()}. Below floor: under the "
                 f"limits file's floor on {rule.corroborate} sizes of a sweep.")
    if findings.peer.matrices:
        lines.append(peer_rule(rule))
    lines.append(f"\n{findings.attention()} GPU(s) need attention.")
    return "\n".join(lines)
