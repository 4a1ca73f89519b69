"""gpubench-tools gallery: the page of every result under a folder, a section per machine, each figure
linked to its JSON; hostile names and folders shown as text; bad usage in one line."""

import os
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import RunScript
from gbench_builder import document, full_suite, peer_run, run_entries, write_json
from hostile_inputs import assert_kept_promise, hostile_text, result_with_names, run, write_result
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_html_report import assert_no_markup_from_files, panel_titles

from gpubench_tools.renderers import gallery


def results_tree(root: Path) -> Path:
    for folder in ("h100", "b200x2", "limits", "empty"):
        (root / folder).mkdir(parents=True)
    write_json(root / "h100" / "suite.json", document(full_suite(), gpu_name="NVIDIA H100"))
    peers = [e for pair in ((0, 1), (1, 0)) for e in peer_run("ce", "read", *pair, 4096, 300.0)]
    write_json(root / "b200x2" / "peer.json", document(peers, gpu_name="NVIDIA B200",
                                                       gpu_count="2"))
    (root / "b200x2" / "README.md").write_text("# Two B200 <b>of one host</b>\n")
    (root / "limits" / "table.json").write_text('{"not": "a result"}')
    return root


def test_gallery_of_every_machine(tmp_path: Path, run_script: RunScript) -> None:
    root = results_tree(tmp_path / "results")
    proc = run_script("gallery", root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {root / 'index.html'}\n"
    page = (root / "index.html").read_text(encoding="utf-8")
    assert_no_markup_from_files(page)
    assert page.count('<section class="machine"') == 2  # limits and empty hold no result
    assert page.index('id="machine-b200x2"') < page.index('id="machine-h100"')
    assert "Two B200 &lt;b&gt;of one host&lt;/b&gt;" in page
    assert 'href="h100/suite.json"' in page and 'href="b200x2/peer.json"' in page
    assert "limits/table.json</a>: left out (not gpubench output" in page
    assert "copy/HtoD/pinned/async" in panel_titles(page)
    assert 'class="matrix run-0"' in page


def test_a_result_of_more_gpus_than_gpubench_measures_is_left_out(
        tmp_path: Path, run_script: RunScript) -> None:
    """Its matrix of pairs would grow as the square of its GPUs: the file is named, left out
    with the reason, and the others are drawn."""
    root = results_tree(tmp_path / "results")
    write_json(root / "b200x2" / "chain.json",
               document([e for gpu in range(65)
                         for e in peer_run("ce", "read", gpu, gpu + 1, 4096, 300.0)]))
    proc = run_script("gallery", root)
    assert proc.returncode == 0, proc.stderr
    page = (root / "index.html").read_text(encoding="utf-8")
    assert ("b200x2/chain.json</a>: left out (peer/ce/read/*: pairs of more than 64 GPUs, the "
            "most gpubench measures at once)") in page
    assert page.count('<td class="cell"') == 4  # peer.json's 2 × 2


def test_a_result_of_more_families_than_one_run_draws_is_left_out(
        tmp_path: Path, run_script: RunScript) -> None:
    """A section of figures per family: a file of a benchmark a family would take hours. It is
    named, left out with the reason, and the others are drawn."""
    root = results_tree(tmp_path / "results")
    write_json(root / "h100" / "families.json",
               document([e for index in range(65) for e in run_entries(
                   f"family{index}/x/4096/manual_time",
                   [{"real_time": 1.0, "bytes_per_second": 1e9}])]))
    proc = run_script("gallery", root)
    assert proc.returncode == 0, proc.stderr
    page = (root / "index.html").read_text(encoding="utf-8")
    assert ("h100/families.json</a>: left out (65 families, more than the 64 figures one run "
            "draws (--filter selects fewer benchmarks))") in page
    assert "copy/HtoD/pinned/async" in panel_titles(page)


def test_links_are_relative_to_the_page(tmp_path: Path, run_script: RunScript) -> None:
    root = results_tree(tmp_path / "results")
    (tmp_path / "site").mkdir()
    proc = run_script("gallery", root, "-o", tmp_path / "site" / "gallery.html")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "site" / "gallery.html").read_text(encoding="utf-8")
    assert 'href="../results/h100/suite.json"' in page


@pytest.mark.parametrize("make, message", [
    (lambda root: root / "missing", "not a folder"),
    (lambda root: root, "no gpubench result in its folders"),
])
def test_bad_folder_is_one_line(tmp_path: Path, run_script: RunScript, make, message) -> None:
    (tmp_path / "limits").mkdir()
    (tmp_path / "limits" / "x.json").write_text("[]")
    proc = run_script("gallery", make(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith("gpubench-tools gallery: ") and proc.stderr.count("\n") == 1
    assert message in proc.stderr


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(names=st.lists(hostile_text, min_size=1, max_size=3))
def test_hostile_names_never_become_markup(tmp_path_factory: pytest.TempPathFactory,
                                           names: list[str]) -> None:
    root = tmp_path_factory.mktemp("results")
    (root / "gpu <img src=x onerror=alert(1)>").mkdir()
    write_result(root / "gpu <img src=x onerror=alert(1)>" / "a.json", result_with_names(names))
    page = gallery.gallery_html(root, root)
    assert_no_markup_from_files(page)
    page.encode("utf-8")


def one_machine(root: Path) -> Path:
    """A results folder of one machine, `m`, holding one result."""
    (root / "m").mkdir(parents=True)
    write_json(root / "m" / "r.json", document(full_suite()))
    return root / "m"


def gallery_process(root: Path) -> subprocess.CompletedProcess[bytes]:
    """gpubench-tools gallery on `root` in at most 4 GiB of address space and 30 s, so that a read without
    end fails the test rather than the machine, and a wait for a FIFO's writer fails too."""
    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
    return run("gallery", [root, "-o", root / "index.html"], timeout=30,
               preexec_fn=limit_memory)


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "folder"])
def test_readme_that_is_no_regular_file_is_one_line(tmp_path: Path, kind: str) -> None:
    readme = one_machine(tmp_path) / "README.md"
    if kind == "fifo":
        os.mkfifo(readme)
    elif kind == "folder":
        readme.mkdir()
    else:
        readme.symlink_to(kind)
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=False)
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: not a regular file; the gallery " \
        "reads a machine's README.md\n"
    assert not (tmp_path / "index.html").exists()


@pytest.mark.parametrize("kind", ["to nothing", "loop"])
def test_readme_that_is_a_link_to_no_file_is_one_line(tmp_path: Path, kind: str) -> None:
    """A machine's README.md that cannot be read is no README left out in silence."""
    readme = one_machine(tmp_path) / "README.md"
    readme.symlink_to(tmp_path / "gone.md" if kind == "to nothing" else readme)
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=False)
    reason = (f"a link to {os.path.realpath(tmp_path / 'gone.md')}, which does not exist"
              if kind == "to nothing" else "a link in a loop of links, which leads to no file")
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: {reason}; the gallery reads a " \
        "machine's README.md\n"
    assert not (tmp_path / "index.html").exists()


def test_results_folder_that_is_a_link_to_nothing_is_one_line(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.symlink_to(tmp_path / "gone")
    proc = run("gallery", [results], timeout=30)
    assert_kept_promise(proc, "gallery", succeeds=False)
    assert proc.stderr.decode() == f"gpubench-tools gallery: {results}: a link to " \
        f"{os.path.realpath(tmp_path / 'gone')}, which does not exist\n"


def test_readme_larger_than_a_readme_is_one_line(tmp_path: Path) -> None:
    readme = one_machine(tmp_path) / "README.md"
    readme.write_bytes(b"# title\n" + b"x" * gallery.README_MAX_BYTES)
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=False)
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: larger than 1 MiB, the largest " \
        "README.md the gallery reads\n"


def test_json_that_is_no_regular_file_is_left_out_unopened(tmp_path: Path) -> None:
    machine = one_machine(tmp_path)
    os.mkfifo(machine / "fifo.json")
    (machine / "zero.json").symlink_to("/dev/zero")
    (machine / "loop.json").symlink_to(machine / "loop.json")
    (machine / "folder.json").mkdir()
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=True)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    for name in ("fifo.json", "zero.json"):
        assert f"m/{name}</a>: left out (not a regular file)" in page
    assert "m/loop.json</a>: left out (Too many levels of symbolic links)" in page
    assert "folder.json" not in page
    assert 'href="m/r.json"' in page


def test_names_that_are_not_utf8_are_linked_by_their_bytes(tmp_path: Path) -> None:
    """A folder and a file whose names are not UTF-8: drawn, shown escaped, and linked by the
    bytes the file system holds."""
    machine = tmp_path / os.fsdecode(b"gpu\xff")
    machine.mkdir()
    write_json(machine / os.fsdecode(b"run\xfe.json"), document(full_suite()))
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=True)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'href="gpu%FF/run%FE.json"' in page
    assert "run\\udcfe.json</a>" in page


@pytest.fixture
def deep_machine(tmp_path: Path) -> Iterator[Path]:
    """one_machine, removed after the test by rm, which removes a tree of any depth, as
    shutil.rmtree (pytest's clean-up) does not."""
    yield one_machine(tmp_path)
    subprocess.run(["rm", "-rf", "--", tmp_path / "m"], check=True)


def test_any_depth_and_a_link_loop_are_walked(tmp_path: Path, deep_machine: Path) -> None:
    machine = deep_machine
    deep = machine
    for _ in range(1100):  # deeper than Python's recursion limit
        deep = deep / "d"
        deep.mkdir()
    write_json(deep / "deep.json", document(full_suite()))
    (machine / "up").symlink_to(tmp_path)  # a loop, were links to folders entered
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=True)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert page.count("<details class=\"result\"") == 2
    assert f'href="m/{"d/" * 1100}deep.json"' in page


def test_folder_past_the_longest_path_is_one_line(tmp_path: Path, deep_machine: Path) -> None:
    """A tree deeper than a path can name (PATH_MAX, 4096 bytes): the walk names the folder it
    cannot list."""
    folder = os.open(deep_machine, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("dd", dir_fd=folder)
        inner = os.open("dd", os.O_RDONLY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.close(folder)
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=False)
    assert proc.stderr.decode().endswith(": cannot list the folder (File name too long)\n")
