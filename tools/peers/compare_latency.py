#!/usr/bin/env python3
"""Side by side: gpubench's latency/chase figures against gpu-benches' gpu-latency (device) and
nvbandwidth's host_device_latency_sm / device_to_device_latency_sm (host_pinned, peer).

Usage: compare_latency.py GPUBENCH.json [--gpu-latency TXT] [--nvbandwidth JSON ...]

gpubench: the median over repetitions of ns_per_load per benchmark. gpu-latency: each line
"iters clock_MHz KiB ms cycles" is ns per load = ms * 1e6 / iters at KiB * 1024 bytes (its
chase: 64-byte stride, times from the host around 1M+ loads, min of 7). nvbandwidth: its matrix
in ns (host: row 0, column = GPU; device_to_device: row = GPU that chases, column = memory's
GPU; gpubench's peer/<s>to<d> is s's memory chased by d, so it reads row d, column s).
Plateaus: each tool's median over the sizes in a band (L1: 8-64 KiB, L2 near: 1-8 MiB,
HBM: 128-256 MiB, past the L2 and within what the coarse gpu-latency build reaches).
"""
import math
import statistics
import sys
from pathlib import Path

import peer_files  # noqa: F401  (first: it finds the toolkit's modules)
from peer_files import Matrix, median_of, nvbandwidth_cases, print_comparison

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.result_file import load, read_file
from gpubench_tools.reading.safe_text import ascii_decimal, printable

TOOL = "compare_latency.py"
BANDS = {"L1 (8-64 KiB)": (8 << 10, 64 << 10), "L2 near (1-8 MiB)": (1 << 20, 8 << 20),
         "HBM (128-256 MiB)": (128 << 20, 256 << 20)}
LIMIT = 0.10  # the target: within 10% of the peers
# A chase: where (device, host_pinned, peer), its bytes, the GPU of its /device:N (None without
# one), the GPUs of a peer chase (s, d), and its median ns per load.
Chase = tuple[str, int, int | None, tuple[int, ...], float]


def gpubench_chases(path: str) -> dict[str, Chase]:
    """Each latency/chase benchmark that names a place the peers measure, by its name."""
    found = {}
    for bench in load(path).benchmarks.values():
        parts = bench.parts
        chase, _, place = parts.series.partition("/")
        where, _, pair = place.partition("/")
        gpus = tuple(map(ascii_decimal, pair.split("to"))) if where == "peer" else ()
        known = (where in ("device", "host_pinned") and not pair
                 or where == "peer" and len(gpus) == 2 and None not in gpus)
        ns = median_of(bench, "ns_per_load")
        if (parts.family == "latency" and chase == "chase" and known
                and parts.argument is not None and ns is not None):
            found[bench.name] = (where, parts.argument, parts.device, gpus, ns)
    return found


def gpu_latency_points(path: str) -> list[tuple[int, float]]:
    """(bytes, ns per load) of each line "iters clock_MHz KiB ms cycles" gpu-latency printed;
    lines of another shape, or of numbers that are no count, size or time, are left out."""
    points = []
    for line in read_file(path).decode("utf-8", "replace").splitlines():
        fields = line.split()
        if len(fields) != 5:
            continue
        try:
            iters, _, kib, ms, _ = map(float, fields)
        except ValueError:
            continue
        size, ns = kib * 1024, ms * 1e6 / iters if iters > 0 else math.nan
        if math.isfinite(size) and size >= 1 and math.isfinite(ns) and ns > 0:
            points.append((int(size), ns))
    return points


def pct(a: float, b: float) -> str:
    return f"{100 * (a / b - 1):+.1f}%"


def verdict(a: float, b: float) -> str:
    return "within 10%" if abs(a / b - 1) <= LIMIT else "OUTSIDE 10%"


def device_lines(device: dict[int, float], theirs: list[tuple[int, float]]) -> list[str]:
    lines = ["device: gpubench vs gpu-latency (nearest size), ns per load"]
    for size, ns in sorted(device.items()):
        near = min(theirs, key=lambda p: abs(math.log(p[0] / size)))
        lines.append(f"  {size >> 10:>8} KiB  gpubench {ns:8.1f}  gpu-latency {near[1]:8.1f} "
                     f"at {near[0] >> 10} KiB  {pct(ns, near[1])}")
    lines.append("plateaus (median over the band):")
    for band, (lo, hi) in BANDS.items():
        a = [ns for s, ns in device.items() if lo <= s <= hi]
        b = [ns for s, ns in theirs if lo <= s <= hi]
        if a and b:
            ma, mb = statistics.median(a), statistics.median(b)
            lines.append(f"  {band:<20} gpubench {ma:8.1f} ({len(a)} sizes)  gpu-latency "
                         f"{mb:8.1f} ({len(b)} sizes)  {pct(ma, mb)}  {verdict(ma, mb)}")
    return lines


def cell(matrices: dict[str, Matrix], case: str, row: int, column: int) -> float | None:
    matrix = matrices.get(case)
    if matrix is None or row >= len(matrix) or column >= len(matrix[row]):
        return None
    return matrix[row][column]


def link_lines(chases: dict[str, Chase], matrices: dict[str, Matrix]) -> list[str]:
    lines = []
    for name, (where, _, device, gpus, ns) in sorted(chases.items()):
        if where == "host_pinned":
            ref = cell(matrices, "host_device_latency_sm", 0, device or 0)
        elif where == "peer":
            s, d = gpus
            ref = cell(matrices, "device_to_device_latency_sm", d, s)
        else:
            continue
        if ref:
            lines.append(f"{printable(name):<40} gpubench {ns:8.1f}  nvbandwidth {ref:8.1f}  "
                         f"{pct(ns, ref)}  {verdict(ns, ref)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=TOOL, description=__doc__.split("\n\n")[0])
    parser.add_argument("gpubench")
    parser.add_argument("--gpu-latency", metavar="TXT")
    parser.add_argument("--nvbandwidth", nargs="*", default=[], metavar="JSON")
    args = parser.parse_args(argv)
    try:
        chases = gpubench_chases(args.gpubench)
        theirs = gpu_latency_points(args.gpu_latency) if args.gpu_latency else []
        matrices = {name: matrix for name, (status, matrix)
                    in nvbandwidth_cases(args.nvbandwidth).items() if status == "Passed"}
    except GpubenchJsonError as error:
        return script_error(TOOL, error)
    if args.gpu_latency and not theirs:
        return script_error(TOOL, f"{args.gpu_latency}: no line of gpu-latency's output "
                                  "(iters clock_MHz KiB ms cycles)")
    device = {size: ns for where, size, gpu, _, ns in chases.values()
              if where == "device" and gpu is None}
    lines = device_lines(device, theirs) if theirs and device else []
    lines += link_lines(chases, matrices)
    return print_comparison(TOOL, lines, f"no latency/chase benchmark of "
                                         f"{printable(args.gpubench)} meets a peer's figure")

if __name__ == "__main__":
    from gpubench_tools.cli import process
    process.install(Path(sys.argv[0]).name)
    sys.exit(main())
