"""Every benchmark gpubench lists keeps a name of its own once the toolkit strips Google
Benchmark's suffixes (manual_time, iterations:N, threads:N, ...): a gpubench parameter spelled as
one of them (`threads:8`) would make two benchmarks one, and every result file holding both is
refused. Listing needs no GPU; the test skips where no gpubench is built."""

import subprocess
from collections import Counter

import pytest
from conftest import gpubench_binary

from gpubench_tools.reading.facts import strip_gb_suffixes

BINARY = gpubench_binary()


@pytest.mark.skipif(not BINARY.is_file(), reason=f"no {BINARY}: build it (README's quick start)")
def test_every_listed_benchmark_keeps_its_own_name_once_suffixes_are_stripped() -> None:
    listed = subprocess.run([str(BINARY), "--benchmark_list_tests"], capture_output=True,
                            text=True, timeout=60, check=True).stdout.split()
    assert len(listed) > 100, listed
    shared = {name: count for name, count in Counter(map(strip_gb_suffixes, listed)).items()
              if count > 1}
    assert shared == {}
