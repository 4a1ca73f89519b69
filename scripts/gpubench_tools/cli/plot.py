"""Plot gpubench results: one PNG per family, DIR/<family>.png, of every benchmark the files hold.

A family's figure is drawn by family_plot, as gpubench-tools report draws it: its benchmarks read \
by the
facts each file's context declares (gpubench_families; inferred for files without them), a
panel per figure and first series component, a colour per curve (series and device: a
`/device:N` benchmark is a curve of its own), a line style and marker per file, named by its file
stem; benchmarks without an argument are bars. A family whose name is no safe file name
(family_plot.figure_file_name) is drawn to family<N>.png; where two families' files would share a
name (`Copy` and `copy` on a file system that folds case, `peer_pairs` and the pairs of `peer`),
the later one's name gets a short hash of the family (family_plot.figure_stems), so no figure is
written over another. Axes are logarithmic where values are above 0 and span a decade.

Also fits t(s) = t0 + s/B to every curve of GB/s that also carries a time per operation (its
family's µs figure, lower better), prints t0, B and s_half = t0*B and writes that table to
DIR/fit.txt, and draws each fit dashed over its curve: t is that time, s the bytes the
bandwidth counts in it. A curve faster at a size
within the L2 (the context's l2_bytes) than at every size beyond it is served from the L2
there, which would pull B above what memory gives: it is fitted above the L2 only.

A family whose series name ordered pairs of GPUs (`<s>to<d>`, as peer copies do) also gets
DIR/<family>_pairs.png: a source × destination matrix per series at its largest argument
(pair_matrix); a series whose pairs name more than 64 GPUs, the most gpubench measures at once,
is refused.

Names from the files are drawn as text, cut to 80 characters. A figure holds at most 24 panels
and 128 curves, and one run draws at most 64 families (--filter selects fewer).

Exit status: 0 figures written, 2 unusable input, more than a figure holds, an unwritable DIR
or file of it (the figures and fit.txt are written all or none: then no file of DIR is changed),
or a file of DIR that is an input or no regular file (then nothing is written).
"""

import argparse
from pathlib import Path

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.name_filter import FilterError, name_filter


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineArgumentParser(prog="gpubench-tools plot", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULT.json",
                        help="gpubench JSON (Google Benchmark --benchmark_out_format=json)")
    parser.add_argument("-o", "--output-dir", type=Path, required=True, metavar="DIR",
                        help="folder for the PNGs and fit.txt (created if missing)")
    parser.add_argument("--filter", metavar="REGEX",
                        help="plot only benchmarks whose name (without Google Benchmark's "
                             "suffixes) this regular expression matches, e.g. '^copy/(HtoD|DtoH)'")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Loaded once the options are read: matplotlib is most of the start-up time.
    from gpubench_tools.reading.result_file import load
    from gpubench_tools.renderers.figures.family_plot import PlotError
    from gpubench_tools.renderers.figures.plot_files import draw, make_sources, select

    try:
        pattern = name_filter(args.filter) if args.filter is not None else None
        results = [select(load(path), pattern) for path in args.results]
        if pattern is not None and not any(r.benchmarks for r in results):
            raise PlotError(f"--filter={args.filter} matches no benchmark")
        draw(make_sources(results), args.output_dir, args.results)
    except PlotError as e:
        return script_error("gpubench-tools plot", str(e))
    except (GpubenchJsonError, OSError) as e:
        return script_error("gpubench-tools plot", e)
    except FilterError as e:
        return script_error("gpubench-tools plot", f"--filter={e}")
    return 0
