#!/usr/bin/env python3
"""How far each column of a probe's table moves between processes: the outputs of
tools/probes/duet_kinds_probe.cu (or any probe that prints a header `figure COLUMN...` and then
a line per figure of its name and one positive value per column), one file per process.

Prints, per figure, each column's spread between the processes (1.4826 x the median absolute
deviation of log(value / its median over the processes), in %) with the median over them in
brackets. For duet_kinds_probe: a figure whose spread over a reference is well under its spread
alone is one the reference steadies.

  tools/analysis/probe_columns.py PROBE_OUTPUT.txt...   (two or more)
"""

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from gpubench_tools.cli.options import script_error, script_output  # noqa: E402
from probe_text import log_spread, numbered_words, positive_values, read_processes  # noqa: E402

SCRIPT = "probe_columns.py"


def read_table(path: str) -> tuple[list[str], dict[str, list[float]]]:
    """The column names and each figure's values of one process. ValueError names what is
    wrong."""
    rows = numbered_words(path)
    if not rows or rows[0][1][0] != "figure" or len(rows[0][1]) < 2:
        raise ValueError(f"{path}: no header line `figure COLUMN...`")
    columns, figures = rows[0][1][1:], {}
    for number, words in rows[1:]:
        values = positive_values(words[1:])
        if values is None or len(values) != len(columns):
            raise ValueError(f"{path}: line {number}: not a figure's name and {len(columns)} "
                             "positive values")
        figures[words[0]] = values
    return columns, figures


def main(argv: list[str]) -> int:
    read = read_processes(SCRIPT, __doc__.splitlines()[0], argv, read_table)
    if isinstance(read, int):
        return read
    (first, (columns, _)), tables = read[0], [table for _, table in read]
    for path, (other, _) in read:
        if other != columns:
            return script_error(SCRIPT, f"{path}: its columns differ from {first}'s")
    lines = [f"{len(tables)} processes; spread between them, in % (median over them):",
             f"  {'figure':18s}" + "".join(f"{c:>26s}" for c in columns)]
    for name in tables[0][1]:
        if not all(name in figures for _, figures in tables):
            continue
        cells = []
        for column in range(len(columns)):
            values = [figures[name][column] for _, figures in tables]
            cells.append(f"{log_spread(values):8.2f} ({statistics.median(values):.4g})".rjust(26))
        lines.append(f"  {name:18s}" + "".join(cells))
    return script_output(SCRIPT, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
