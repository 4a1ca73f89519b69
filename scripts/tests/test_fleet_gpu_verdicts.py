"""One verdict line per GPU that needs attention, first in the report: host, index, PCI bus id,
UUID, what is wrong, how far, what to do (models/fleet/verdicts.py)."""

from pathlib import Path

import fleet_builder as fb
import pytest
from test_fleet import run, section


def verdict_rows(out: str) -> dict[str, list[str]]:
    """The verdict rows by host (the first row of a host without a GPU: by its status)."""
    rows = [line for line in section(out, "Verdicts").splitlines()[3:] if line.strip()]
    return {row.split()[0]: row.split() for row in rows}


def test_the_example_fleet_gets_one_verdict_per_gpu(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The x4 link's GPU below its floor (its worst finding, not also slower), the failed node,
    the replays, the other driver's four, the missing GPU: eight lines, each GPU once, runs that
    did not finish first; the verdicts come before every other section."""
    fb.write_example(tmp_path)
    code, out, _ = run(capsys, tmp_path, "--expect", 18, "--fail-on-outlier")
    assert code == 1
    assert out.index("== Verdicts") < out.index("== Runs that did not finish")
    rows = verdict_rows(out)
    hosts = [line.split()[0] for line in section(out, "Verdicts").splitlines()[3:]
             if line.strip()]
    assert len(hosts) == 8
    assert rows["node05"][1:4] == ["0", "0000:05:00.0", fb.uuid_of(5)]
    node05 = " ".join(rows["node05"])
    assert "below its model's floor" in node05 and "of the floor" in node05
    assert "rerun it in several processes" in node05
    assert "drain it at the next maintenance" in " ".join(rows["node09"])
    assert all("other model or driver" in " ".join(rows[f"node{i}"]) for i in range(12, 16))
    assert hosts[:2] == ["?", "node16"]  # runs that did not finish first


def test_a_healthy_fleet_has_no_verdict(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    fb.write_fleet(fb.build_fleet(16, 0), tmp_path)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 0, out
    assert "blame (the sections below give the detail): 0 GPU(s)" in out
