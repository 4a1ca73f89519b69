"""gpubench-tools report --format=html -o report.html (html_report): the page's content, its
self-containedness, its escaping of whatever a result file holds, its size on three full runs, and
its errors."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import H200, RunScript
from gbench_builder import (
    copy_run,
    document,
    full_suite,
    peer_run,
    recorded_baseline,
    run_entries,
    write_json,
)
from hostile_inputs import hostile_text, result_with_names, write_result
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gpubench_tools.models.comparison import Rules
from gpubench_tools.models.run_series import curves_and_singles, select_device
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers import html_page, html_report

RULES = Rules(threshold=3.0, host_threshold=25.0, sigmas=2.0, alpha=0.05)
# Three recordings of the default suite, 598 benchmarks each: aa_1 and aa_2 five runs merged,
# suite_after one run.
FULL_RUNS = [H200 / "verdicts" / "aa_1.json.gz", H200 / "verdicts" / "aa_2.json.gz",
             H200 / "speed" / "suite_after.json"]
MAX_REPORT_BYTES = 5 * 2**20
FIVE = [10.0, 10.1, 10.2, 10.1, 10.0]  # GB/s of five repetitions
# Every element the pages are made of: a file's text never adds one.
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "script", "h1", "h2", "h3", "h4",
             "p", "b", "ul", "li", "span", "div", "label", "input", "table", "thead", "tbody",
             "tr", "th", "td", "caption", "details", "summary", "section", "figure",
             "figcaption", "a", "svg", "defs", "g", "path", "use", "clippath", "rect", "text"}


class Elements(HTMLParser):
    """The elements and attributes of a page, as a browser's parser finds them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def elements(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def assert_no_markup_from_files(page: str) -> None:
    found = elements(page)
    assert set(found.tags) <= PAGE_TAGS, set(found.tags) - PAGE_TAGS
    assert found.tags.count("script") == 1 and found.scripts == [html_page.SCRIPT]
    names = {name for name, _ in found.attributes}
    assert not {n for n in names if n.startswith("on")}, names
    hrefs = [v for n, v in found.attributes if n in ("href", "src")]
    assert not [h for h in hrefs if h and re.match(r"\s*(javascript|data|https?):", h, re.I)]


def panel_titles(page: str) -> list[str]:
    """Each panel's family/panel, the first of the names the filter matches."""
    return re.findall(r'<figure class="panel" data-name="([^" ]*)', page)


def panel_names(page: str) -> list[str]:
    return re.findall(r'<figure class="panel" data-name="([^"]*)"', page)


@pytest.fixture
def three_gpus(tmp_path: Path) -> list[Path]:
    peers = [e for pair in ((0, 1), (1, 0)) for size in (4096, 2**20, 2**26)
             for e in peer_run("ce", "read", *pair, size, [300.0, 310.0, 305.0])]
    return [
        write_json(tmp_path / "h200.json", document(full_suite(8.0, 50.0) + peers)),
        write_json(tmp_path / "h100.json", document(full_suite(10.0, 25.0),
                                                    gpu_name="NVIDIA H100",
                                                    driver_version="550.54.15")),
        write_json(tmp_path / "b200.json", document(full_suite(6.0, 60.0),
                                                    gpu_name="NVIDIA B200",
                                                    driver_version="580.65.06")),
    ]


def test_html_report_of_three_gpus(tmp_path: Path, run_script: RunScript,
                                   three_gpus: list[Path]) -> None:
    out = tmp_path / "report.html"
    proc = run_script("report", "--format=html", *three_gpus, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"wrote {out}"
    assert [line.split(":")[0] for line in proc.stdout.splitlines()[1:]] == ["REPORT", "REPORT"]
    page = out.read_text(encoding="utf-8")
    assert_no_markup_from_files(page)
    # The verdict first, then the runs and their differences, then the families.
    order = [page.index(s) for s in ("<h2>Verdict</h2>", "<h2>Runs</h2>",
                                     "<h2>Context differences</h2>", 'class="family"')]
    assert order == sorted(order)
    for label in ("NVIDIA H200, driver 570.86.15", "NVIDIA H100, driver 550.54.15",
                  "NVIDIA B200, driver 580.65.06"):
        assert label in page
    assert "h200.json" not in page.split("<h2>Runs</h2>")[0]  # labelled by GPU, not file
    # Every series of every run in one panel, a family's variants overlaid (saxpy's three in
    # one); the peer matrices of the first run.
    series = {f"{c.family}/{c.series}" for p in three_gpus
              for c in curves_and_singles(load(p))[0]}
    names = panel_names(page)
    assert all(sum(s in n.split() for n in names) == 1 for s in series)
    assert len(names) == len(set(panel_titles(page))) < len(series)
    assert panel_titles(page).count("saxpy/saxpy") == 1
    assert page.count('class="matrix run-0"') == 1 and "from 0" in page and "to 1" in page
    # Files without facts: an argument of no unit, labelled as the number it is.
    assert ">2²⁰<" in page and "argument (no unit in the file)" in page
    # Every run drawn in each panel it has data for, with its ratios to the first run.
    assert page.count('<g class="run-1">') == page.count('<g class="run-2">') > 0
    assert "× better than the first file" in page
    # Self-contained: nothing is fetched at view time.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    # Only the figures' own clip paths are referenced, within the page.
    assert "@import" not in page and not re.search(r"url\((?!#p)", page)


def test_panels_are_matplotlib_svg_inlined_small(tmp_path: Path, three_gpus: list[Path]) -> None:
    """Each panel is the figure gpubench-tools plot draws, as SVG: text as text, no XML
    declaration, metadata, comments or style block of matplotlib's, no generated ids; a run's
    marks a group of class run-<index> for the page's checkboxes."""
    results = [load(p) for p in three_gpus]
    page = html_report.build_report(results, RULES, True, [False] * 3).html
    svgs = re.findall(r"<svg .*?</svg>", page)
    assert svgs and all(s.startswith('<svg class="figure" role="img" aria-label=') for s in svgs)
    for unwanted in ("<?xml", "<!DOCTYPE", "<metadata", "<!--", "<style", 'id="line2d',
                     'id="axes_', 'id="figure_', "\n"):
        assert unwanted not in "".join(svgs), unwanted
    assert ">GB/s (higher is better)</text>" in page  # svg.fonttype none: text, not paths
    assert set(re.findall(r'<g class="(run-[0-9]+)">', page)) == {"run-0", "run-1", "run-2"}
    # One style for all: the rule matplotlib repeats per figure is the page's, once.
    assert page.count("stroke-linejoin:round") == 1


def test_largest_change_first(tmp_path: Path, run_script: RunScript) -> None:
    # Five distinct repetitions a side: halved, they part fully, p = 0.008 (ties would leave
    # the U test's normal approximation, p = 0.011, above the 0.01 it needs).
    distinct = [10.0, 10.1, 10.2, 10.15, 10.05]
    base = write_json(tmp_path / "a.json", recorded_baseline(
        copy_run("HtoD", "pinned", "async", 4096, FIVE)
        + copy_run("DtoH", "pinned", "async", 4096, distinct)))
    new = write_json(tmp_path / "b.json", document(
        copy_run("HtoD", "pinned", "async", 4096, FIVE)
        + copy_run("DtoH", "pinned", "async", 4096, [v / 2 for v in distinct])))
    out = tmp_path / "r.html"
    assert run_script("report", "--format=html", base, new, "-o", out).returncode == 0
    page = out.read_text(encoding="utf-8")
    assert panel_titles(page) == ["copy/DtoH", "copy/HtoD"]
    assert "2.00× slower" in page and 'class="verdict-SLOWER">SLOWER' in page
    assert "FAIL: 1 of 2 benchmark(s) regressed" in page


def test_device_of_a_file_of_several_gpus(tmp_path: Path, run_script: RunScript) -> None:
    one = write_json(tmp_path / "one.json", document(
        copy_run("HtoD", "pinned", "async", 2**20, [50.0, 51.0, 52.0])))
    entries = []
    for device, gbps in ((0, 40.0), (1, 60.0)):
        for e in copy_run("HtoD", "pinned", "async", 2**20, [gbps, gbps + 1, gbps + 2]):
            e = dict(e, name=e["name"].replace("/manual_time", f"/device:{device}/manual_time"),
                     run_name=e["run_name"].replace("/manual_time",
                                                    f"/device:{device}/manual_time"))
            entries.append(e)
    two = write_json(tmp_path / "two.json", document(
        entries, device_1="NVIDIA H200, GPU-1111, 0000:00:07.0", gpu_ordinal="0"))
    out = tmp_path / "r.html"
    proc = run_script("report", "--format=html", one, two, "-o", out)
    assert proc.returncode == 2 and proc.stderr == \
        f"gpubench-tools report: {two}: benchmarks on devices 0, 1: choose one with --device\n"
    proc = run_script("report", "--format=html", one, two, "--device", "1", "-o", out, "--report")
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    assert "NVIDIA H200, driver 570.86.15, GPU 1" in page  # of how many: no gpu_count here
    assert "1.20× faster" in page  # 61 GB/s on device 1 against 51
    assert "GPU-1111" in page  # the context of device 1, not device 0
    proc = run_script("report", "--format=html", one, two, "--device", "2", "-o", out)
    assert proc.returncode == 2 and "no benchmark on device 2 (it has 0, 1)" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["{a}", "-o", "{out}"], "give at least two result files"),
    (["{a}", "{b}", "-o", "{dir}/"], "exists and is not a regular file"),
    (["{a}", "{b}", "-o", "{dir}/missing/r.html"], "No such file or directory"),
    (["{a}", "{peer}", "-o", "{out}"], "no benchmark in common with"),
    (["{a}", "{b}", "-o", "{out}", "--device", "x"], "must be a device number"),
    (["{a}", "{b}", "-o", "{out}", "--filter", "^nothing"],
     "no benchmark that --filter=^nothing finds"),
    (["{a}", "{b}", "-o", "{out}", "--filter", "(.*.*)*X$"], "takes longer than"),
])
def test_bad_usage_is_one_line(tmp_path: Path, run_script: RunScript, args: list[str],
                               message: str) -> None:
    a = write_json(tmp_path / "a.json", document(full_suite()))
    peer = write_json(tmp_path / "p.json", document(peer_run("ce", "read", 0, 1, 4096, 300.0)))
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.html").mkdir()
    values = {"a": a, "b": a, "peer": peer, "out": tmp_path / "r.html", "dir": tmp_path / "d"}
    filled = [arg.format(**values) for arg in args]
    if filled[-1].endswith("/"):
        filled[-1] = str(tmp_path / "d" / "x.html")
    proc = run_script("report", "--format=html", *filled)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.startswith("gpubench-tools report: ") and proc.stderr.count("\n") == 1
    assert message in proc.stderr


@pytest.mark.parametrize(("format_", "writes"), [([], "folder"), (["--format=markdown"], "folder"),
                                                (["--format=html"], "page")])
def test_the_format_names_what_is_written(tmp_path: Path, run_script: RunScript,
                                          format_: list[str], writes: str) -> None:
    """--format, never the output's name, decides: a folder for markdown, a page for html,
    whatever -o ends with."""
    a = write_json(tmp_path / "a.json", document(full_suite()))
    out = tmp_path / "r.html"
    proc = run_script("report", *format_, a, a, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.is_dir() if writes == "folder" else out.is_file()


def test_an_abbreviated_option_is_refused(tmp_path: Path, run_script: RunScript) -> None:
    a = write_json(tmp_path / "a.json", document(full_suite()))
    proc = run_script("report", "--form=html", a, a, "-o", tmp_path / "r")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gpubench-tools report: ") and not (tmp_path / "r").exists()


def test_three_full_runs_make_a_page_under_5_mb(tmp_path: Path, run_script: RunScript) -> None:
    out = tmp_path / "full.html"
    proc = run_script("report", "--format=html", *FULL_RUNS, "-o", out)
    assert proc.returncode == 0, proc.stderr
    size = out.stat().st_size
    assert 100_000 < size < MAX_REPORT_BYTES, size
    page = out.read_text(encoding="utf-8")
    benchmarks = len(load(FULL_RUNS[0]).benchmarks)
    assert page.count("<use ") >= 3 * benchmarks - 30  # nearly every benchmark drawn


# In-process, about two seconds each (a page of figures). No shrinking: a failing example is
# reported as found.
@settings(max_examples=4, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(names=st.lists(hostile_text, min_size=1, max_size=3),
       other=st.sampled_from(["<script>alert(1)</script>", "</style><b>", '"><svg onload=x>',
                              "$x$", "&amp;", "]]><!--", "</svg></figure>"]))
def test_hostile_names_never_become_markup(tmp_path_factory: pytest.TempPathFactory,
                                           names: list[str], other: str) -> None:
    work = tmp_path_factory.mktemp("hostile")
    doc = result_with_names([*names, other])
    first = write_result(work / "a.json", doc)
    second = write_result(work / "b.json", dict(doc, context=dict(
        doc["context"], gpu_name=other, driver_version=names[0], host_name=other)))
    results = [load(first), load(second)]
    page = html_report.build_report(results, RULES, True, [False, False]).html
    assert_no_markup_from_files(page)
    page.encode("utf-8")  # no lone surrogate left


def test_context_differences_show_health_fields(tmp_path: Path) -> None:
    health = {"ecc_volatile_uncorrected": 0, "xid_events": []}
    a = write_json(tmp_path / "a.json", document(full_suite(),
                                                 gpu_health_after=json.dumps(health)))
    b = write_json(tmp_path / "b.json", document(
        full_suite(), gpu_health_after=json.dumps(dict(health, xid_events=[79]))))
    page = html_report.build_report([load(a), load(b)], RULES, True, [False] * 2).html
    context = page.split("<h2>Context differences</h2>")[1].split("<section")[0]
    assert 'data-name="gpu_health_after.xid_events"' in context
    assert "ecc_volatile_uncorrected" not in context  # the same in both


def test_a_health_record_one_run_lacks_is_one_row(tmp_path: Path) -> None:
    """A record the first run lacks (a device only the second machine has) is one row, not a
    row of `(absent)` per field."""
    health = {"ecc_volatile_uncorrected": 0, "xid_events": []}
    a = write_json(tmp_path / "a.json", document(full_suite()))
    b = write_json(tmp_path / "b.json", document(full_suite(),
                                                 device_1_health_after=json.dumps(health)))
    page = html_report.build_report([load(a), load(b)], RULES, True, [False] * 2).html
    context = page.split("<h2>Context differences</h2>")[1].split("<section")[0]
    assert 'data-name="device_1_health_after"' in context
    assert "device_1_health_after." not in context


def test_a_benchmark_named_with_and_without_the_device_is_one_line(tmp_path: Path,
                                                                    run_script: RunScript) -> None:
    """`.../4096` beside `.../4096/device:0`: taking device 0, one replaced the other, whichever
    the file lists later, so one file in two orders compared as 9.9 times slower."""
    bare = copy_run("HtoD", "pinned", "async", 4096, [10.0, 10.1, 9.9])
    named = [e for d in (0, 1) for e in run_entries(
        f"copy/HtoD/pinned/async/4096/device:{d}/manual_time",
        [{"real_time": 1.0, "bytes_per_second": 99e9, "us_per_copy": 1.0}])]
    first = write_json(tmp_path / "a.json", document(bare + named))
    second = write_json(tmp_path / "b.json", document(named + bare))
    proc = run_script("report", "--format=html", first, second, "--device", "0", "-o",
                      tmp_path / "r.html")
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr == (f"gpubench-tools report: {first}: copy/HtoD/pinned/async/4096 is named "
                           "both with and without /device:0\n")
    assert not (tmp_path / "r.html").exists()


def test_select_device_keeps_a_file_of_one_gpu() -> None:
    result = load(FULL_RUNS[0])
    assert select_device(result, None) is result


def test_the_clocks_line_shows_nvml_and_the_kernels_reading(tmp_path: Path) -> None:
    """A family's SM clocks: NVML's at the loops' ends, and the range its kernels read after
    them (sm_clock_kernel_mhz); a run that wrote neither adds no line."""
    entries = copy_run("HtoD", "pinned", "async", 4096, FIVE)
    for entry in entries:  # the same clock in every repetition: a spread of 0
        mhz = 0.0 if entry.get("aggregate_name") in ("stddev", "cv") else 1980.0
        entry.update(sm_clock_start_mhz=mhz, sm_clock_end_mhz=mhz)
    for entry, mhz in zip((e for e in entries if e["run_type"] == "iteration"),
                          (1980.0, 1975.0, 1500.0, 1980.0, 1980.0)):
        entry["sm_clock_kernel_mhz"] = mhz
    result = load(write_json(tmp_path / "r.json", document(entries)))
    runs = [html_report.run_figures(1, "run", result)]
    line = html_report.clocks_line("copy", runs)
    assert "run: 1980 MHz, read by its kernels 1980 MHz" in line
    bare = load(write_json(tmp_path / "b.json", document(copy_run("HtoD", "pinned", "async",
                                                                         4096, FIVE))))
    assert html_report.clocks_line("copy", [html_report.run_figures(1, "run", bare)]) == ""


def test_the_page_shows_paired_launch_ratios_and_whether_the_runs_agree(
        tmp_path: Path, run_script: RunScript) -> None:
    # The committed pooled recordings agree on every ratio; a copy with one ratio moved clear
    # of the others' intervals shows that ratio as not shared.
    first, second = H200 / "launch_paired_a.json", H200 / "launch_paired_b.json"
    moved = json.loads(second.read_text())
    for bench in moved["benchmarks"]:
        # Every repetition and aggregate scaled alike; a cv, relative, stays as it is.
        if bench["name"].startswith("launch/paired/submit/params:0/") \
                and bench.get("aggregate_name") != "cv":
            for key in ("driver_vs_runtime", "driver_vs_runtime_lo", "driver_vs_runtime_hi"):
                bench[key] *= 1.5
    parted = tmp_path / "moved.json"
    parted.write_text(json.dumps(moved))
    out = tmp_path / "r.html"
    done = run_script("report", "--format=html", first, second, parted, "-o", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "Launch paths against each other (launch/paired/)" in text
    assert "112 of 113 ratios measured by two or more runs agree" in text
    assert "Pooled over 5 separate processes" in text
    row = re.search(r'<tr data-name="launch/paired/submit/params:0">'
                    r'<td>launch/paired/submit/params:0</td><td>driver</td><td>runtime</td>'
                    r'.*?</tr>', text)
    assert row is not None and row.group(0).endswith("<td>NO</td></tr>")


def chain_of_pairs(gpus: int) -> dict:
    """Peer copies 0to1, 1to2, ...: pairs naming `gpus` GPUs, one series."""
    return document([e for gpu in range(gpus - 1)
                     for e in peer_run("ce", "read", gpu, gpu + 1, 4096, 300.0)])


def test_a_matrix_of_more_gpus_than_gpubench_measures_is_one_line(
        tmp_path: Path, run_script: RunScript) -> None:
    """A matrix is a table of GPUs by GPUs: a file naming 10 000 GPUs in a chain of pairs would
    make 10^8 cells. Past the 64 gpubench measures at once, one line and no page; 64 are drawn."""
    most = write_json(tmp_path / "most.json", chain_of_pairs(64))
    out = tmp_path / "r.html"
    proc = run_script("report", "--format=html", most, most, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8").count('<td class="cell"') == 64 * 64 * 2
    out.unlink()
    over = write_json(tmp_path / "over.json", chain_of_pairs(65))
    proc = run_script("report", "--format=html", most, over, "-o", out)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"gpubench-tools report: {over}: peer/ce/read/*: pairs of more than 64 "
                           "GPUs, the most gpubench measures at once\n")
    assert not out.exists()
