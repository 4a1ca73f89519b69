#!/usr/bin/env python3
"""Side by side: gpubench's peer copies, traffic patterns and all-device host copies against the
nvbandwidth test cases run beside them, each cell within 1% or not.

Usage: compare_bandwidth.py GPUBENCH.json NVBANDWIDTH.json [NVBANDWIDTH.json ...] --buffer-mib N

N is nvbandwidth's -b (its buffer in MiB); gpubench's figure is the median over repetitions of
bytes_per_second of the benchmark at N MiB. What each nvbandwidth cell measures, from its code
(v0.8), by the gpubench benchmark that moves the same bytes from the same GPU's engine or kernel:
  device_to_device_memcpy_write_<ce|sm>      [s][d]  peer/<e>/write/<s>to<d>  (s pushes)
  device_to_device_memcpy_read_<ce|sm>       [d][s]  peer/<e>/read/<s>to<d>   (d pulls)
  device_to_device_bidirectional_memcpy_write_<ce|sm>, its total rows [a][b]:
      peer/<e>/bidir/<a>to<b>, and with two GPUs peer/<e>/write/bisect; the _read_ case's
      total: peer/<e>/read/bisect
  all_to_one_write_<ce|sm>   column d  peer/<e>/write/allto<d>
  one_to_all_write_<ce|sm>   column s  peer/<e>/write/<s>toall
  all_to_one_read_ce         column s  peer/ce/read/<s>toall  (the others pull from s)
  one_to_all_read_ce         column d  peer/ce/read/allto<d>  (d pulls from the others)
  all_to_one_read_sm         column s  peer/sm/write/<s>toall (its kernel runs on s and writes)
  one_to_all_read_sm         column d  peer/sm/write/allto<d> (its kernels run on the others)
  host_to_all_memcpy_ce, all_to_host_memcpy_ce: the sum of the row, copy/<HtoD|DtoH>/pinned/
      async_all_devices (each column is one GPU's copy while every other GPU copies too)
A bidirectional case's JSON holds three matrices one after the other (each way, then the total).
"""
import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import peer_files  # noqa: F401  (first: it finds the toolkit's modules)
from peer_files import Matrix, gpubench_medians, nvbandwidth_cases, print_comparison

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.safe_text import ascii_decimal, printable

TOOL = "compare_bandwidth.py"
LIMIT = 0.01  # the target: within 1% of nvbandwidth


def buffer_mib(text: str) -> int:
    """nvbandwidth's -b: a whole number of MiB, at least 1."""
    value = ascii_decimal(text)
    if not value:
        raise argparse.ArgumentTypeError(f"must be a whole number of MiB, at least 1, not "
                                         f"{text!r}")
    return value


def last_square(matrix: Matrix) -> Matrix:
    """A bidirectional case's total: the last of the matrices its JSON stacks."""
    n = len(matrix[0]) if matrix else 0
    return matrix[-n:] if n and len(matrix) % n == 0 else []


def cells(case: str, matrix: Matrix) -> Iterator[tuple[str, float, str]]:
    """(gpubench name without its size, nvbandwidth GB/s) for each cell `case` has."""
    if case in ("host_to_all_memcpy_ce", "all_to_host_memcpy_ce"):
        row = [v for v in matrix[0] if v is not None] if len(matrix) == 1 else []
        if row:
            way = "HtoD" if case.startswith("host") else "DtoH"
            yield f"copy/{way}/pinned/async_all_devices", sum(row), "sum of the row"
        return
    prefix, _, engine = case.rpartition("_")
    pairs = {"device_to_device_memcpy_write": ("write", False),
             "device_to_device_memcpy_read": ("read", True)}
    if prefix in pairs:
        mode, row_is_destination = pairs[prefix]
        for r, row in enumerate(matrix):
            for c, value in enumerate(row):
                if value is not None:
                    s, d = (c, r) if row_is_destination else (r, c)
                    yield f"peer/{engine}/{mode}/{s}to{d}", value, f"[{r}][{c}]"
        return
    if prefix.startswith("device_to_device_bidirectional_memcpy_"):
        mode = prefix.rpartition("_")[2]
        total = last_square(matrix)
        for r, row in enumerate(total):
            for c, value in enumerate(row):
                if value is not None:
                    if mode == "write":
                        yield f"peer/{engine}/bidir/{r}to{c}", value, f"total [{r}][{c}]"
                    if len(total) == 2 and r == 0:
                        yield f"peer/{engine}/{mode}/bisect", value, f"total [{r}][{c}]"
        return
    patterns = {
        ("all_to_one_write", "ce"): "write/allto{}", ("all_to_one_write", "sm"): "write/allto{}",
        ("one_to_all_write", "ce"): "write/{}toall", ("one_to_all_write", "sm"): "write/{}toall",
        ("all_to_one_read", "ce"): "read/{}toall", ("one_to_all_read", "ce"): "read/allto{}",
        ("all_to_one_read", "sm"): "write/{}toall", ("one_to_all_read", "sm"): "write/allto{}",
    }
    if (prefix, engine) in patterns and len(matrix) == 1:
        for c, value in enumerate(matrix[0]):
            if value is not None:
                yield f"peer/{engine}/" + patterns[(prefix, engine)].format(c), value, f"column {c}"


def comparison(ours: dict[str, float], theirs: dict[str, tuple[str, Matrix]], size: int,
               gpubench_path: str) -> tuple[list[str], int]:
    """The lines of the comparison and how many cells were compared."""
    lines, compared, within = [], 0, 0
    for case, (status, matrix) in sorted(theirs.items()):
        shown = printable(case)
        if status != "Passed":
            lines.append(f"{shown}: not compared, nvbandwidth's status is {printable(status)}")
            continue
        found = list(cells(case, matrix))
        if not found:
            lines.append(f"{shown}: not compared, no gpubench benchmark moves what it measures")
        for base, ref, where in found:
            name = f"{base}/{size}"
            if name not in ours:
                lines.append(f"{shown} {where}: no {name} in {printable(gpubench_path)}")
                continue
            gbps = ours[name] / 1e9
            ratio = gbps / ref
            ok = abs(ratio - 1) <= LIMIT
            compared += 1
            within += ok
            lines.append(f"{shown} {where}: {name} {gbps:.1f} GB/s, nvbandwidth {ref:.1f} GB/s, "
                         f"{ratio:.3f}x {'within 1%' if ok else 'OUTSIDE 1%'}")
    lines.append(f"{within} of {compared} within 1% of nvbandwidth")
    return lines, compared


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(prog=TOOL, description=__doc__.split("\n\n")[0])
    parser.add_argument("gpubench")
    parser.add_argument("nvbandwidth", nargs="+")
    parser.add_argument("--buffer-mib", type=buffer_mib, required=True, metavar="N",
                        help="nvbandwidth's -b: the size both ran at, in MiB")
    args = parser.parse_args(argv)
    try:
        ours = gpubench_medians(args.gpubench, "bytes_per_second")
        theirs = nvbandwidth_cases(args.nvbandwidth)
    except GpubenchJsonError as error:
        return script_error(TOOL, error)
    lines, compared = comparison(ours, theirs, args.buffer_mib << 20, args.gpubench)
    return print_comparison(TOOL, lines if compared else [],
                            f"no gpubench benchmark at {args.buffer_mib} MiB matches a passed "
                            "nvbandwidth case")

if __name__ == "__main__":
    from gpubench_tools.cli import process
    process.install(Path(sys.argv[0]).name)
    sys.exit(main())
