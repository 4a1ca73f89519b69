"""Nothing silent: GPUs the screen did not screen as it screened the others are named
(models/fleet/unscreened.py), and a run that says it ended early is a row of its own
(reading/fleet/records.py), each needing attention."""

from pathlib import Path

import fleet_builder as fb
import pytest
from fleet_noise import gpus_of
from test_fleet import run, section
from test_fleet_status import records

from gpubench_tools.models.fleet.groups import group_gpus
from gpubench_tools.models.fleet.health import judge_health
from gpubench_tools.models.fleet.unscreened import one_name_two_nodes, other_kind, throttled


def fleet(size: int = 16) -> list[fb.Document]:
    return fb.build_fleet(size, 0, fb.CI_PAIR, process_levels=False)


def unscreened(docs: list[fb.Document]) -> dict[str, str]:
    """Host: what, of each GPU named."""
    gpus = gpus_of(docs)
    health = judge_health([g.context for g in gpus])
    found = (other_kind(group_gpus(gpus), 4) + one_name_two_nodes(gpus)
             + throttled(gpus, health.clock_events))
    return {u.gpu.host: u.what for u in found}


def test_a_healthy_fleet_names_none() -> None:
    docs = fleet()
    for doc in docs:
        fb.set_health(doc, after={"clock_event_reasons_during_run": ["gpu_idle"]})
    assert unscreened(docs) == {}


@pytest.mark.parametrize("key, value", [("gpu_name", "NVIDIA H100 80GB HBM3"),
                                        ("driver_version", "575.57.08")])
def test_a_whole_node_of_another_model_or_driver_is_named(key: str, value: str) -> None:
    """8 GPUs of 24 (a node) unlike the others: a group of their own, compared within, and each
    named with what sets the group apart; the 16 are not."""
    docs = fleet(24)
    for doc in docs[16:]:
        doc["context"][key] = value
    named = unscreened(docs)
    assert set(named) == {f"node{i:02d}" for i in range(16, 24)}
    assert set(named.values()) == {"other model or driver"}


def test_two_nodes_under_one_host_name_are_named() -> None:
    """Two GPUs of host node00 at one PCI bus id, then node01 whose results give two CPU
    counts: both hosts' GPUs named; GPUs of one host at their own bus ids are not."""
    docs = fleet()
    docs[1]["context"].update(host_name="node00", gpu_pci_bus_id=docs[0]["context"]
                              ["gpu_pci_bus_id"])
    docs[3]["context"].update(host_name="node02")  # one host, two GPUs: fine
    assert unscreened(docs) == {"node00": "two nodes, one name"}
    docs = fleet()
    docs[1]["context"].update(host_name="node00", num_cpus=8)
    assert unscreened(docs) == {"node00": "two nodes, one name"}


@pytest.mark.parametrize("plant", ["clock_limited_ms", "sm clock fell", "sw_thermal_slowdown",
                                   "hw_power_brake_slowdown"])
def test_a_gpu_throttled_during_the_run_is_named(plant: str) -> None:
    docs = fleet()
    for doc in docs:
        fb.set_health(doc)
    entry = docs[5]["benchmarks"][0]
    if plant == "clock_limited_ms":
        entry["clock_limited_ms"] = 12.5
    elif plant == "sm clock fell":
        entry.update(sm_clock_start_mhz=1980.0, sm_clock_end_mhz=1500.0)
    else:
        fb.set_health(docs[5], after={"clock_event_reasons_during_run": ["gpu_idle", plant]})
    assert unscreened(docs) == {"node05": "throttled"}


@pytest.mark.parametrize("status, row", [("faulted", "failed"), ("interrupted", "interrupted")])
def test_a_run_that_says_it_ended_early_is_a_row(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 status: str, row: str) -> None:
    """run_status faulted or interrupted with no benchmark in error and no `interrupted` key: a
    row; an otherwise clean fleet exits 1 with --fail-on-outlier."""
    docs = fleet()
    docs[2]["context"]["run_status"] = status
    fb.write_fleet(docs, tmp_path)
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert records(out)["node02"][0] == row
    assert f"run_status {status}" in section(out, "Runs that did not finish")


def test_a_throttled_gpu_fails_the_screen(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    docs = fleet()
    docs[7]["benchmarks"][0]["clock_limited_ms"] = 3.0
    fb.write_fleet(docs, tmp_path)
    code, out, _ = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert code == 1, out
    rows = section(out, "Not screened as the others")
    assert "node07" in rows and "throttled" in rows and "1 GPU(s)" in rows
