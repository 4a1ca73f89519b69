"""gpubench's measurement settings in a result's context: runs alike by them are pooled and
judged."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """A context key that says how a run measured, beyond its GPU and gpubench's version."""
    key: str
    family: str | None  # the family whose figures it changes; None: every family
    absent: str | None  # what a file without the key measured; None: not known

# gpubench's measurement settings, in which gpubench-tools merge pools and gpubench-tools compare
# judges only runs alike: saxpy_l2 is --l2, whether saxpy flushes the L2 before each timed launch
# (every run writes it); energy, written with --energy alone, is about a second more of each
# benchmark's operation after its timed loop, which warms the GPU for the next benchmark;
# gpubench_build_type is CMake's (Release, Debug), whose host code times the host-timed figures;
# benchmark_min_time and benchmark_min_warmup_time are Google Benchmark's, which call a benchmark's
# body again until that much is measured (docs/performance.md).
SETTING_SHOWN = 80  # characters of a measurement setting's value a command shows

# The filter a run was given (absent: none): among fewer others a benchmark can measure otherwise,
# so gpubench-tools compare notes runs of different filters and gpubench-tools merge pools none.
FILTER_KEY = "benchmark_filter"

# Whether a run interleaved the repetitions of its benchmarks at random ("true" or "false"): each
# repetition then runs beside other benchmarks, so gpubench-tools compare notes runs that differ in
# it.
INTERLEAVING_KEY = "benchmark_enable_random_interleaving"

MEASUREMENT_SETTINGS = (Setting("saxpy_l2", "saxpy", None), Setting("energy", None, "off"),
                        Setting("gpubench_build_type", None, None),
                        Setting("benchmark_min_time", None, None),
                        Setting("benchmark_min_warmup_time", None, None))

def setting_text(context: dict[str, Any], setting: Setting) -> str | None:
    """How a run measured in `setting`, as text: energy "on" or "off" (its text says how a
    window is taken, the same in one build), saxpy_l2 as written; None where not known."""
    if setting.key not in context:
        return setting.absent
    if setting.key == "energy":
        return "on"
    value = context[setting.key]
    return value if isinstance(value, str) else repr(value)
