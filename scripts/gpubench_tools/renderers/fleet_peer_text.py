"""The report's section on the nodes' peer runs: the GPUs and links their slow pairs blame, and
each such node's matrix of its pairs; the groups of pairs last.

A node whose pairs are all well has no matrix: the section leads with what needs attention. A
matrix's rows are the source GPUs and its columns the destinations, each cell the pair's speed
against its group's median (its slowest flagged copy's, else the median of its copies'),
SLOW_MARK after a pair slower than its group, APART_MARK for one with no group to compare with,
NOT_JUDGED for a pair its run did not copy or no group judged.
"""

from gpubench_tools.models.fleet.outliers import Rule
from gpubench_tools.models.fleet.peer_blame import PeerFault
from gpubench_tools.models.fleet.peer_pairs import NodeMatrix, PeerJudgement, copy_name
from gpubench_tools.renderers.fleet_tables import figure, heading, item, table

SLOW_MARK = "*"
APART_MARK = "~"
NOT_JUDGED = "?"
# The pairs a fault's row lists before saying how many more: a GPU of a node of 8 is in 14.
LISTED_PAIRS = 14


def pairs_text(fault: PeerFault) -> str:
    shown = ", ".join(f"{s}to{d}" for s, d in fault.pairs[:LISTED_PAIRS])
    more = f" and {len(fault.pairs) - LISTED_PAIRS} more" if len(fault.pairs) > LISTED_PAIRS \
        else ""
    return f"{len(fault.pairs)} of {fault.looked_at}: {shown}{more}"


def fault_row(fault: PeerFault) -> list[str]:
    run, worst = fault.matrix.run, fault.worst
    devices = fault.devices if fault.kind != "node" else []
    if worst is not None:
        pair, flag = worst
        how_far = (f"{flag.speed:.3f} ({copy_name(flag.benchmark, pair)}: "
                   f"{figure(flag.value, flag.unit)} / {figure(flag.median, flag.unit)})")
    else:
        how_far = "no group to compare with"
    return [item(run.host), fault.kind,
            ", ".join(str(i) for i in fault.ends) if devices else f"all {len(fault.ends)}",
            ", ".join(item(d.pci_bus_id) for d in devices) or "-",
            ", ".join(item(d.uuid) for d in devices) or "-", pairs_text(fault), how_far]


def cell(matrix: NodeMatrix, source: int, destination: int) -> str:
    pair = (source, destination)
    if source == destination:
        return "-"
    if pair in matrix.apart:
        return APART_MARK
    if pair not in matrix.speed:
        return NOT_JUDGED
    return f"{matrix.speed[pair]:.3f}" + (SLOW_MARK if pair in matrix.flags else "")


def matrix_lines(matrix: NodeMatrix, markdown: bool) -> list[str]:
    gpus = matrix.gpus
    rows = [[str(source), *(cell(matrix, source, destination) for destination in gpus)]
            for source in gpus]
    return [f"{item(matrix.run.host)}: each pair's speed against its group's median (rows: "
            f"source GPU, columns: destination; {SLOW_MARK} slower than its group, {APART_MARK} "
            f"no group to compare with, {NOT_JUDGED} not judged)",
            table(["src\\dst", *map(str, gpus)], rows, markdown, align="right")]


def groups_rows(judgement: PeerJudgement, rule: Rule) -> list[list[str]]:
    rows = []
    for number, pair_group in enumerate(judgement.groups, start=1):
        group = pair_group.group
        model, driver, version = group.key[:3]
        nodes = len({member.source for member in group.gpus})
        compared = (str(len(group.benchmarks)) if len(group.gpus) >= rule.min_gpus
                    else f"too few to compare (--min-gpus={rule.min_gpus})")
        rows.append([str(number), model, driver, version, pair_group.link or "not described",
                     str(len(group.gpus)), str(nodes), compared, str(len(group.flagged))])
    return rows


def peer_section(judgement: PeerJudgement, faults: list[PeerFault], rule: Rule,
                 markdown: bool) -> list[str]:
    """The section, or nothing where no peer run was read."""
    if not judgement.matrices:
        return []
    nodes = {id(fault.matrix): fault.matrix for fault in faults}
    lines = [heading(f"Peer copies, each pair of GPUs against its like: {len(faults)} GPU(s), "
                     f"link(s) or node(s) blamed on {len(nodes)} node(s) of "
                     f"{len(judgement.matrices)} with a peer run", markdown)]
    if faults:
        lines.append(table(["host", "blamed", "GPUs", "PCI bus", "GPU", "bad pairs",
                            "slowest: speed (copy: value / group median)"],
                           [fault_row(fault) for fault in faults], markdown, lists=True))
        for matrix in nodes.values():
            lines += matrix_lines(matrix, markdown)
    else:
        lines.append("none")
    patterns = sum(matrix.run.patterns for matrix in judgement.matrices)
    if patterns:
        lines.append(f"{patterns} copy pattern benchmark(s) (allto<d>, <s>toall, bisect) name "
                     "no pair: not judged.")
    lines.append(table(["pair group", "GPU", "driver", "gpubench", "link", "pairs", "nodes",
                        "copies compared", "slow pairs"], groups_rows(judgement, rule),
                       markdown))
    return lines


def peer_rule(rule: Rule) -> str:
    """How the pairs were judged, for the report's closing lines."""
    return (f"Peer pairs: each pair's copies at its run's largest size against the median of "
            f"its group's pairs (GPU model, driver, gpubench, host CPU, settings and link), by the "
            f"outliers' rule, {rule.corroborate} of a pair's copies flagging it; a GPU most of "
            f"whose pairs are slow or apart is blamed where fewer than half its node's are, the "
            f"other slow pairs by link, a node of more than two GPUs where half or more are.")
