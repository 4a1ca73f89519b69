"""gpubench-tools fleet against what Slurm allocated: deploy/slurm's `job<JOB>.expected_hosts` in a
results directory is the fleet expected without --expect-hosts, so a node or GPU that left nothing
is `missing` (docs/cluster.md)."""

import os
import subprocess
from pathlib import Path

import fleet_builder as fb
import pytest
from test_fleet import run, section
from test_fleet_status import REPO, records, rerun


def write_allocation(directory: Path, job: str, hosts: dict[str, int]) -> Path:
    """job<JOB>.expected_hosts as deploy/slurm's batch step writes it."""
    path = directory / f"job{job}.expected_hosts"
    path.write_text(f"# Slurm job {job}'s allocation (scontrol --details show job): HOST GPUS\n"
                    + "".join(f"{host} {gpus}\n" for host, gpus in hosts.items()))
    return path


def missing_rows(out: str) -> dict[str, str]:
    """The `missing` rows of the report, by host (or GPU), as one line each."""
    return {row[1]: " ".join(row) for row in records(out).values() if row[0] == "missing"}


def test_a_node_lost_by_a_slurm_job_is_missing(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """deploy/slurm's script as job 12's batch step (tests/cluster/standin/sim: srun, scontrol)
    on n1 and n2 of two GPUs each, n2 lost before its task starts: with no --expect, n2 and its
    two GPUs are missing from the job's allocation, and --fail-on-outlier fails."""
    standin = REPO / "tests" / "cluster" / "standin"
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("SLURM_") and key != "CUDA_VISIBLE_DEVICES"}
    env.update(PATH=f"{standin / 'sim'}:{standin}:{env['PATH']}", SLURM_SUBMIT_DIR=str(tmp_path),
               SLURM_JOB_ID="12", SLURM_JOB_NUM_NODES="2", STANDIN_LOST="n2",
               STANDIN_NODES="n1=GPU-a1,GPU-a2 n2=GPU-b1,GPU-b2",
               STANDIN_SRUN_LOG=str(tmp_path / "srun.log"))
    results = tmp_path / "results"
    done = subprocess.run(["bash", REPO / "deploy" / "slurm" / "gpubench.sbatch",
                           f"--gpubench={standin / 'gpubench'}", results], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    code, out, err = run(capsys, results, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    allocation = results / "job12.expected_hosts"
    assert missing_rows(out) == {"n2": "missing n2 ? expected (allocated to job 12): nothing from "
                                       f"this host (2 GPUs) {allocation}"}, out
    assert out.rstrip().endswith("2 GPU(s) need attention."), out


def test_a_host_short_of_its_gpus_is_missing_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node01 allocated 3 GPUs, one measured: 2 missing, in one row; node00 measured whole."""
    fleet = fb.build_fleet(2, 0)
    rerun(fleet, tmp_path, "7", "2026-11-29T10:00:00Z")
    write_allocation(tmp_path, "7", {"node00": 1, "node01": 3})
    code, out, _ = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert code == 1
    assert list(missing_rows(out)) == ["node01"], out
    assert "expected (allocated to job 7): 1 of 3 GPUs found" in missing_rows(out)["node01"]
    assert out.rstrip().endswith("2 GPU(s) need attention."), out


def test_only_the_newest_jobs_allocation_counts(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Job 9 measures node00..node07, allocated node09 too; job 10 into the same directory
    measures node00..node04, allocated node08 too, which left nothing. node08 is missing; what
    job 9 left of node05..node07 is stale, not missing; node09, job 9's, is neither."""
    fleet = fb.build_fleet(8, 0)
    rerun(fleet, tmp_path, "9", "2026-11-28T10:00:00Z")
    write_allocation(tmp_path, "9", {f"node{gpu:02d}": 1 for gpu in (*range(8), 9)})
    rerun(fleet[:5], tmp_path, "10", "2026-11-29T10:00:00Z")
    write_allocation(tmp_path, "10", {f"node{gpu:02d}": 1 for gpu in (*range(5), 8)})
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert set(rows) == {"node05", "node06", "node07", "node08"}, out
    assert {host: row[0] for host, row in rows.items()} == {
        "node05": "stale", "node06": "stale", "node07": "stale", "node08": "missing"}
    assert "expected (allocated to job 10): nothing from this host" in missing_rows(out)["node08"]


def test_a_job_allocated_that_left_nothing_is_the_newest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Job 11 is allocated node00..node03 and leaves nothing (every node lost): job 10's files
    there are stale; a directory of the allocation alone has each host missing."""
    fleet = fb.build_fleet(4, 0)
    rerun(fleet, tmp_path / "with_earlier", "10", "2026-11-28T10:00:00Z")
    write_allocation(tmp_path / "with_earlier", "11", {f"node{gpu:02d}": 1 for gpu in range(4)})
    code, out, _ = run(capsys, tmp_path / "with_earlier", "--no-limits", "--fail-on-outlier")
    assert code == 1
    rows = records(out)
    assert [row[0] for row in rows.values()] == ["stale"] * 4, out
    assert "job 10 (newest here: 11)" in " ".join(rows["node00"])
    (tmp_path / "alone").mkdir()
    allocated = {f"node{gpu:02d}": 2 for gpu in range(4)}
    write_allocation(tmp_path / "alone", "11", allocated)
    code, out, err = run(capsys, tmp_path / "alone", "--fail-on-outlier")
    assert (code, err) == (1, ""), err
    assert set(missing_rows(out)) == set(allocated), out
    assert out.rstrip().endswith("8 GPU(s) need attention."), out


def test_directories_of_other_jobs_expect_each_host_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """run_a (job 5: node00, node01; allocated node02 too) and run_b (job 6: node02, node03;
    allocated node04 too, and node00 with 2 GPUs): node02 is found in run_b, node04 is missing,
    and node00 is missing one GPU, the most either allocation gives it."""
    fleet = fb.build_fleet(4, 0)
    rerun(fleet[:2], tmp_path / "run_a", "5", "2026-11-28T10:00:00Z")
    write_allocation(tmp_path / "run_a", "5", {"node00": 1, "node01": 1, "node02": 1})
    rerun(fleet[2:], tmp_path / "run_b", "6", "2026-11-29T10:00:00Z")
    write_allocation(tmp_path / "run_b", "6", {"node02": 1, "node03": 1, "node04": 1,
                                                "node00": 2})
    code, out, _ = run(capsys, tmp_path / "run_a", tmp_path / "run_b", "--no-limits")
    assert code == 0
    rows = missing_rows(out)
    assert set(rows) == {"node00", "node04"}, out
    assert "expected (allocated to job 6): 1 of 2 GPUs found" in rows["node00"]
    assert "expected (allocated to job 6): nothing from this host" in rows["node04"]


def test_expect_hosts_stands_in_place_of_the_allocation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--expect-hosts is the fleet expected: the allocation's node04 is not looked for, the
    file's node05 is."""
    fleet = fb.build_fleet(4, 0)
    rerun(fleet, tmp_path / "fleet", "3", "2026-11-29T10:00:00Z")
    write_allocation(tmp_path / "fleet", "3", {f"node{gpu:02d}": 1 for gpu in range(5)})
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("".join(f"node{gpu:02d}\n" for gpu in (0, 1, 2, 3, 5)))
    code, out, _ = run(capsys, tmp_path / "fleet", "--expect-hosts", hosts, "--no-limits")
    assert code == 0
    assert set(missing_rows(out)) == {"node05"}, out
    assert "expected (--expect-hosts): nothing from this host" in missing_rows(out)["node05"]


def test_an_allocation_not_of_the_format_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An allocation file that is not `HOST` or `HOST GPUS` a line is unusable input, named in
    one line (exit 2), as an --expect-hosts file is; one named otherwise than job<JOB> is a
    damaged row, the rest judged."""
    fleet = fb.build_fleet(4, 0)
    rerun(fleet, tmp_path, "3", "2026-11-29T10:00:00Z")
    allocation = tmp_path / "job3.expected_hosts"
    allocation.write_text("node00 1 2\n")
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, out) == (2, "")
    assert err == (f"gpubench-tools fleet: {allocation} (Slurm job 3's allocation):1: not "
                   "`HOST`, `HOST GPUS` or a GPU UUID: 'node00 1 2'\n")
    allocation.rename(tmp_path / "hosts.expected_hosts")
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert code == 0
    damaged = section(out, "Runs that did not finish")
    assert "not named job<JOB>.expected_hosts: of no known job" in damaged, out
    assert "skipped" in err and "hosts.expected_hosts" in err
