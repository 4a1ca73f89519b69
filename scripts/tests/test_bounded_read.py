"""bounded_read: which names are links to nothing, the one opener that the bounded reader
and gpubench-tools fleet's pod log reader share, and an input of every kind that is no result
file refused in one line, in bounded time."""

import os
import time
from pathlib import Path

import pytest
from hostile_inputs import INPUTS, special_input

from gpubench_tools.reading import bounded_read
from gpubench_tools.reading.errors import GpubenchJsonError
from gpubench_tools.reading.result_file import load


@pytest.mark.parametrize("make, reason", [
    (lambda path, tmp: None, None),
    (lambda path, tmp: path.mkdir(), None),
    (lambda path, tmp: path.symlink_to(tmp), None),
    (lambda path, tmp: path.symlink_to(path), "a link in a loop of links, which leads to no file"),
    (lambda path, tmp: (path.symlink_to("middle"), (tmp / "middle").symlink_to("end")),
     "a link to {tmp}/end, which does not exist"),
], ids=["nothing", "folder", "link to a folder", "loop", "chain to nothing"])
def test_dangling_link_says_why_only_of_a_link_that_leads_nowhere(tmp_path: Path, make,
                                                                  reason: str | None) -> None:
    path = tmp_path / "x"
    make(path, tmp_path)
    real = os.path.realpath(tmp_path)
    assert bounded_read.dangling_link(path) == (reason.format(tmp=real) if reason else None)


def test_one_opener_serves_the_bounded_reader_and_the_pod_log_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """open_to_read opens a FIFO without a writer at once and reads it as empty, refuses a directory
    in one error, and hands back a blocking descriptor; read_bounded and gpubench-tools fleet's pod
    log reader open through it."""
    from gpubench_tools.reading.fleet import files as fleet_files
    from gpubench_tools.reading.fleet import pod_log as fleet_pod_log
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    fd, info = bounded_read.open_to_read(fifo)
    try:
        assert os.get_blocking(fd) and bounded_read.read_descriptor(fd, info, 10) == b""
    finally:
        os.close(fd)
    with pytest.raises(IsADirectoryError):
        bounded_read.open_to_read(tmp_path)
    opened: list[Path] = []
    open_to_read = bounded_read.open_to_read

    def counted(path: Path) -> tuple[int, os.stat_result]:
        opened.append(path)
        return open_to_read(path)

    log = tmp_path / "pod.jsonl"
    log.write_bytes(b"a\nb\n")
    monkeypatch.setattr(bounded_read, "open_to_read", counted)
    monkeypatch.setattr(fleet_files, "open_to_read", counted)
    assert bounded_read.read_bounded(log) == b"a\nb\n"
    assert list(fleet_pod_log.pod_log_lines(log)) == [b"a", b"b"]
    assert list(fleet_pod_log.pod_log_lines(fifo)) == []
    assert opened == [log, log, fifo]


@pytest.mark.parametrize("kind", INPUTS)
def test_an_input_of_every_kind_is_one_line_in_bounded_time(tmp_path: Path, kind: str) -> None:
    """What every subcommand's results go through: a device without end, a FIFO no one writes,
    a loop of links, a folder, memory no read may take; test_hostile_scripts gives each
    subcommand one of them as a process."""
    path = special_input(kind, tmp_path)
    if not path.exists() and kind.startswith("/") and not path.is_symlink():
        pytest.skip(f"{kind} does not exist here")
    started = time.monotonic()
    with pytest.raises(GpubenchJsonError) as refused:
        load(path)
    assert str(refused.value) and "\n" not in str(refused.value)
    assert time.monotonic() - started < 20
