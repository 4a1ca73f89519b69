"""gpubench-tools fleet on the per-GPU status records deploy/slurm and gpubench-pod write
(docs/cluster.md): `<name>.status` files beside the results and .err files, and record lines in a
pod log."""

import bz2
import gzip
import json
import lzma
import os
import subprocess
import time
from pathlib import Path

import fleet_builder as fb
import pytest
from conftest import command
from test_fleet import run, section, with_permissions

from gpubench_tools.reading.bounded_read import MAX_RESULT_BYTES
from gpubench_tools.reading.fleet.files import MAX_TEXT_BYTES
from gpubench_tools.reading.fleet.pod_log import pod_line_text

NOT_STARTED = "gpubench.sbatch: not started: the job stopped before this GPU's turn"
# What deploy/container/gpubench-pod would write in the .err of a GPU it never started.
POD_NOT_STARTED = "gpubench-pod: not started: the pod stopped before this GPU's turn"


def records(out: str) -> dict[str, list[str]]:
    """The rows of "Runs that did not finish", by host: [status, host, GPU, ...]."""
    runs = section(out, "Runs that did not finish")
    rows = [line.split() for line in runs.splitlines()[3:] if line.strip()]
    by_host: dict[str, list[str]] = {}
    for row in rows:
        assert row[1] not in by_host, f"two rows for {row[1]}: {runs}"
        by_host[row[1]] = row
    return by_host


def test_a_fleet_of_done_records_needs_no_attention(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    fleet = fb.build_fleet(16, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    code, out, err = run(capsys, tmp_path, "--expect", 16, "--fail-on-outlier")
    assert (code, err) == (0, ""), out
    assert section(out, "Runs that did not finish").splitlines()[1] == "none"


def compress_results(paths: list[Path]) -> list[Path]:
    """The results at `paths` compressed in turn with gzip, xz and bzip2, named so."""
    forms = [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)]
    packed = []
    for index, path in enumerate(paths):
        ending, compress = forms[index % len(forms)]
        packed.append(path.with_name(path.name + ending))
        packed[-1].write_bytes(compress(path.read_bytes()))
        path.unlink()
    return packed


def test_compressed_results_are_read_beside_their_done_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`<name>.json.gz` (.xz, .bz2) is the result of `<name>.status`: no `done` record lacks it."""
    fleet = fb.build_fleet(16, 0)
    compress_results(fb.write_fleet(fleet, tmp_path)[::2])
    fb.write_done(fleet, tmp_path)
    code, out, err = run(capsys, tmp_path, "--expect", 16, "--fail-on-outlier")
    assert (code, err) == (0, ""), out
    assert "16 GPU result(s)" in out
    assert section(out, "Runs that did not finish").splitlines()[1] == "none"


def test_a_damaged_compressed_result_is_its_gpus_row(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Named by its file as `<name>.json` is: node03, its UUID."""
    fleet = fb.build_fleet(16, 0)
    packed = compress_results(fb.write_fleet(fleet, tmp_path)[3:4])[0]
    packed.write_bytes(packed.read_bytes()[:-10])
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1, out
    assert err == f"gpubench-tools fleet: skipped {packed}: gzip data cut short\n"
    assert records(out)["node03"][:3] == ["damaged", "node03", fb.uuid_of(3)]
    assert "15 GPU result(s)" in out


def test_every_way_a_run_ends_badly_is_one_row(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A Slurm job's directory: 12 GPUs done; node12 killed while it ran (its record, its partial
    JSON and stderr without an exit line); node13 never started; node14 failed with exit 1
    (its JSON, no benchmark lost); node15's record says done and its JSON is gone; node16 found
    no GPU (no UUID: record and .err joined by their name)."""
    fleet = fb.build_fleet(16, 0)
    fb.interrupt(fleet[12], kept=20)
    del fleet[12]["context"]["interrupted"]  # SIGKILL: no marker, what completed is there
    fb.write_fleet(fleet[:13] + fleet[14:15], tmp_path)
    fb.write_done(fleet[:12], tmp_path)
    name = [fb.file_name(doc) for doc in fleet]
    fb.write_status(tmp_path, name[12], "killed", "none", fb.uuid_of(12))
    (tmp_path / f"{name[12]}.err").write_text("gpubench: verifying copy/HtoD\n")
    fb.write_status(tmp_path, name[13], "interrupted", "none", fb.uuid_of(13))
    (tmp_path / f"{name[13]}.err").write_text(NOT_STARTED + "\n")
    fb.write_status(tmp_path, name[14], "failed", 1, fb.uuid_of(14), future_key="ignored")
    fb.write_err(tmp_path, name[14], "gpubench: copy/DtoH/pinned: verification failed", 1)
    fb.write_status(tmp_path, name[15], "done", 0, fb.uuid_of(15))
    fb.write_status(tmp_path, "node16_task3", "failed", 1)
    fb.write_err(tmp_path, "node16_task3", fb.NO_DRIVER, 1)
    code, out, err = run(capsys, tmp_path, "--expect", 17, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert set(rows) == {"node12", "node13", "node14", "node15", "node16"}, out
    assert rows["node12"][:3] == ["killed", "node12", fb.uuid_of(12)]
    assert "the run never returned" in " ".join(rows["node12"])
    assert rows["node13"][:3] == ["interrupted", "node13", fb.uuid_of(13)]
    assert "never started" in " ".join(rows["node13"])
    assert rows["node14"][:3] == ["failed", "node14", fb.uuid_of(14)]
    assert rows["node15"][:3] == ["missing", "node15", fb.uuid_of(15)]
    assert "no result: status done" in " ".join(rows["node15"])
    assert rows["node16"][:3] == ["failed", "node16", "?"]
    assert "node16_task3.err" in " ".join(rows["node16"])
    assert "node16_task3.status" in " ".join(rows["node16"])
    assert out.rstrip().endswith("5 GPU(s) need attention.")


@pytest.mark.parametrize("not_started", [NOT_STARTED, POD_NOT_STARTED],
                         ids=["gpubench.sbatch", "gpubench-pod"])
def test_an_err_without_its_record_still_says_how_the_run_ended(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], not_started: str) -> None:
    """The .err alone: no exit line is a run that never returned; the not-started line of
    either deploy script, a GPU never reached."""
    fleet = fb.build_fleet(14, 0)
    fb.write_fleet(fleet, tmp_path)
    (tmp_path / f"node14_{fb.uuid_of(14)}.err").write_text("gpubench: copying\n")
    (tmp_path / f"node15_{fb.uuid_of(15)}.err").write_text(not_started + "\n")
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    rows = records(out)
    assert rows["node14"][:3] == ["killed", "node14", fb.uuid_of(14)]
    assert rows["node15"][:3] == ["interrupted", "node15", fb.uuid_of(15)]
    assert "(never started)" in " ".join(rows["node15"])


@pytest.mark.parametrize("status, exit_status, tail, why", [
    ("failed", 1, "", "not written"),
    ("interrupted", 143, "", "not written"),
    ("killed", 137, "", "not written"),
    ("failed", 0, "", "not written"),
    ("failed", 139, "exit status 13", "cut short"),
    ("failed", 1, "exit status ", "cut short"),
], ids=["failed", "interrupted", "killed", "failed exit 0", "digits cut", "no digits"])
def test_a_record_with_an_exit_status_gives_the_verdict_of_an_err_without_its_exit_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], status: str, exit_status: int,
        tail: str, why: str) -> None:
    """A full disk: the .err's exit status line, appended before the record is written, is not
    written (or cut short) while the record still is. The run returned: one row, the record's
    status, the .err's message in it; not killed, and no `never returned` beside the record's
    exit status."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet[:7], tmp_path)
    fb.write_done(fleet[:7], tmp_path)
    name = fb.file_name(fleet[7])
    fb.write_status(tmp_path, name, status, exit_status, fb.uuid_of(7))
    (tmp_path / f"{name}.err").write_text("gpubench: copy/DtoH/pinned: verification failed\n"
                                          + tail)
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), err
    rows = records(out)
    assert list(rows) == ["node07"], out
    row = " ".join(rows["node07"])
    assert rows["node07"][:3] == [status, "node07", fb.uuid_of(7)], out
    assert (f"gpubench: copy/DtoH/pinned: verification failed (exit status line {why}); "
            f"status {status}, exit status {exit_status} at ") in row, out
    assert "never returned" not in row and "exit status 13)" not in row, out


def test_a_record_done_with_an_err_without_its_exit_line_needs_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The record says done (exit 0) and the result is there: an .err left without its exit
    line is no run of its own to list as killed."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    (tmp_path / f"{fb.file_name(fleet[7])}.err").write_text("gpubench: a warning\n")
    code, out, err = run(capsys, tmp_path, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (0, ""), out
    assert section(out, "Runs that did not finish").splitlines()[1] == "none"


def test_an_err_with_its_exit_line_cut_short_and_no_record_is_killed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a record, an exit line cut short gives no exit status: the run reads killed, its
    row saying the line was cut short (`exit status 1` may be the start of 139)."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet[:7], tmp_path)
    (tmp_path / f"{fb.file_name(fleet[7])}.err").write_text("gpubench: a crash\nexit status 1")
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, err) == (0, ""), err
    row = records(out)["node07"]
    assert row[:3] == ["killed", "node07", fb.uuid_of(7)], out
    assert "gpubench: a crash (exit status line cut short)" in " ".join(row), out


def test_gpubench_pods_never_started_gpu_is_interrupted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpubench-pod's record of a GPU it never started (interrupted, exit=none), with an .err
    saying so: one row, interrupted, not killed."""
    fleet = fb.build_fleet(15, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path, job="gpubench")
    name = f"node15_{fb.uuid_of(15)}"
    fb.write_status(tmp_path, name, "interrupted", "none", fb.uuid_of(15), job="gpubench")
    (tmp_path / f"{name}.err").write_text(POD_NOT_STARTED + "\n")
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert list(rows) == ["node15"] and rows["node15"][:3] == ["interrupted", "node15",
                                                               fb.uuid_of(15)]
    assert f"{POD_NOT_STARTED} (never started)" in " ".join(rows["node15"])


@pytest.mark.parametrize("text, problem", [
    ("status=finished\nexit=0\n", "status 'finished' is not one of"),
    ("status=done\n", "no exit key"),
    ("status=failed\nexit=one\n", "exit 'one' is not a number"),
    ("status=done\nexit=0\ngpu_uuid=GPU-1 2\n", "is not a GPU-... or MIG-... UUID"),
    ("just text\n", "not key=value"),
    ("", "no status key"),
    ("status=done\nexit=0\nattempt=first\n", "attempt 'first' is not a number"),
], ids=["bad status", "no exit", "bad exit", "bad uuid", "not key=value", "empty", "bad attempt"])
def test_a_damaged_record_is_listed_and_the_rest_judged(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        text: str, problem: str) -> None:
    fleet = fb.build_fleet(16, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    record = tmp_path / f"{fb.file_name(fleet[3])}.status"
    record.write_text(text)
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1
    assert (len(err.splitlines()) == 1
            and err.startswith(f"gpubench-tools fleet: skipped {record}: "))
    rows = records(out)
    assert list(rows) == ["node03"] and rows["node03"][:3] == ["damaged", "node03",
                                                               fb.uuid_of(3)]
    assert problem in section(out, "Runs that did not finish")
    assert "16 GPU result(s)" in out


@pytest.mark.parametrize("unusable, problem", [
    ("limits", "not a limits file"), ("expect-hosts", "not `HOST`"),
    ("heatmap", "heatmap"),
])
def test_unusable_input_after_a_damaged_record_is_one_line(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          unusable: str, problem: str) -> None:
    """A damaged record is said once the report is written: where the input turns out unusable
    after it was read (exit 2), that one line is all of stderr."""
    fleet = fb.build_fleet(16, 0)
    fb.write_fleet(fleet, tmp_path / "fleet")
    fb.write_done(fleet, tmp_path / "fleet")
    (tmp_path / "fleet" / f"{fb.file_name(fleet[3])}.status").write_text("status=done\n")
    (tmp_path / "limits.json").write_text('{"gpu_name": "NVIDIA H200", "floors": []}')
    (tmp_path / "hosts.txt").write_text("node00 1 2\n")
    given = {"limits": ["--limits", tmp_path / "limits.json"],
             "expect-hosts": ["--expect-hosts", tmp_path / "hosts.txt"],
             "heatmap": ["-o", tmp_path / "heat.svg", "--headline", "no such benchmark"]}
    code, out, err = run(capsys, tmp_path / "fleet", *given[unusable])
    assert (code, out) == (2, "")
    assert (len(err.splitlines()) == 1 and err.startswith("gpubench-tools fleet: ")
            and problem in err), err


@pytest.mark.parametrize("status", ["\u00b2", "9" * 5000, "-1", "1024"],
                         ids=["not ASCII", "5000 digits", "negative", "4 digits"])
@pytest.mark.parametrize("kind", [".err", "pod log"])
def test_an_exit_line_without_an_exit_status_is_damaged(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         kind: str, status: str) -> None:
    """`exit status N` where N is not 1-3 ASCII digits (int() of a superscript or of 5000
    digits raises) is a damaged row naming the line, one line on stderr."""
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path)
    if kind == ".err":
        source = fb.write_err(tmp_path, "node09_task9", "gpubench: no CUDA device", 1)
        source.write_text(f"gpubench: no CUDA device\nexit status {status}\n")
    else:
        (tmp_path / "pods.jsonl").write_text(
            f"gpubench: no CUDA device\ngpubench-pod: node09 {fb.uuid_of(9)}: "
            f"exit status {status}\n")
        source = f"{tmp_path / 'pods.jsonl'}:2"
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert code == 0
    assert len(err.splitlines()) == 1, err
    assert err.startswith(
        f"gpubench-tools fleet: skipped {source}: not an exit status of 1-3 digits: "), err
    assert [row[0] for row in records(out).values()] == ["damaged"], out


@pytest.mark.parametrize("with_record", [True, False], ids=["with its record", "alone"])
def test_an_exit_status_glued_onto_a_crashs_last_line_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], with_record: bool) -> None:
    """An .err an earlier deploy script wrote: its `exit status 139` appended to the crash's
    unfinished last line. The run exited (failed, exit status 139), not killed; the text before
    the status is its message where it is the first line."""
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path)
    name = f"node09_{fb.uuid_of(9)}"
    (tmp_path / f"{name}.err").write_text("gpubench: cuMemcpy: an illegal memory accexit "
                                          "status 139\n")
    if with_record:
        fb.write_status(tmp_path, name, "failed", 139, fb.uuid_of(9))
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, err) == (0, ""), err
    row = records(out)["node09"]
    assert row[:3] == ["failed", "node09", fb.uuid_of(9)], out
    assert "gpubench: cuMemcpy: an illegal memory acc (exit status 139)" in " ".join(row), out


def test_lines_megabytes_long_leave_the_report_small(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A stderr line of 4 MB in three .err files and a pod log, and a result whose host and GPU
    are 4 MB each: every row quotes the start of its text, shortened, where a table padded
    each of its rows to the widest cell (tens of megabytes)."""
    fleet = fb.build_fleet(5, 0)
    huge = 4 * 2**20
    fb.write_fleet(fleet[:4], tmp_path)
    fleet[4]["context"].update(host_name="h" * huge, gpu_uuid="GPU-" + "q" * huge,
                               interrupted="SIGTERM")
    (tmp_path / "huge.json").write_text(json.dumps(fleet[4]))
    for gpu in (9, 10, 11):
        fb.write_err(tmp_path, f"node{gpu}_{fb.uuid_of(gpu)}", "x" * huge, 1)
    (tmp_path / "pods.jsonl").write_text(f"{'y' * huge}\ngpubench-pod: node12 "
                                         f"{fb.uuid_of(12)}: exit status 1\n")
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, err) == (0, ""), err
    assert len(out) < 100_000, len(out)
    rows = records(out)
    assert {"node9", "node10", "node11", "node12"} < set(rows), out
    assert "x" * 200 in rows["node9"][3] and "y" * 200 in rows["node12"][3]
    assert any(host.startswith("h" * 200) for host in rows), out


def pod_record(status: str, exit_status: int | str, uuid: str, node: str) -> str:
    return (f"gpubench-pod: status={status} exit={exit_status} gpu_uuid={uuid} node={node} "
            f"job=gpubench task=gpubench-0-abcde device={uuid} time=2026-11-29T18:38:09Z")


def test_pod_log_records_the_last_one_per_gpu_wins(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A collected log of gpubench-pod: 13 GPUs done (record before, JSON, record after); node13
    killed (only the record before its run); node14 failed with its stderr and exit line; node15
    done with its JSON over the log limit (in the pod's files, not the log)."""
    fleet = fb.build_fleet(16, 0)
    lines = []
    for gpu, doc in enumerate(fleet):
        uuid, node = fb.uuid_of(gpu), f"node{gpu:02d}"
        lines.append(pod_record("killed", "none", uuid, node))
        if gpu == 13:
            continue
        if gpu == 15:
            lines += [f"gpubench-pod: {node} {uuid}: a JSON of 9000000 bytes is over the log "
                      f"limit (8388608): in /results/{node}_{uuid}.json",
                      pod_record("done", 0, uuid, node)]
            continue
        lines.append(json.dumps(doc, separators=(",", ":")))
        if gpu == 14:
            lines += ["gpubench: copy/DtoH/pinned: verification failed",
                      f"gpubench-pod: {node} {uuid}: exit status 1",
                      pod_record("failed", 1, uuid, node)]
        else:
            lines.append(pod_record("done", 0, uuid, node))
    (tmp_path / "pods.jsonl").write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, tmp_path, "--expect", 16, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert set(rows) == {"node13", "node14", "node15"}, out
    assert rows["node13"][:3] == ["killed", "node13", fb.uuid_of(13)]
    assert rows["node14"][:3] == ["failed", "node14", fb.uuid_of(14)]
    assert "verification failed (exit status 1)" in " ".join(rows["node14"])
    assert rows["node15"][:3] == ["missing", "node15", fb.uuid_of(15)]
    assert "over the log limit" in " ".join(rows["node15"])


@pytest.mark.parametrize("kind, how", [
    (kind, how) for how in ("closed", "not UTF-8")
    for kind in (".status", ".err", "pod log", "peer record")
    # An .err is text a crash wrote: test_an_err_not_utf8_still_gives_its_exit_status.
    if (kind, how) != (".err", "not UTF-8")])
def test_a_record_file_that_cannot_be_read_is_a_damaged_row(tmp_path: Path, kind: str,
                                                            how: str) -> None:
    """A record file the system refuses to read (mode 000), or a record that is not UTF-8 text,
    is a `damaged` row for its GPU (node03's `done` record), within its run's row (node04's .err
    of a failed run, node06's failed peer run) or of its pod log (a line: that line), naming the
    file and why, one line on stderr; the rest of the directory is read."""
    fleet = fb.build_fleet(10, 0)
    fb.write_fleet(fleet[:8], tmp_path)
    fb.write_done(fleet[:8], tmp_path, job="gpubench")
    failed = fb.file_name(fleet[4])
    fb.write_status(tmp_path, failed, "failed", 1, fb.uuid_of(4), job="gpubench")
    fb.write_err(tmp_path, failed, "gpubench: copy/DtoH/pinned: verification failed", 1)
    pod_log = tmp_path / "pods.jsonl"
    pod_log.write_text("".join(f"{json.dumps(doc, separators=(',', ':'))}\n"
                               f"{pod_record('done', 0, fb.uuid_of(gpu), f'node{gpu:02d}')}\n"
                               for gpu, doc in enumerate(fleet[8:], start=8)))
    file, status, host = {
        ".status": (tmp_path / f"{fb.file_name(fleet[3])}.status", "damaged", "node03"),
        ".err": (tmp_path / f"{failed}.err", "failed", "node04"),
        "pod log": (pod_log, "damaged", "?"),
        "peer record": (tmp_path / "peer" / "node06.status", "failed", "node06"),
    }[kind]
    write_peer_runs(tmp_path, job="gpubench")
    if how == "closed":
        file.chmod(0)
        source, reason, results = (file, "cannot read (Permission denied)",
                                   10 - (kind == "pod log") * 2)
    else:
        # In a pod log, a line of its own: one of gpubench's stderr is text a crash wrote.
        line = b"gpubench-pod: status=done node=\xff" if kind == "pod log" else b"gpubench: \xff"
        file.write_bytes(file.read_bytes() + line + b"\n")
        source = f"{pod_log}:5" if kind == "pod log" else file
        reason, results = "cannot read (not UTF-8 text)", 10
    done = subprocess.run([*with_permissions(), *command("fleet"),
                           str(tmp_path), "--fail-on-outlier"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"gpubench-tools fleet: skipped {source}: {reason}\n"
    row = " ".join(records(done.stdout)[host])
    assert row.startswith(f"{status} {host} ") and reason in row and str(source) in row, row
    assert f"{results} GPU result(s)" in done.stdout


# A crash's stderr: bytes that are not UTF-8 (\xff, \xfe) in gpubench's message.
CRASH_BYTES = b"gpubench: cuMemcpy: \xff\xfe illegal address"
CRASH_SHOWN = r"gpubench: cuMemcpy: \xff\xfe illegal address (exit status 139)"


@pytest.mark.parametrize("with_record", [True, False], ids=["with its record", "alone"])
def test_an_err_not_utf8_still_gives_its_exit_status(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], with_record: bool) -> None:
    """A crash can write any bytes to stderr: an .err holding some that are not UTF-8 is read,
    those bytes shown as \\xNN, and its exit status line gives the run's status (failed, 139),
    with or without its record; nothing is damaged or skipped."""
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path)
    name = f"node09_{fb.uuid_of(9)}"
    (tmp_path / f"{name}.err").write_bytes(CRASH_BYTES + b"\nexit status 139\n")
    if with_record:
        fb.write_status(tmp_path, name, "failed", 139, fb.uuid_of(9))
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, err) == (0, ""), err
    rows = records(out)
    assert list(rows) == ["node09"] and rows["node09"][:3] == ["failed", "node09",
                                                               fb.uuid_of(9)], out
    assert CRASH_SHOWN in " ".join(rows["node09"]), out


def test_a_pod_logs_stderr_line_not_utf8_is_its_gpus_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gpubench's stderr in a pod log, bytes that are not UTF-8 and all, is the message of its
    GPU's one row, those bytes shown as \\xNN; no line is damaged."""
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path)
    uuid = fb.uuid_of(9)
    (tmp_path / "pods.jsonl").write_bytes(b"\n".join([
        pod_record("killed", "none", uuid, "node09").encode(), CRASH_BYTES,
        f"gpubench-pod: node09 {uuid}: exit status 139".encode(),
        pod_record("failed", 139, uuid, "node09").encode()]) + b"\n")
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert (code, err) == (0, ""), err
    rows = records(out)
    assert list(rows) == ["node09"] and rows["node09"][:3] == ["failed", "node09", uuid], out
    assert CRASH_SHOWN in " ".join(rows["node09"]), out


def test_only_gpubench_stderr_in_a_pod_log_may_be_other_than_utf8() -> None:
    """A JSON document or a line of the pod's own is a record: one that is not UTF-8 is no
    text (damaged, test_a_record_file_that_cannot_be_read_is_a_damaged_row)."""
    assert pod_line_text(CRASH_BYTES) == r"gpubench: cuMemcpy: \xff\xfe illegal address"
    assert pod_line_text(b'{"context": {"host_name": "\xff"}}') is None
    assert pod_line_text(b"gpubench-pod: status=done node=\xff") is None


def write_peer_runs(directory: Path, job: str = "1") -> None:
    """deploy/slurm's peer/ directory of a fleet of 8 in job `job`: one run over each
    node's two GPUs (node00, node02, ..., the first GPU's host), node06's failed (its record and
    .err)."""
    peers = fb.build_peer_fleet(4, 2)
    for node, doc in enumerate(peers):
        doc["context"]["host_name"] = f"node{2 * node:02d}"
    fb.write_peer_fleet(peers, directory, job=job)
    fb.write_status(directory / "peer", "node06", "failed", 1,
                    f"{fb.uuid_of(6)},{fb.uuid_of(7)}", job=job)
    fb.write_err(directory / "peer", "node06",
                 "gpubench: peer/ce/read/0to1/4: verification failed", 1)


@pytest.mark.parametrize("status, exit_status, err", [
    ("failed", 1, "gpubench: peer/ce/read/0to1/4: verification failed\nexit status 1\n"),
    ("failed", 1, "gpubench: peer/ce/read/0to1/4: verification failed\n"),
    ("killed", "none", "gpubench: peer/ce/read/0to1/4\n"),
    ("interrupted", "none", "gpubench.sbatch: not started: the job stopped before the peer run\n"),
], ids=["failed", "failed, its .err without its exit line", "killed", "interrupted"])
def test_a_peer_run_that_did_not_finish_needs_attention(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], status: str,
        exit_status: int | str, err: str) -> None:
    """fleet/peer/ holds per-node runs over several GPUs: reading fleet/ lists a peer run that did
    not end well, naming its node and GPUs, and counts its GPUs; the pairs of the runs are judged
    there (test_fleet_peer.py). Given itself, fleet/peer compares the nodes."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    write_peer_runs(tmp_path)
    fb.write_status(tmp_path / "peer", "node06", status, exit_status,
                    f"{fb.uuid_of(6)},{fb.uuid_of(7)}")
    (tmp_path / "peer" / "node06.err").write_text(err)
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 1, out
    assert "8 GPU result(s), 1 group(s), 4 node(s)' peer runs." in out.splitlines()[0]
    row = records(out)["node06"]
    assert row[:3] == [status, "node06", "peer"]
    assert f"a run over 2 GPUs ({fb.uuid_of(6)}, {fb.uuid_of(7)})" in " ".join(row)
    assert f"{tmp_path / 'peer' / 'node06.status'}" in " ".join(row)
    assert out.rstrip().endswith("2 GPU(s) need attention.")
    code, out, _ = run(capsys, tmp_path / "peer", "--fail-on-outlier")
    assert code == 1
    row = records(out)["node06"]
    assert row[:3] == [status, "node06", fb.uuid_of(6)]
    assert "4 GPU result(s), 1 group(s)" in out


def test_peer_runs_that_ended_well_need_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    write_peer_runs(tmp_path)
    fb.write_status(tmp_path / "peer", "node06", "done", 0, f"{fb.uuid_of(6)},{fb.uuid_of(7)}")
    (tmp_path / "peer" / "node06.err").unlink()
    code, out, _ = run(capsys, tmp_path, "--fail-on-outlier")
    assert code == 0, out
    assert section(out, "Runs that did not finish").splitlines()[1] == "none"


def rerun(fleet: list[dict], directory: Path, job: str, time: str) -> None:
    """A job of deploy/slurm over `fleet`: each GPU's result (naming the job) and `done` record,
    replacing an earlier job's."""
    for doc in fleet:
        doc["context"]["slurm_job_id"] = job
    fb.write_fleet(fleet, directory)
    fb.write_done(fleet, directory, job=job, time=time)


def test_an_earlier_jobs_files_are_stale(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Job 9 measures 8 GPUs into fleet/; job 10 into the same directory loses node06 and
    node07, and stops before node05's turn (its record: never started; its JSON: job 9's). The
    GPUs job 10 did not measure are listed with their job, needing attention, and their figures
    are not judged; each is listed once, not also as missing."""
    fleet = fb.build_fleet(8, 0)
    rerun(fleet, tmp_path, "9", "2026-11-28T10:00:00Z")
    rerun(fleet[:5], tmp_path, "10", "2026-11-29T10:00:00Z")
    fb.write_status(tmp_path, fb.file_name(fleet[5]), "interrupted", "none", fb.uuid_of(5),
                    time="2026-11-29T10:00:00Z", job="10")
    (tmp_path / f"{fb.file_name(fleet[5])}.err").write_text(NOT_STARTED + "\n")
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("".join(f"node{gpu:02d}\n" for gpu in range(8)))
    code, out, err = run(capsys, tmp_path, "--expect-hosts", hosts, "--expect", 8,
                         "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert "5 GPU result(s)" in out
    rows = records(out)
    assert set(rows) == {"node05", "node06", "node07"}, out
    for gpu in (6, 7):
        row = rows[f"node{gpu:02d}"]
        assert row[:3] == ["stale", f"node{gpu:02d}", fb.uuid_of(gpu)]
        said = " ".join(row)
        assert "job 9 (newest here: 10): its result; status done" in said
        assert said.count("job 9") == 1, said
    assert rows["node05"][:3] == ["interrupted", "node05", fb.uuid_of(5)]
    said = " ".join(rows["node05"])
    assert "job 9 (newest here: 10): its result; " in said and said.count("job 9") == 1, said
    assert out.rstrip().endswith("3 GPU(s) need attention.")


def write_attempt(fleet: list[dict], directory: Path, job: str, attempt: str | None,
                  time: str) -> None:
    """An attempt of deploy/slurm's job over `fleet` (`attempt` None: a record without the
    key): each GPU's result and `done` record, replacing an earlier attempt's."""
    for doc in fleet:
        doc["context"]["slurm_job_id"] = job
    fb.write_fleet(fleet, directory)
    more = {} if attempt is None else {"attempt": attempt}
    for doc in fleet:
        fb.write_status(directory, fb.file_name(doc), "done", 0, doc["context"]["gpu_uuid"],
                        time=time, job=job, **more)


def test_an_earlier_attempts_files_are_stale(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Job 100 measures 8 GPUs (node06 fails: its record and .err); requeued, its attempt 1
    loses node06 and node07 and is stopped during node05's run. The files of attempt 0 are
    stale, as an earlier job's: a record without `attempt=` is attempt 0, an .err and a result
    take their record's; each row says its job and attempt once. node05's interrupted result
    is attempt 1's, as its record says: interrupted, not stale."""
    fleet = fb.build_fleet(8, 0)
    write_attempt(fleet[:7], tmp_path, "100", "0", "2026-11-28T10:00:00Z")
    write_attempt(fleet[7:], tmp_path, "100", None, "2026-11-28T10:00:00Z")
    fb.write_status(tmp_path, fb.file_name(fleet[6]), "failed", 1, fb.uuid_of(6), job="100",
                    time="2026-11-28T10:00:00Z", attempt="0")
    fb.write_err(tmp_path, fb.file_name(fleet[6]), "gpubench: copy/DtoH/pinned: verification "
                 "failed", 1)
    fb.interrupt(fleet[5], kept=20)
    write_attempt(fleet[:6], tmp_path, "100", "1", "2026-11-28T10:05:00Z")
    fb.write_status(tmp_path, fb.file_name(fleet[5]), "interrupted", 143, fb.uuid_of(5),
                    job="100", time="2026-11-28T10:05:00Z", attempt="1")
    code, out, err = run(capsys, tmp_path, "--expect", 8, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert "6 GPU result(s)" in out
    rows = records(out)
    assert set(rows) == {"node05", "node06", "node07"}, out
    assert rows["node05"][:3] == ["interrupted", "node05", fb.uuid_of(5)]
    assert "newest here" not in " ".join(rows["node05"])
    said = "job 100 attempt 0 (newest here: 100 attempt 1)"
    for gpu in (6, 7):
        row = " ".join(rows[f"node{gpu:02d}"])
        assert rows[f"node{gpu:02d}"][:3] == ["stale", f"node{gpu:02d}", fb.uuid_of(gpu)]
        assert row.count("job 100") == 1 and f"{said}: its result; " in row, row
    assert "verification failed (exit status 1)" in " ".join(rows["node06"])
    assert out.rstrip().endswith("3 GPU(s) need attention.")


def test_a_later_job_is_newer_than_any_attempt_of_an_earlier_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Jobs are ordered first, then attempts: job 101's first attempt is newer than job 100's
    third."""
    fleet = fb.build_fleet(8, 0)
    write_attempt(fleet, tmp_path, "100", "2", "2026-11-28T10:00:00Z")
    write_attempt(fleet[:6], tmp_path, "101", "0", "2026-11-29T10:00:00Z")
    _, out, _ = run(capsys, tmp_path)
    rows = records(out)
    assert set(rows) == {"node06", "node07"}, out
    assert "job 100 attempt 2 (newest here: 101 attempt 0): its result" in " ".join(
        rows["node06"])


def test_jobs_are_ordered_by_number_or_else_by_time(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Job 99 is earlier than job 100 (not by text); Kubernetes Jobs, named, by their records'
    times. One job's files are never stale."""
    fleet = fb.build_fleet(8, 0)
    rerun(fleet, tmp_path / "one", "99", "2026-11-28T10:00:00Z")
    code, out, _ = run(capsys, tmp_path / "one", "--fail-on-outlier")
    assert code == 0, out
    rerun(fleet[:6], tmp_path / "one", "100", "2026-11-27T10:00:00Z")
    _, out, _ = run(capsys, tmp_path / "one")
    assert set(records(out)) == {"node06", "node07"}
    assert "job 99 (newest here: 100)" in section(out, "Runs that did not finish")
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path / "k8s")
    fb.write_done(fleet, tmp_path / "k8s", job="gpubench-b", time="2026-11-28T10:00:00Z")
    fb.write_done(fleet[2:], tmp_path / "k8s", job="gpubench-a", time="2026-11-29T10:00:00Z")
    _, out, _ = run(capsys, tmp_path / "k8s")
    assert set(records(out)) == {"node00", "node01"}
    assert "job gpubench-b (newest here: gpubench-a)" in section(out, "Runs that did not finish")


@pytest.mark.parametrize("time_text", ["Z", "9999", "2026-11-30 10:00:00"])
def test_a_record_time_not_of_the_format_is_damaged_not_the_newest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], time_text: str) -> None:
    """Jobs named, ordered by their records' times as text: a garbled time ("Z" sorts after
    every year) would make the earlier job the newest and the later job's GPUs stale. Its record
    is damaged, named on stderr; the later job stays the newest."""
    fleet = fb.build_fleet(8, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path, job="gpubench-b", time="2026-11-28T10:00:00Z")
    fb.write_done(fleet[2:], tmp_path, job="gpubench-a", time="2026-11-29T10:00:00Z")
    fb.write_status(tmp_path, fb.file_name(fleet[0]), "done", 0, fb.uuid_of(0),
                    job="gpubench-b", time=time_text)
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert code == 0 and len(err.splitlines()) == 1 and "is not YYYY-MM-DDTHH:MM:SSZ" in err, err
    rows = records(out)
    assert {host: row[0] for host, row in rows.items()} == {"node00": "damaged",
                                                            "node01": "stale"}, out
    assert "job gpubench-b (newest here: gpubench-a)" in " ".join(rows["node01"])


@pytest.mark.parametrize("key, value", [("node", "n" * 129), ("job", "a/b"),
                                        ("task", "x\x1b[31m"), ("gpu_uuid", "GPU-" + "a" * 125)])
def test_a_record_value_the_scripts_never_write_is_damaged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str) -> None:
    """A record's node, job, task or GPU is what the scripts' check_value lets through (1-128
    printable ASCII characters without a space, '/' or '='; a job two of them): another value
    is a damaged record, named in one line, not a host or job of the report."""
    fleet = fb.build_fleet(4, 0)
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet, tmp_path)
    fb.write_status(tmp_path, fb.file_name(fleet[3]), "done", 0, fb.uuid_of(3), **{key: value})
    code, out, err = run(capsys, tmp_path, "--no-limits")
    assert code == 0 and len(err.splitlines()) == 1 and f"not a status record: {key} " in err, err
    assert [row[:2] for row in records(out).values()] == [["damaged", "node03"]], out


REPO = Path(__file__).resolve().parents[2]


def run_pod(tmp_path: Path, status: int = 1, file_blocks: int | None = None,
            wrapper: Path | None = None, **env: str) -> Path:
    """deploy/container/gpubench-pod with tests/cluster/standin's gpubench and nvidia-smi on
    three GPUs of node1, GPU-b2 failing, exiting `status`: its log, its files in
    tmp_path/results. With `file_blocks`, under `ulimit -f file_blocks` (its log, a pipe, under
    none); with `wrapper`, a directory before the stand-in's on PATH (its gpubench wraps it)."""
    standin = REPO / "tests" / "cluster" / "standin"
    path = f"{standin}:{os.environ['PATH']}"
    pod_env = dict(os.environ, PATH=f"{wrapper}:{path}" if wrapper else path,
                   STANDIN_GPUS="GPU-a1,GPU-b2,GPU-c3", STANDIN_BEHAVIOUR="GPU-b2=fail",
                   NODE_NAME="node1", POD_NAME="gpubench-0-x", JOB_NAME="gpubench",
                   GPUBENCH_RESULTS=str(tmp_path / "results"))
    pod_env.update(env)
    log = tmp_path / "pod.jsonl"
    command: list[str | Path] = [REPO / "deploy" / "container" / "gpubench-pod"]
    if file_blocks is not None:
        command = ["bash", "-c", f'ulimit -f {file_blocks} && exec "$0"', *command]
    done = subprocess.run(command, env=pod_env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, check=False)
    log.write_bytes(done.stdout)
    assert done.returncode == status, log.read_text()
    return log


def test_what_gpubench_pod_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real entry point's log and files (the stand-in's JSON names host `vm`, the records
    node1: one GPU, one row): the failed GPU alone, from either."""
    log = run_pod(tmp_path)
    for source in (log, tmp_path / "results"):
        code, out, err = run(capsys, source, "--no-limits", "--fail-on-outlier")
        assert (code, err) == (1, ""), out
        rows = records(out)
        assert list(rows) == ["node1"] and rows["node1"][:3] == ["failed", "node1", "GPU-b2"]
        assert "verification failed" in " ".join(rows["node1"])
        assert "3 GPU result(s)" in out


def test_gpubench_pod_json_over_the_log_limit(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """No JSON in the log: each GPU done is a missing result naming its file; the results
    directory holds them all."""
    log = run_pod(tmp_path, GPUBENCH_POD_LOG_LIMIT="100")
    code, out, _ = run(capsys, log, "--no-limits")
    runs = section(out, "Runs that did not finish")
    for uuid, status in (("GPU-a1", "missing"), ("GPU-b2", "failed"), ("GPU-c3", "missing")):
        row = [line for line in runs.splitlines() if f" {uuid} " in line]
        assert len(row) == 1 and row[0].split()[0] == status, runs
        if status == "missing":
            assert f"in {tmp_path / 'results'}/node1_{uuid}.json" in row[0]
    code, out, _ = run(capsys, tmp_path / "results", "--no-limits")
    assert "3 GPU result(s)" in out and records(out)["node1"][:3] == ["failed", "node1", "GPU-b2"]


def test_a_kubernetes_job_applied_again_under_its_name_leaves_stale_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two Jobs named gpubench (the manifest applied, deleted, applied again) into one results
    volume: the second (another JOB_UID) reaches GPU-a1 only; the files the first left of
    GPU-b2 and GPU-c3 are stale, not results of the newest job."""
    run_pod(tmp_path, JOB_UID="3f2a")
    time.sleep(1.1)  # records say the second, and the newest job has the latest
    run_pod(tmp_path, status=0, JOB_UID="9c1d", STANDIN_GPUS="GPU-a1")
    code, out, err = run(capsys, tmp_path / "results", "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert "1 GPU result(s)" in out
    runs = section(out, "Runs that did not finish")
    for uuid in ("GPU-b2", "GPU-c3"):
        row = [line for line in runs.splitlines() if f" {uuid} " in line]
        assert len(row) == 1 and row[0].split()[0] == "stale", runs
        assert "job gpubench:3f2a (newest here: gpubench:9c1d)" in row[0]


@pytest.mark.parametrize("order", ["earlier job first", "later job first"])
def test_a_collected_log_of_a_job_applied_again_judges_the_newest_run_of_each_gpu(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], order: str) -> None:
    """Two Jobs named gpubench (the manifest applied again, the earlier pods' logs collected
    with the later's, in either order): the first fails GPU-b2, the second measures GPU-a1 and
    GPU-b2 again, both done, and never reaches GPU-c3. Each GPU is judged by its newest run:
    GPU-a1 and GPU-b2 by the second job's, their first runs superseded, said in one line and
    neither a row nor a second result; GPU-c3, which only the first job reached, is stale."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    logs = [run_pod(tmp_path / "a", JOB_UID="3f2a")]
    time.sleep(1.1)  # records say the second, and the newest job has the latest
    logs.append(run_pod(tmp_path / "b", status=0, JOB_UID="9c1d", STANDIN_GPUS="GPU-a1,GPU-b2",
                        STANDIN_BEHAVIOUR=""))
    log = tmp_path / "k8s.jsonl"
    log.write_text("".join(p.read_text() for p in (logs if order == "earlier job first"
                                                      else logs[::-1])))
    code, out, err = run(capsys, log, "--no-limits", "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    assert "2 GPU result(s)" in out
    assert (f"Superseded: {tmp_path}: what job gpubench:3f2a left of 2 GPU(s) the newest job "
            "here, gpubench:9c1d, measured again is not judged.") in out.splitlines()
    rows = [line.split() for line in section(out, "Runs that did not finish").splitlines()[3:]
            if line.strip()]
    assert [(row[0], row[2]) for row in rows] == [("stale", "GPU-c3")], out
    assert "job gpubench:3f2a (newest here: gpubench:9c1d)" in " ".join(rows[0])
    assert out.rstrip().endswith("1 GPU(s) need attention.")


def test_each_failed_gpu_of_a_collected_log_holds_its_own_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kubectl logs -l` puts the pods' logs one after another: node1's pod stopped at its
    deadline, its last line saying so; node2's GPU fails at CUDA's start. node2's row holds its
    own message, not the line node1's pod wrote last."""
    logs = []
    for pod, env in (("a", dict(NODE_NAME="node1", STANDIN_GPUS="GPU-a1,GPU-a2",
                                STANDIN_BEHAVIOUR="GPU-a1=slow", GPUBENCH_POD_DEADLINE="1")),
                     ("b", dict(NODE_NAME="node2", STANDIN_GPUS="GPU-b1",
                                STANDIN_BEHAVIOUR="GPU-b1=dead"))):
        (tmp_path / pod).mkdir()
        logs.append(run_pod(tmp_path / pod, status=143 if pod == "a" else 1, **env))
    assert "the pod's deadline" in logs[0].read_text().splitlines()[-1]
    (tmp_path / "k8s.jsonl").write_text("".join(log.read_text() for log in logs))
    code, out, err = run(capsys, tmp_path / "k8s.jsonl", "--no-limits")
    assert err == "", err
    # node1's rows: GPU-a1 stopped at the deadline, or, on a machine slow to start the pod, both
    # its GPUs never started; node2's is the one row this is about.
    rows = [line.split() for line in section(out, "Runs that did not finish").splitlines()[3:]
            if line.strip()]
    node2 = [row for row in rows if row[1] == "node2"]
    assert len(node2) == 1 and node2[0][:3] == ["failed", "node2", "GPU-b1"], out
    assert "CUDA_ERROR" in " ".join(node2[0]) and "deadline" not in " ".join(node2[0])


def test_a_pods_peer_run_is_read_from_its_results_not_its_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """node1's pod runs the peer family over its two GPUs after them: its log ends with one
    line saying how that run ended, no GPU's record, result or message (node2's pod, whose
    nvidia-smi fails, follows it in the collected log); its results hold the peer run."""
    smi = tmp_path / "smi" / "nvidia-smi"
    smi.parent.mkdir()
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed'\nexit 9\n")
    smi.chmod(0o755)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    logs = [run_pod(tmp_path / "a", status=0, STANDIN_GPUS="GPU-a1,GPU-a2", STANDIN_BEHAVIOUR=""),
            run_pod(tmp_path / "b", wrapper=smi.parent, NODE_NAME="node2")]
    assert logs[0].read_text().splitlines()[-1].startswith(
        "gpubench-pod: node1: the peer run over 2 GPUs: done, exit 0; in ")
    log = tmp_path / "k8s.jsonl"
    log.write_text("".join(p.read_text() for p in logs))
    code, out, err = run(capsys, log, "--no-limits")
    assert err == "" and "2 GPU result(s)" in out and "peer run" not in out.splitlines()[0], out
    rows = records(out)
    assert list(rows) == ["node2"] and "NVIDIA-SMI has failed" in " ".join(rows["node2"]), out
    code, out, err = run(capsys, tmp_path / "a" / "results", "--no-limits")
    assert (code, err) == (0, ""), out
    assert out.splitlines()[0].endswith("2 GPU result(s), 1 group(s), 1 node(s)' peer runs."), out


def test_a_collected_log_larger_than_any_file_is_read_a_line_at_a_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fleet's collected log is as large as its results together: past the bound on the files
    gpubench-tools fleet reads whole (a log padded to it by a line longer than a result may be,
    which alone is damaged), every GPU is read."""
    fleet = fb.build_fleet(9, 0)
    log = tmp_path / "k8s.jsonl"
    with log.open("w") as out:
        out.write("".join(json.dumps(doc) + "\n" for doc in fleet[:8]))
        out.truncate(MAX_TEXT_BYTES + 1)  # a line of NUL bytes, sparse
        out.seek(0, os.SEEK_END)
        out.write("\n" + json.dumps(fleet[8]) + "\n")
    code, out, err = run(capsys, log, "--no-limits")
    assert "9 GPU result(s)" in out, out
    assert err.splitlines() == [f"gpubench-tools fleet: skipped {log}:9: a line longer than 32 "
                                "MiB, the largest result gpubench-tools fleet reads"], err
    assert MAX_RESULT_BYTES < MAX_TEXT_BYTES


def test_a_pods_failed_records_say_which_file_it_could_not_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file size limit no record fits under: every GPU's record line says failed, and the
    reason, the pod's one line before the first, is in each row, not "no exit status" alone."""
    log = run_pod(tmp_path, file_blocks=0)
    code, out, err = run(capsys, log, "--no-limits")
    assert err == "", err
    runs = section(out, "Runs that did not finish")
    reason = f"cannot write {tmp_path / 'results'}/node1_GPU-a1.status (File too large)"
    for uuid in ("GPU-a1", "GPU-b2", "GPU-c3"):
        row = [line for line in runs.splitlines() if f" {uuid} " in line]
        assert len(row) == 1 and row[0].split()[0] == "failed", runs
        assert reason in row[0], runs


def test_a_record_that_meets_a_full_disk_says_so_in_its_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The disk full (a link to /dev/full) once GPU-a1's own run has ended without a result (its
    JSON emptied, so that the pod replaces gpubench's record): its final record line says failed
    for the line before it, which its row quotes; GPU-b2 never started."""
    record = tmp_path / "results" / "node1_GPU-a1.status"
    wrapper = tmp_path / "bin" / "gpubench"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\n"{REPO}/tests/cluster/standin/gpubench" "$@"\nstatus=$?\n'
                       f'[ "$CUDA_VISIBLE_DEVICES" != GPU-a1 ] || '
                       f'{{ : > "{record.with_suffix(".json")}"; '
                       f'ln -s /dev/full "{record}.tmp"; }}\n'
                       'exit $status\n')
    wrapper.chmod(0o755)
    log = run_pod(tmp_path, wrapper=wrapper.parent, STANDIN_BEHAVIOUR="")
    code, out, err = run(capsys, log, "--no-limits")
    assert err == "", err
    rows = [line for line in section(out, "Runs that did not finish").splitlines()
            if " GPU-a1 " in line]
    assert len(rows) == 1 and rows[0].split()[0] == "failed", out
    assert f"cannot write {record} (No space left on device)" in rows[0], out


def test_an_err_whose_exit_line_meets_a_file_size_limit_is_read_by_its_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GPU-b2's stderr fills its .err to the file size limit: the pod's `exit status 1` line
    cannot be appended, the record after it still says failed, exit 1. The results directory
    gives one row for the run, failed, not killed; GPU-c3 and the peer run never started."""
    err = tmp_path / "results" / "node1_GPU-b2.err"
    wrapper = tmp_path / "bin" / "gpubench"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\n"{REPO}/tests/cluster/standin/gpubench" "$@"\nstatus=$?\n'
                       f'if [ "$CUDA_VISIBLE_DEVICES" = GPU-b2 ]; then\n'
                       f'  size=$(stat -c %s "{err}")\n'
                       f"  head -c $((4095 - size)) /dev/zero | tr '\\0' x >&2\n"
                       f"  echo >&2\nfi\nexit $status\n")
    wrapper.chmod(0o755)
    log = run_pod(tmp_path, file_blocks=4, wrapper=wrapper.parent)
    assert f"cannot write {err} (File too large)" in log.read_text()
    assert err.stat().st_size == 4096 and "exit status" not in err.read_text()
    code, out, err = run(capsys, tmp_path / "results", "--no-limits")
    assert (code, err) == (0, ""), err
    rows = {line.split()[2]: line.split(maxsplit=3)
            for line in section(out, "Runs that did not finish").splitlines()[3:] if line}
    assert list(rows) == ["GPU-b2", "GPU-c3", "peer"], out
    assert [rows[key][0] for key in rows] == ["failed", "interrupted", "interrupted"], out
    assert "verification failed" in rows["GPU-b2"][3], out
    assert "(exit status line not written); status failed, exit status 1 at " in rows["GPU-b2"][3]
    assert "never returned" not in out, out


@pytest.mark.parametrize("node, pod", [("gpu-node-07", "gpubench-3-x7k2p"),
                                       ("ip-10-0-1-23.ec2.internal", "gpubench-12-q9zt4"),
                                       ("dgx01", "gpubench-0-8fzlq")])
def test_real_node_and_pod_names_are_read_as_the_pod_writes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], node: str, pod: str) -> None:
    """Kubernetes and Slurm node names, pod names with their random suffix and a Job's UID:
    the log and the files read as the node's, the failed GPU its one row."""
    log = run_pod(tmp_path, NODE_NAME=node, POD_NAME=pod,
                  JOB_UID="0f8c3f2e-5a1b-4c2d-9e7f-1234567890ab")
    for source in (log, tmp_path / "results"):
        code, out, err = run(capsys, source, "--no-limits", "--fail-on-outlier")
        assert (code, err) == (1, ""), out
        assert list(records(out)) == [node] and records(out)[node][:3] == ["failed", node,
                                                                          "GPU-b2"]


@pytest.mark.parametrize("node, shown", [("node/1", "node/1"), ("node\n1", "$'node\\n1'"),
                                         ("node 1", "node\\ 1")])
def test_a_node_name_no_record_can_hold_is_refused_before_any_file(
        tmp_path: Path, node: str, shown: str) -> None:
    """A NODE_NAME that cannot name a file or fill a record line: one line naming it, exit 2,
    no record gpubench-tools fleet would read as damaged."""
    log = run_pod(tmp_path, status=2, NODE_NAME=node)
    assert log.read_text().splitlines() == [
        f"gpubench-pod: NODE_NAME={shown}: holds a space, '/', '=', a control character or one "
        "outside ASCII (it names the result files and fills their records)"]
    assert not (tmp_path / "results").exists()


def test_a_record_left_running_is_a_run_killed(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """gpubench --status-out writes `running` as it starts: a record still saying so (SIGKILL, a
    crash, a lost node) is a run that never ended, a `killed` row."""
    fleet = fb.build_fleet(4, 0)
    fb.interrupt(fleet[3], kept=5)
    del fleet[3]["context"]["interrupted"]
    fb.write_fleet(fleet, tmp_path)
    fb.write_done(fleet[:3], tmp_path)
    fb.write_status(tmp_path, fb.file_name(fleet[3]), "running", "none", fb.uuid_of(3),
                    attempt="0")
    code, out, err = run(capsys, tmp_path, "--fail-on-outlier")
    assert (code, err) == (1, ""), out
    rows = records(out)
    assert set(rows) == {"node03"}, out
    assert rows["node03"][:3] == ["killed", "node03", fb.uuid_of(3)]
    assert "status running: the run never ended" in " ".join(rows["node03"])
