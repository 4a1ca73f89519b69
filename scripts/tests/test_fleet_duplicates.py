"""The same GPU's result twice (a rescheduled pod): both shown, the later judged, the rest of the
fleet reported (models/fleet/duplicates.py)."""

import dataclasses
import json
from pathlib import Path

import fleet_builder as fb
import pytest
from fleet_noise import gpus_of
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fleet import run, section
from test_fleet_status import records

from gpubench_tools.models.fleet.duplicates import later_of_each

DTOH = "copy/DtoH/pinned/async/"


def dated(gpu, date: object, source: str):
    context = dict(gpu.context)
    if date is None:
        context.pop("date", None)
    else:
        context["date"] = date
    return dataclasses.replace(gpu, result=dataclasses.replace(gpu.result, context=context),
                               source=source)


@settings(max_examples=30, deadline=None)
@given(st.permutations(range(3)), st.sampled_from(["+00:00", "+02:00", "Z", ""]))
def test_the_latest_result_of_a_gpu_is_kept_in_any_order(order: list[int], zone: str) -> None:
    """Three results of GPU 0 started an hour apart, given in any order, with any offset
    spelling: the latest kept, the two earlier named, each other GPU kept once."""
    gpus = gpus_of(fb.build_fleet(4, 0, fb.CI_PAIR, process_levels=False))
    runs = [dated(gpus[0], f"2026-11-29T1{hour}:00:00{zone}", f"run{hour}.json")
            for hour in range(3)]
    kept, found = later_of_each([runs[i] for i in order] + gpus[1:])
    assert [g.source for g in kept if g.uuid == gpus[0].uuid] == ["run2.json"]
    assert len(kept) == 4
    assert sorted(r.source for r in found) == ["run0.json", "run1.json"]
    assert all(r.status == "duplicate" and "run2.json" in r.detail for r in found)


def test_a_result_without_a_date_counts_as_earlier_and_a_tie_goes_by_file_name() -> None:
    gpu = gpus_of(fb.build_fleet(4, 0, fb.CI_PAIR, process_levels=False))[0]
    kept, _ = later_of_each([dated(gpu, "2026-11-29T10:00:00+00:00", "a.json"),
                             dated(gpu, None, "z.json")])
    assert [g.source for g in kept] == ["a.json"]
    kept, _ = later_of_each([dated(gpu, "not a date", "b.json"), dated(gpu, 3, "a.json")])
    assert [g.source for g in kept] == ["b.json"]


@pytest.mark.parametrize("later_slow", [True, False])
def test_a_rescheduled_pod_is_a_finding_and_the_fleet_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], later_slow: bool) -> None:
    """node03 measured again a day later in another directory, its DtoH copies at half speed in
    one of the two: the earlier is a duplicate row, the later judged (flagged only where it is
    the slow one), the other 15 GPUs reported; exit 1 with --fail-on-outlier."""
    fleet = fb.build_fleet(16, 0)
    again = json.loads(json.dumps(fleet[3]))
    again["context"]["date"] = "2026-11-30T10:00:00+00:00"
    fb.scale_bandwidth(again if later_slow else fleet[3], fb.starts(DTOH), 0.5)
    fb.write_fleet(fleet, tmp_path / "first")
    fb.write_fleet([again], tmp_path / "rescheduled")
    code, out, err = run(capsys, tmp_path / "first", tmp_path / "rescheduled",
                         "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert list(rows) == ["node03"] and rows["node03"][0] == "duplicate"
    assert "rescheduled" in section(out, "Runs that did not finish")
    assert "16 GPU result(s)" in out
    slower = section(out, "Slower")
    assert ("node03" in slower) == later_slow, slower
