"""Which GPUs of a fleet need attention: runs lost, health flags, figures below floor or group.

Reads the gpubench results of a fleet (deploy/slurm: per GPU a .status record, its JSON and,
for a GPU not done, an .err; deploy/k8s: pod logs, record lines and one JSON document per line)
from directories or files, and reports, each GPU named by host and UUID, worst first:

- runs that did not finish (failed, killed, interrupted or never started, a benchmark that
  failed, a damaged or unreadable file, a record saying done without its result, a node's peer
  run), files an earlier job or attempt than the newest of their directory left (stale) and
  GPUs that left nothing: against --expect, --expect-hosts or else the allocation of each
  directory's newest Slurm job (reading/fleet/: inputs, pod_log, records, status, jobs,
  expected), and a GPU's earlier result where a later one names it too
  (duplicate: the later is judged; models/fleet/duplicates.py); with --processes-per-gpu K,
  each GPU is judged by the median of its K latest results, a GPU with fewer is a `too few` row
  (models/fleet/processes.py);
- health flags from NVML's records before and after the run (models/fleet/health.py);
- figures below their GPU model's floor in a limits file, whatever the size of the GPU's group
  (models/fleet/limits.py; results/limits/ by default);
- GPUs slower than the others of their group (GPU model, driver, gpubench version, host CPU and
  measurement settings, each read for what it means: models/fleet/identity.py) by more than each
  benchmark's noise allows, on sweeps where they are slower than the slowest healthy separate
  process of their model by as much again at half the sizes or more (the limits file's
  process_losses; models/fleet/outliers.py);
- GPUs no group vouches for: in a group too small to compare within, or giving other facts of a
  benchmark's figure (its unit, which way is better, whether the host paces it) than the others
  of their group (models/fleet/groups.py, agreement.py); and GPUs lacking benchmarks others of
  their group ran, which --missing-fails fails on;
- GPUs not screened as the others: of another model or driver than the fleet's largest group,
  two nodes under one host name, throttled during the run (models/fleet/unscreened.py);
- of a directory's `peer/` runs (deploy/slurm), each ordered pair of a node's GPUs
  against the like pairs of the fleet, by the same rule (models/fleet/peer_pairs.py), and the GPU
  or link the slow pairs blame, named by its own index, PCI bus id and UUID, with the matrix of
  its node's pairs (models/fleet/peer_blame.py).

-o draws a heatmap of GPUs x headline benchmarks (renderers/figures/fleet_heatmap.py).
Exit 0; 1 with --fail-on-outlier when any GPU needs attention; 2 for unusable input (a missing
path or one the system refuses to list or examine, nothing readable, a bad
limits or expected-hosts file, a bad option); 5 with --missing-fails where a GPU lacks benchmarks
others of its group ran, naming them in one line on stderr after the report. A result or record
file the system refuses to read is a damaged row, as a damaged file is; each damaged file or line
is a `skipped` line on stderr once the report is written, none where the exit is 2 (its one line
says why).
"""

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.models.fleet.groups import Lacking, apart, group_gpus, lacking
from gpubench_tools.models.fleet.health import judge_health
from gpubench_tools.models.fleet.limits import (
    MAX_PROCESSES,
    Limits,
    default_limit_files,
    judge_floors,
    limits_of,
    load_all_limits,
    models_without_limits,
    process_losses_of,
)
from gpubench_tools.models.fleet.outliers import Group, Rule, judge
from gpubench_tools.models.fleet.peer_blame import blame
from gpubench_tools.models.fleet.peer_pairs import judge_peers
from gpubench_tools.models.fleet.processes import per_gpu
from gpubench_tools.models.fleet.unscreened import one_name_two_nodes, other_kind, throttled
from gpubench_tools.models.fleet.verdicts import gpu_verdicts
from gpubench_tools.reading.errors import OutputIsInputError
from gpubench_tools.reading.fleet.expected import (
    Expected,
    missing,
    read_allocations,
    read_expected_hosts,
    unexpected_hosts,
)
from gpubench_tools.reading.fleet.inputs import files_read, read_inputs
from gpubench_tools.reading.fleet.records import FleetInputError, Found
from gpubench_tools.reading.name_filter import FilterError, name_filter
from gpubench_tools.reading.result_file import MAX_CONTAINERS
from gpubench_tools.reading.safe_text import markdown_text, one_line, shorten
from gpubench_tools.renderers.fleet_report import Findings, report
from gpubench_tools.writing.outputs import refuse_output_over_input, write_stdout

# --k and --host-k count a figure's noise, a standard deviation (models/fleet/outliers.py), and a
# loss is below 100%: past k = 100 a figure of 1% noise or more (over half the single-GPU figures of
# the H200 sets) could lose all its speed and not be flagged. Normal noise lies 5 deviations out
# (the default k) once in millions: 100 is far past any test of noise, and a k beyond it silences
# figures, not noise.
MAX_K = 100.0
# A sweep's sizes are benchmarks of one GPU's result, each a JSON object, and a result holds at
# most MAX_CONTAINERS of them: a --corroborate beyond them flags no host-timed sweep at all.
MAX_CORROBORATE = MAX_CONTAINERS
# gpubench-tools fleet holds 4,096 GPUs of the full default suite in 1.5 GB (docs/usage.md, "What
# the toolkit reads, and its limits"): a million would take some 360 GB and hours, past any fleet
# it reads. A --min-gpus beyond
# compares no group, and an --expect beyond expects GPUs no set of files accounts for (it stays one
# `missing` row).
MAX_FLEET_GPUS = 1_000_000
# Exit status with --missing-fails, where a GPU lacks benchmarks others of its group ran: compare's
# for benchmarks of BASE that NEW lacks.
MISSING_BENCHMARKS = 5


def check_bounded(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  names: tuple[str, ...], within: Callable[[float], bool], bound: str) -> None:
    """Each option of `names` given (not None) a finite number `within` its bound, else the
    parser's one line naming it and stating `bound`."""
    for name in names:
        value = getattr(args, name)
        if value is None:
            continue
        # An int is finite, and may be past what np.isfinite converts (10**400).
        if not ((isinstance(value, int) or np.isfinite(value)) and within(value)):
            # Shortened: an int of thousands of digits would push the bound out of the line.
            parser.error(f"--{name.replace('_', '-')}={shorten(str(value), 24)}: must be {bound}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog="gpubench-tools fleet", description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                        help="result directories (*.json also compressed: .json.gz, .xz, .bz2; "
                             "*.status, *.err, *.jsonl, *.log) or files")
    parser.add_argument("--expect", type=int, metavar="N",
                        help="GPUs the fleet has: those that left nothing are listed as missing")
    parser.add_argument("--expect-hosts", type=Path, metavar="FILE",
                        help="the hosts (HOST or HOST GPUS a line) or GPU UUIDs the fleet has "
                             "(default: the allocation deploy/slurm wrote of each directory's "
                             "newest job, job<ID>.expected_hosts)")
    parser.add_argument("--limits", type=Path, action="append", metavar="FILE",
                        help="a limits file (repeatable; default: results/limits/*.json)")
    parser.add_argument("--no-limits", action="store_true",
                        help="judge no floors (the limits files' process losses still apply)")
    parser.add_argument("--k", type=float, default=Rule.k,
                        help=f"times its noise a device-timed figure must lose ({Rule.k:g})")
    parser.add_argument("--margin", type=float, default=Rule.margin_pct,
                        help=f"percent a device-timed figure must lose at least "
                             f"({Rule.margin_pct:g})")
    parser.add_argument("--host-k", type=float, default=Rule.host_k,
                        help=f"times its noise a host-timed figure must lose ({Rule.host_k:g})")
    parser.add_argument("--host-margin", type=float, default=Rule.host_margin_pct,
                        help=f"percent a host-timed figure must lose at least "
                             f"({Rule.host_margin_pct:g})")
    parser.add_argument("--corroborate", type=int, default=Rule.corroborate,
                        help=f"sizes of a sweep that must flag a GPU ({Rule.corroborate}; "
                             f"1: every benchmark alone)")
    parser.add_argument("--process-headroom", type=float, default=Rule.process_headroom,
                        help=f"a GPU is flagged on a sweep only where, at half its sizes or "
                             f"more, its speed is below the slowest of a healthy separate "
                             f"process (the limits file's process_losses) to this power "
                             f"({Rule.process_headroom:g}; 0: no such check)")
    parser.add_argument("--processes-per-gpu", type=int, default=Rule.processes_per_gpu,
                        metavar="K",
                        help="judge each GPU by the median of its K latest results, separate "
                             "processes of it, against the loss the median of K healthy "
                             "processes shows (the limits file's median_loss_pct; 1: each GPU's "
                             "latest result against a single process's loss)")
    parser.add_argument("--min-gpus", type=int, default=Rule.min_gpus,
                        help=f"GPUs a group needs to be compared within ({Rule.min_gpus}); "
                             "in a fleet of as many, a GPU of a smaller group needs attention")
    parser.add_argument("--headline", action="append", metavar="REGEX",
                        help="a benchmark pattern for the heatmap's columns (repeatable; "
                             "default: each device-timed sweep at its largest argument, the "
                             "first 24)")
    parser.add_argument("-o", "--output", type=Path,
                        help="draw the heatmap to this file (.png, .svg, .pdf)")
    parser.add_argument("--fail-on-outlier", action="store_true",
                        help="exit 1 when any GPU needs attention (missing, not finished, "
                             "health, below floor, slower than its group, in a group too small "
                             "to compare, giving other facts of a figure than its group)")
    parser.add_argument("--missing-fails", action="store_true",
                        help=f"exit {MISSING_BENCHMARKS} where a GPU lacks benchmarks others of "
                             "its group ran, naming them in one line after the report (a "
                             "benchmark a GPU did not run is no check it passed)")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)
    check_bounded(parser, args, ("k", "host_k"), lambda value: 0 <= value <= MAX_K,
                  f"a number from 0 to {MAX_K:g} (times a figure's noise: past {MAX_K:g}, one of "
                  f"{100 / MAX_K:g}% noise or more could lose all its speed unflagged)")
    # A loss is 1 - speed, below 100% for any GPU that ran: a margin of 100% or more flags none.
    check_bounded(parser, args, ("margin", "host_margin"), lambda value: 0 <= value < 100,
                  "a percent from 0 to below 100 (a loss of 100% or more is no GPU's: nothing "
                  "would be flagged)")
    check_bounded(parser, args, ("process_headroom",), lambda value: 0 <= value <= MAX_K,
                  f"a number from 0 (no such check) to {MAX_K:g}")
    check_bounded(parser, args, ("corroborate",), lambda value: 1 <= value <= MAX_CORROBORATE,
                  f"a whole number from 1 to {MAX_CORROBORATE} (a result holds no more "
                  "benchmarks, so no sweep more sizes)")
    fleet_bound = (f"{MAX_FLEET_GPUS} (a million GPUs would take gpubench-tools fleet some 360 GB "
                   "to read)")
    check_bounded(parser, args, ("min_gpus",), lambda value: 3 <= value <= MAX_FLEET_GPUS,
                  f"a whole number from 3 (a median and its spread need 3 GPUs) to {fleet_bound}")
    check_bounded(parser, args, ("processes_per_gpu",),
                  lambda value: 1 <= value <= MAX_PROCESSES,
                  f"a whole number from 1 to {MAX_PROCESSES} (the most a limits file gives the "
                  "loss of a median of)")
    check_bounded(parser, args, ("expect",), lambda value: 1 <= value <= MAX_FLEET_GPUS,
                  f"a whole number from 1 to {fleet_bound}")
    if args.no_limits and args.limits:
        parser.error("--limits and --no-limits: choose one")
    patterns = []
    for text in args.headline or []:
        try:
            patterns.append(name_filter(text))
        except FilterError as error:
            parser.error(f"--headline={error}")
    args.patterns = patterns
    if args.output is not None and os.path.isdir(args.output):
        parser.error(f"-o {args.output}: is a directory (name the image file)")
    args.rule = Rule(args.k, args.margin, args.host_k, args.host_margin, args.corroborate,
                     args.min_gpus, args.process_headroom, args.processes_per_gpu)
    return args


def expected_fleet(args: argparse.Namespace, found: Found) -> list[Expected]:
    """The hosts and GPUs expected: --expect-hosts's, else those Slurm allocated the newest job of
    each directory."""
    if args.expect_hosts:
        return [read_expected_hosts(args.expect_hosts)]
    return read_allocations(found.allocations)


def findings_of(args: argparse.Namespace) -> tuple[Findings, list[str]]:
    """What the report says, and a `skipped` line per damaged file or line: said once the
    report is written, so that input found unusable after them (limits, expected hosts, the
    heatmap) is the one line on stderr. Of a GPU's results the latest is judged, or the median of
    the --processes-per-gpu latest, and each earlier one is a `duplicate` row
    (models/fleet/processes.py)."""
    found = read_inputs(args.inputs)
    skipped = [one_line(f"gpubench-tools fleet: skipped {record.source}: {record.detail}")
               for record in found.damaged]
    if not (found.gpus or found.records or found.allocations or found.peer_runs
            or found.peer_records):
        raise FleetInputError("no gpubench result, .status, .err or pod log in "
                              + " ".join(args.inputs))
    judged = per_gpu(found.gpus, args.rule.processes_per_gpu)
    gpus = judged.gpus
    # --no-limits judges no floor; each GPU model's process losses still apply: without them a
    # whole process's level is judged as a fault.
    limits = load_all_limits(args.limits or default_limit_files())
    floors = [] if args.no_limits else limits
    expected = expected_fleet(args, found)
    groups = group_gpus(gpus)
    for group in groups:
        if len(group.gpus) >= args.rule.min_gpus:
            judge(group, args.rule, group_losses(limits, group, args.rule.processes_per_gpu))
    # Each process's health record: a GPU judged by several was judged in each of them.
    contexts = list({id(r): r.context for g in gpus for r in g.processes or (g.result,)}.values())
    health = judge_health(contexts)
    peer = judge_peers(found.peer_runs, args.rule)
    findings = Findings(
        gpus=gpus,
        records=found.records + judged.records + missing(expected, args.expect, gpus,
                                                         found.records + judged.records),
        health=health,
        below_floor=judge_floors(gpus, floors, args.rule.corroborate),
        groups=groups,
        apart=apart(groups, args.rule.min_gpus),
        lacking=lacking(groups),
        limit_files=[limit.source for limit in floors],
        models_without_limits=models_without_limits(gpus, floors),
        unexpected_hosts=unexpected_hosts(expected, gpus),
        peer_records=found.peer_records,
        peer=peer,
        peer_faults=[fault for matrix in peer.matrices for fault in blame(matrix)],
        superseded=found.superseded,
        unscreened=(other_kind(groups, args.rule.min_gpus) + one_name_two_nodes(gpus)
                    + throttled(gpus, health.clock_events)),
    )
    findings.verdicts = gpu_verdicts(
        gpus, findings.records + findings.peer_records, health.findings, findings.below_floor,
        groups, findings.apart, findings.unscreened, findings.peer_faults)
    return findings, skipped


def group_losses(limits: list[Limits], group: Group, processes: int) -> dict[str, float]:
    """The process losses a group is judged by: of its model's limits file, for GPUs of
    `processes` processes each. FleetInputError where the file holds process losses, yet none of
    a median of that many processes (its cards ran too few processes to give them)."""
    limit = limits_of(limits, group.gpus[0].gpu_name)
    if limit is not None and limit.process_losses and processes > 1 \
            and processes not in limit.median_losses:
        counts = sorted(limit.median_losses)
        held = (f"of medians of {counts[0]} to {counts[-1]} processes" if counts
                else "of single processes only")
        raise FleetInputError(f"--processes-per-gpu={processes}: {limit.source} holds process "
                              f"losses {held}; rebuild it (gpubench-tools limits) from cards "
                              f"of {2 * processes} processes or more")
    return process_losses_of(limits, group.gpus[0].gpu_name, processes)


def missing_line(found: list[Lacking]) -> str:
    """--missing-fails's line: the GPUs lacking benchmarks, the first few named."""
    shown = ", ".join(f"{item.gpu.host} {item.gpu.uuid} ({len(item.missing)}, e.g. "
                      f"{shorten(item.missing[0], 200)})" for item in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return shorten(f"--missing-fails: {len(found)} GPU(s) lack benchmarks others of their group "
                   f"ran: {shown}{more}", 1000)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.output is not None:
            refuse_output_over_input(args.output, [
                *(file for name in args.inputs for file in files_read(Path(name))),
                *(args.limits or default_limit_files()),
                *([args.expect_hosts] if args.expect_hosts else [])])
        findings, skipped = findings_of(args)
        if args.output is not None:
            # Loaded only for a heatmap: matplotlib is most of the start-up time.
            from gpubench_tools.renderers.figures.fleet_heatmap import (
                check_heatmap_size,
                draw_heatmap,
                headline_benchmarks,
            )

            check_heatmap_size(findings.groups, args.output)
            columns = headline_benchmarks(findings.groups, args.patterns)
        write_stdout(report(findings, args.rule, args.markdown) + "\n")
        if args.output is not None:
            draw_heatmap(findings.groups, columns, args.output, args.rule)
            shown = markdown_text(args.output) if args.markdown else args.output
            write_stdout(f"heatmap: {shown}\n")
        for line in skipped:
            print(line, file=sys.stderr)
        if args.missing_fails and findings.lacking:
            script_error("gpubench-tools fleet", missing_line(findings.lacking))
            return MISSING_BENCHMARKS
    except (FleetInputError, OutputIsInputError) as error:
        print(one_line(f"gpubench-tools fleet: {error}"), file=sys.stderr)
        return 2
    except FilterError as error:
        print(one_line(f"gpubench-tools fleet: --headline={error}"), file=sys.stderr)
        return 2
    except OSError as error:  # writing stdout; a path names itself (writing/outputs.py)
        return script_error("gpubench-tools fleet", error)
    return 1 if findings.attention() and args.fail_on_outlier else 0


if __name__ == "__main__":
    sys.exit(main())
