"""gpubench-tools gallery: an index page and a page per machine folder, its headline results
drawn (as its README.md lists them) and each figure linked to its JSON, its other result files
linked; hostile names and folders shown as text; bad usage in one line."""

import os
import re
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
from test_html_report import assert_no_markup_from_files

from gpubench_tools.reading.machine_readme import headline_paths, read_machine_readme
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


def pages_of(root: Path, index: Path | None = None) -> dict[str, str]:
    """The pages written: the index as "", each machine's page by the machine's name."""
    index = index or root / "index.html"
    pages = {"": index.read_text(encoding="utf-8")}
    for page in index.parent.glob("*/index.html"):
        pages[page.parent.name] = page.read_text(encoding="utf-8")
    return pages


def drawn(page: str, series: str) -> bool:
    """Whether a panel of the page names the series (a panel may name several it overlays)."""
    return any(series in names
               for names in re.findall(r'<figure class="panel" data-name="([^"]*)"', page))


def test_gallery_of_every_machine(tmp_path: Path, run_script: RunScript) -> None:
    root = results_tree(tmp_path / "results")
    proc = run_script("gallery", root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"wrote {root / 'index.html'} and 2 machine page(s) beside it\n"
    pages = pages_of(root)
    assert sorted(pages) == ["", "b200x2", "h100"]  # limits and empty hold no result
    for page in pages.values():
        assert_no_markup_from_files(page)
    index = pages[""]
    assert index.index('href="b200x2/index.html"') < index.index('href="h100/index.html"')
    assert "Two B200 &lt;b&gt;of one host&lt;/b&gt;" in index
    assert "Two B200 &lt;b&gt;of one host&lt;/b&gt;" in pages["b200x2"]
    assert "limits/table.json</a>: left out (not gpubench output" in index
    assert "<svg" not in index
    assert 'href="suite.json"' in pages["h100"] and 'href="peer.json"' in pages["b200x2"]
    assert 'href="../index.html"' in pages["h100"]
    assert drawn(pages["h100"], "copy/HtoD/pinned/async")
    assert 'class="matrix run-0"' in pages["b200x2"]


def headline_tree(root: Path, readme: str) -> Path:
    """A machine `m` of three results, one at its top and two in a folder, with `readme`."""
    (root / "m" / "runs").mkdir(parents=True)
    for name in ("top.json", "runs/2.json", "runs/10.json"):
        write_json(root / "m" / name, document(full_suite()))
    (root / "m" / "README.md").write_text(readme)
    return root


def test_the_readme_lists_the_headline_results(tmp_path: Path, run_script: RunScript) -> None:
    """Drawn in the README's order; the other files linked, not drawn; a listed path that
    names no result file is said."""
    root = headline_tree(tmp_path / "results", "# m\n\nText.\n\n## Headline results\n\n"
                         "- `runs/10.json`: the second\n- `gone.json`\n* `top.json` first\n"
                         "- no path here\n\n## Later\n\n- `runs/2.json`\n")
    proc = run_script("gallery", root)
    assert proc.returncode == 0, proc.stderr
    page = pages_of(root)["m"]
    drawn = re.findall(r'<details class="result"[^>]*><summary><a href="([^"]*)"', page)
    assert drawn == ["runs/10.json", "top.json"]
    linked = re.findall(r'<li data-name="[^"]*"><a href="([^"]*)"', page)
    assert linked == ["runs/2.json"]
    assert "gone.json: listed under Headline results, but no result file of the folder" in page
    assert "1 other result file(s)" in page


def test_without_a_headline_list_the_top_of_the_folder_is_drawn(
        tmp_path: Path, run_script: RunScript) -> None:
    """Files in its folders are linked, numbers in order (2 before 10)."""
    root = headline_tree(tmp_path / "results", "# m\n")
    assert run_script("gallery", root).returncode == 0
    page = pages_of(root)["m"]
    assert re.findall(r'<details class="result"[^>]*><summary><a href="([^"]*)"', page) == [
        "top.json"]
    assert re.findall(r'<li data-name="[^"]*"><a href="([^"]*)"', page) == [
        "runs/2.json", "runs/10.json"]
    assert "lists no headline results" in page


def test_an_empty_headline_list_draws_nothing(tmp_path: Path, run_script: RunScript) -> None:
    root = headline_tree(tmp_path / "results", "# m\n\n## Headline results\n\nNone yet.\n")
    assert run_script("gallery", root).returncode == 0
    page = pages_of(root)["m"]
    assert "<svg" not in page and page.count("<li data-name=") == 3


@pytest.mark.parametrize("text, paths", [
    ("# t\n", None),
    ("# t\n### Headline Results ###\n1. `a.json`\n#### deeper\n- `b.json`\n### next\n- `c`",
     ["a.json", "b.json"]),
    ("## Headline results\n```\n- `fenced.json`\n## not a heading\n```\n  - `x/y.json` z\n",
     ["x/y.json"]),
    ("# Headline results\n- `a.json`\n## Headline results\n- `b.json`\n", ["a.json", "b.json"]),
])
def test_headline_paths(text: str, paths: list[str] | None) -> None:
    assert headline_paths(text.splitlines()) == paths


def test_the_committed_headline_lists_name_result_files() -> None:
    """Every path a machine's README.md under results/ lists as a headline result is one of
    its result files."""
    results = Path(__file__).resolve().parents[2] / "results"
    listed = 0
    for folder in sorted(p for p in results.iterdir() if p.is_dir()):
        headlines = read_machine_readme(folder).headlines or []
        found = {p.relative_to(folder).as_posix() for p in gallery.json_files(folder)}
        assert [h for h in headlines if h not in found] == [], folder
        listed += len(headlines)
    assert listed > 0


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
    page = pages_of(root)["b200x2"]
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
    page = pages_of(root)["h100"]
    assert ("h100/families.json</a>: left out (65 families, more than the 64 figures one run "
            "draws (--filter selects fewer benchmarks))") in page
    assert drawn(page, "copy/HtoD/pinned/async")


def test_links_are_relative_to_the_page(tmp_path: Path, run_script: RunScript) -> None:
    """The machines' pages go beside the index page, each in a folder named for its machine."""
    root = results_tree(tmp_path / "results")
    (tmp_path / "site").mkdir()
    proc = run_script("gallery", root, "-o", tmp_path / "site" / "gallery.html")
    assert proc.returncode == 0, proc.stderr
    pages = pages_of(root, tmp_path / "site" / "gallery.html")
    assert sorted(pages) == ["", "b200x2", "h100"]
    assert 'href="h100/index.html"' in pages[""]
    assert 'href="../../results/h100/suite.json"' in pages["h100"]
    assert 'href="../gallery.html"' in pages["h100"]
    assert not (root / "h100" / "index.html").exists()


def test_an_index_in_a_missing_folder_is_one_line(tmp_path: Path, run_script: RunScript) -> None:
    root = results_tree(tmp_path / "results")
    proc = run_script("gallery", root, "-o", tmp_path / "gone" / "index.html")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert not (tmp_path / "gone").exists()


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
    for page in gallery.gallery_pages(root, root / "index.html").values():
        assert_no_markup_from_files(page)
        page.encode("utf-8")


def one_machine(root: Path) -> Path:
    """A results folder of one machine, `m`, holding one result."""
    (root / "m").mkdir(parents=True)
    write_json(root / "m" / "r.json", document(full_suite()))
    return root / "m"


def gallery_process(root: Path) -> subprocess.CompletedProcess[bytes]:
    """gpubench-tools gallery on `root` in at most 4 GiB of address space and 30 s, so that a
    read without end fails the test rather than the machine, and a wait for a FIFO's writer
    fails too."""
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
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: not a regular file; " \
        "the gallery reads a machine's README.md\n"
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
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: {reason}; the gallery " \
        "reads a machine's README.md\n"
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
    assert proc.stderr.decode() == f"gpubench-tools gallery: {readme}: larger than 1 MiB, " \
        "the largest README.md the gallery reads\n"


def test_json_that_is_no_regular_file_is_left_out_unopened(tmp_path: Path) -> None:
    machine = one_machine(tmp_path)
    os.mkfifo(machine / "fifo.json")
    (machine / "zero.json").symlink_to("/dev/zero")
    (machine / "loop.json").symlink_to(machine / "loop.json")
    (machine / "folder.json").mkdir()
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=True)
    page = (tmp_path / "m" / "index.html").read_text(encoding="utf-8")
    for name in ("fifo.json", "zero.json"):
        assert f"m/{name}</a>: left out (not a regular file)" in page
    assert "m/loop.json</a>: left out (Too many levels of symbolic links)" in page
    assert "folder.json" not in page
    assert 'href="r.json"' in page


def test_names_that_are_not_utf8_are_linked_by_their_bytes(tmp_path: Path) -> None:
    """A folder and a file whose names are not UTF-8: drawn, shown escaped, and linked by the
    bytes the file system holds."""
    machine = tmp_path / os.fsdecode(b"gpu\xff")
    machine.mkdir()
    write_json(machine / os.fsdecode(b"run\xfe.json"), document(full_suite()))
    proc = gallery_process(tmp_path)
    assert_kept_promise(proc, "gallery", succeeds=True)
    assert 'href="gpu%FF/index.html"' in (tmp_path / "index.html").read_text(encoding="utf-8")
    page = (machine / "index.html").read_text(encoding="utf-8")
    assert 'href="run%FE.json"' in page
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
    page = (machine / "index.html").read_text(encoding="utf-8")
    assert page.count("<details class=\"result\"") == 1  # r.json; deep.json is linked
    assert f'href="{"d/" * 1100}deep.json"' in page


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
