"""cli.options and writing.outputs: the option types' ranges, and output files written whole or not
at all, all of one output or none."""

import argparse
import errno
import os
import resource
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SCRIPTS, folder_files

from gpubench_tools.cli import options
from gpubench_tools.writing import outputs


@pytest.mark.parametrize(("text", "option", "accepted"), [
    ("5", options.positive_finite, 5.0), ("0.5", options.positive_finite, 0.5),
    ("nan", options.positive_finite, None), ("inf", options.positive_finite, None),
    ("-1", options.positive_finite, None), ("0", options.positive_finite, None),
    ("five", options.positive_finite, None),
    ("0.05", options.open_unit_interval, 0.05), ("0", options.open_unit_interval, None),
    ("1", options.open_unit_interval, None), ("2", options.open_unit_interval, None),
    ("nan", options.open_unit_interval, None), ("-0.1", options.open_unit_interval, None),
])
def test_option_ranges(text: str, option: Callable[[str], float], accepted: float | None) -> None:
    if accepted is None:
        with pytest.raises(argparse.ArgumentTypeError):
            option(text)
    else:
        assert option(text) == accepted


def test_an_output_fifo_without_a_reader_is_refused(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outputs, "FIFO_READER_WAIT_S", 0.2)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    failed: list[OSError] = []

    def write() -> None:
        try:
            outputs.write_output(fifo, "text\n")
        except OSError as error:
            failed.append(error)

    # In a thread of its own: a blocking open would never return.
    writer = threading.Thread(target=write, daemon=True)
    started = time.monotonic()
    writer.start()
    writer.join(timeout=5)
    assert not writer.is_alive() and 0.2 <= time.monotonic() - started < 5
    assert [(e.filename, e.strerror) for e in failed] == [(str(fifo), "no reader on this FIFO")]


def test_an_output_fifo_whose_reader_comes_late_gets_the_text(tmp_path: Path) -> None:
    """The reader opens after the writer started waiting; the text is more than a pipe holds,
    so the writes after the open block until it is read."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    text = "x" * 300_000 + "\n"
    received: list[str] = []

    def read_late() -> None:
        time.sleep(0.3)
        with open(fifo, encoding="utf-8") as stream:
            received.append(stream.read())

    reader = threading.Thread(target=read_late)
    reader.start()
    outputs.write_output(fifo, text)
    reader.join(timeout=10)
    assert received == [text]


@pytest.mark.parametrize("links", [["out.json"], ["out.json", "other.json"]],
                         ids=["to itself", "to each other"])
def test_an_output_whose_links_lead_round_in_a_loop_is_refused(tmp_path: Path,
                                                               links: list[str]) -> None:
    """As the shell's `>` refuses it; the links stay as they were, none replaced by a file."""
    paths = [tmp_path / name for name in links]
    for path, target in zip(paths, paths[1:] + paths[:1]):
        path.symlink_to(target.name)
    with pytest.raises(OSError) as error:
        outputs.write_output(paths[0], "text\n")
    assert (error.value.filename, error.value.errno) == (str(paths[0]), errno.ELOOP)
    assert [os.readlink(p) for p in paths] == [p.name for p in paths[1:] + paths[:1]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(links)


def earlier_outputs(folder: Path) -> dict[Path, bytes]:
    """a.txt, b.png and c.md written earlier into `folder`; the bytes each is written anew."""
    paths = [folder / name for name in ("a.txt", "b.png", "c.md")]
    for path in paths:
        path.write_bytes(b"earlier " + path.name.encode())
    return {path: b"new " + path.name.encode() for path in paths}


@pytest.mark.parametrize("blocker", ["folder", "link into a missing folder", "missing folder"])
def test_write_outputs_changes_no_file_where_the_last_cannot_be_written(tmp_path: Path,
                                                                       blocker: str) -> None:
    """The earlier files are written into new files before the last fails: each is removed,
    and every file stays as it was."""
    files = earlier_outputs(tmp_path)
    last = tmp_path / "d.md"
    if blocker == "folder":
        last.mkdir()
    elif blocker == "link into a missing folder":
        last.symlink_to(tmp_path / "missing" / "d.md")
    else:
        last = tmp_path / "missing" / "d.md"
    before = folder_files(tmp_path)
    with pytest.raises(OSError) as error:
        outputs.write_outputs({**files, last: b"new d"})
    assert error.value.filename == str(last)
    assert folder_files(tmp_path) == before


def test_write_outputs_changes_no_file_where_the_disk_fills(tmp_path: Path) -> None:
    """A write that fails part-way (a file size limit, as a full disk): the file cut short is
    removed with the others, and every file stays as it was."""
    files = earlier_outputs(tmp_path)
    files[tmp_path / "large.png"] = b"x" * 8192
    before = folder_files(tmp_path)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, limits[1]))
    try:
        with pytest.raises(OSError) as error:
            outputs.write_outputs(files)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
    assert (error.value.errno, error.value.filename) == (errno.EFBIG, str(tmp_path / "large.png"))
    assert folder_files(tmp_path) == before


def test_write_outputs_replaces_every_file_and_keeps_its_permissions(tmp_path: Path) -> None:
    """A link is written through and stays a link; a file replaced keeps its mode."""
    files = earlier_outputs(tmp_path)
    (tmp_path / "b.png").chmod(0o600)
    (tmp_path / "c.md").chmod(0o664)
    link = tmp_path / "link.md"
    link.symlink_to("c.md")
    files[link] = files.pop(tmp_path / "c.md")
    files[tmp_path / "new.txt"] = b"new new.txt"
    outputs.write_outputs(files)
    assert folder_files(tmp_path) == {"a.txt": b"new a.txt", "b.png": b"new b.png",
                                      "c.md": b"new c.md", "link.md": b"new c.md",
                                      "new.txt": b"new new.txt"}
    assert os.readlink(link) == "c.md"
    assert [stat.S_IMODE((tmp_path / n).stat().st_mode) for n in ("b.png", "c.md")] == [
        0o600, 0o664]


def test_script_output_returns_its_status_or_one_line_for_a_stdout_that_fails() -> None:
    code = ("import sys; from gpubench_tools.cli.options import script_output; "
            "sys.exit(script_output('tool.py', 'the answer\\n', 3))")
    done = subprocess.run([sys.executable, "-c", code], cwd=SCRIPTS, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "the answer\n", "")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", code], cwd=SCRIPTS, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "tool.py: stdout: No space left on device\n"


@pytest.mark.parametrize(("text", "accepted"), [
    ("1", 1), ("1000", 1000), ("0", None), ("1001", None), ("-1", None), ("1.0", None),
    ("١", None), ("", None), (" 5", None), ("9" * 5000, None),
])
def test_whole_number_takes_decimal_digits_within_its_range(text: str,
                                                            accepted: int | None) -> None:
    parse = options.whole_number(1, 1000)
    if accepted is None:
        with pytest.raises(argparse.ArgumentTypeError, match="from 1 to 1,000"):
            parse(text)
    else:
        assert parse(text) == accepted
