"""Prints the gpubench flags that measure as RESULT was measured, one a line, as far as its context
states them: the filter, Google Benchmark's minimum and warm-up times and random interleaving,
--energy, the devices, saxpy's --l2 where it is not the default, and each family flag the run was
given (gpubench states one under its own name: "--sizes": "1G,4G"). gpubench-tools gate records its
candidate with them, so a baseline recorded with a filter, another minimum time or other sizes is
compared with a candidate recorded alike, not refused as measured otherwise or lacking benchmarks
after minutes of runs. A key the context lacks gives no flag (gpubench's default), as does saxpy_l2
holding the default its gpubench_families declares for --l2: the candidate's context then lacks the
"--l2" a flag given adds, as the baseline's. The build type is no flag: the binary has its own,
which --build-type=TYPE names (gpubench --version states it, without a GPU): a result of another
build type (context gpubench_build_type), which no flag can measure as, is refused, as
gpubench-tools compare refuses it as measured otherwise; a result that states none is not.

  scripts/gpubench-tools flags results/h200/ci_baseline.json
  scripts/gpubench-tools flags --build-type=Release results/h200/ci_baseline.json

Exit status: 0 printed; 2 an unusable result, or a setting that is not text gpubench writes
(a number, a control character), a key in the shape of a flag that is no family flag, or one
flag stated twice with two values, in one line; 3 a result of another build type than
--build-type's, in one line (gpubench-tools compare's status for measured otherwise).
"""

from gpubench_tools.cli.options import OneLineArgumentParser, script_error
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.recorded_flags import (
    BUILD_TYPE_KEY,
    OTHER_BUILD,
    SettingError,
    other_build_type,
    recorded_flags,
)
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.safe_text import one_line
from gpubench_tools.reading.settings import SETTING_SHOWN
from gpubench_tools.writing.outputs import write_stdout


def main(argv: list[str] | None = None) -> int:
    parser = OneLineArgumentParser(
        prog="gpubench-tools flags",
        description="The gpubench flags that measure as RESULT was measured, one a line.")
    parser.add_argument("result", metavar="RESULT.json")
    parser.add_argument("--build-type", metavar="TYPE",
                        help="the build type of the gpubench the flags are for (gpubench "
                             f"--version states it): exit {OTHER_BUILD} where RESULT states "
                             "another (scripts/gpubench-tools gate checks its candidate so, before "
                             "its runs)")
    args = parser.parse_args(argv)
    try:
        result = load(args.result)
        flags = recorded_flags(result.context)
        if args.build_type is not None and (
                stated := other_build_type(result.context, args.build_type)):
            mine = one_line(args.build_type, SETTING_SHOWN)
            script_error("gpubench-tools flags",
                         f"{args.result}: recorded by a {stated} build (context "
                         f"{BUILD_TYPE_KEY}), and a {mine} build measures otherwise: no flag "
                         f"makes it measure as a {stated} build does; build gpubench as "
                         f"{stated}, or record {args.result} with the {mine} build")
            return OTHER_BUILD
        write_stdout("".join(f"{flag}\n" for flag in flags))
    except SettingError as e:
        return script_error("gpubench-tools flags", f"{args.result}: {e}")
    except (GpubenchJsonError, OSError) as e:
        return script_error("gpubench-tools flags", e)
    return 0
