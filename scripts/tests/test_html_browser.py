"""The HTML report and the gallery in a real browser: headless Chromium driven by Playwright.

Each page must render without a console message or a script error, show every figure, hide a
run when its checkbox is cleared and narrow the figures to a filter's text; a report of three
full runs must load in under 2 s, and each page of the committed results' gallery in under 1 s
and 2 MB, its filter showing the figures whose benchmark or file matches. The browser is the
one find_chromium.py finds; without it, or without the playwright package, these tests skip
with the reason, or fail with it where GPUBENCH_BROWSER_TESTS=required (as .ci/run sets).
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from find_chromium import NO_CHROMIUM, NO_PLAYWRIGHT, chromium_path
from gbench_builder import document, full_suite, peer_run, write_json
from test_html_report import FULL_RUNS, MAX_REPORT_BYTES, RULES

from gpubench_tools.cli import gallery as gallery_command
from gpubench_tools.models.run_series import curves_and_singles
from gpubench_tools.reading.result_file import load
from gpubench_tools.renderers import html_report

MAX_RENDER_MS = 2000
# Playwright waits this long for the page's load event; a page that needs longer fails.
LOAD_TIMEOUT_MS = 20_000


def no_browser(reason: str) -> None:
    """Skips, or fails where the browser tests are required (CI)."""
    if os.environ.get("GPUBENCH_BROWSER_TESTS") == "required":
        pytest.fail(f"GPUBENCH_BROWSER_TESTS=required, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        no_browser(NO_PLAYWRIGHT)
    with sync_playwright() as playwright:
        path = chromium_path(playwright.chromium.executable_path)
        if path is None:
            no_browser(NO_CHROMIUM)
        chromium = playwright.chromium.launch(executable_path=path)
        yield chromium
        chromium.close()


class Opened:
    """A page opened from a file, with every console message and script error it raised."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.messages: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.on("console", lambda m: self.messages.append(f"console {m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.messages.append(f"page error: {e}"))
        self.page.goto(path.resolve().as_uri(), wait_until="load", timeout=LOAD_TIMEOUT_MS)

    def load_ms(self) -> float:
        return self.page.evaluate(
            "performance.getEntriesByType('navigation')[0].loadEventEnd")

    def visible(self, selector: str) -> int:
        return self.page.evaluate(
            "s => [...document.querySelectorAll(s)].filter(e => e.getClientRects().length"
            " > 0).length", selector)

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()


@pytest.fixture
def report_of_three(tmp_path: Path) -> tuple[Path, list[str]]:
    peers = [e for pair in ((0, 1), (1, 0)) for size in (4096, 2**20)
             for e in peer_run("ce", "read", *pair, size, [300.0, 310.0, 305.0])]
    paths = [write_json(tmp_path / "a.json", document(full_suite(8.0, 50.0) + peers)),
             write_json(tmp_path / "b.json", document(full_suite(10.0, 25.0),
                                                      gpu_name="NVIDIA H100")),
             write_json(tmp_path / "c.json", document(full_suite(6.0, 60.0),
                                                      gpu_name="NVIDIA B200"))]
    results = [load(p) for p in paths]
    out = tmp_path / "report.html"
    out.write_text(html_report.build_report(results, RULES, True, [False] * 3).html,
                   encoding="utf-8")
    series = sorted({f"{c.family}/{c.series}" for r in results
                     for c in curves_and_singles(r)[0]})
    return out, series


def test_report_renders_every_figure(browser: Any, report_of_three: tuple[Path, list[str]]
                                     ) -> None:
    path, series = report_of_three
    opened = Opened(browser, path)
    assert opened.messages == []
    names = opened.page.eval_on_selector_all(
        "figure.panel", "els => els.map(e => e.dataset.name.split(' '))")
    # Every series in one panel, with the others of its panel (a family's variants overlaid).
    assert all(sum(s in n for n in names) == 1 for s in series) and len(names) < len(series)
    assert opened.visible("figure.panel svg") == opened.count("figure.panel svg") == len(names)
    boxes = opened.page.eval_on_selector_all(
        "figure.panel svg", "els => els.map(e => e.getBoundingClientRect().height)")
    assert min(boxes) > 50  # drawn, not collapsed
    assert opened.visible("table.matrix") == 1


def test_a_run_hides_and_shows_again(browser: Any, report_of_three: tuple[Path, list[str]]
                                     ) -> None:
    opened = Opened(browser, report_of_three[0])
    drawn = opened.visible("svg .run-1")
    assert drawn > 10 and opened.visible("svg .run-0") > 10
    opened.page.uncheck("#run-1")
    assert opened.visible("svg .run-1") == 0
    assert opened.visible("svg .run-0") > 10 and opened.visible("svg .run-2") > 10
    opened.page.check("#run-1")
    assert opened.visible("svg .run-1") == drawn
    assert opened.messages == []


def test_the_filter_narrows_the_figures(browser: Any, report_of_three: tuple[Path, list[str]]
                                        ) -> None:
    path, series = report_of_three
    opened = Opened(browser, path)
    panels = opened.count("figure.panel")
    opened.page.fill("#filter", "dtoh")
    assert [s for s in series if "dtoh" in s.lower()]
    assert opened.visible("figure.panel") == 1  # copy's DtoH panel, its variants overlaid
    opened.page.fill("#filter", "")
    assert opened.visible("figure.panel") == panels
    assert opened.messages == []


def test_three_full_runs_render_in_under_2_s(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "full.html"
    results = [load(p) for p in FULL_RUNS]
    out.write_text(html_report.build_report(results, RULES, False, [False] * 3).html,
                   encoding="utf-8")
    assert out.stat().st_size < MAX_REPORT_BYTES
    opened = Opened(browser, out)
    assert opened.messages == []
    assert opened.load_ms() < MAX_RENDER_MS
    assert opened.visible("figure.panel") >= 15  # a panel per group of series


def test_gallery_links_every_figure_to_its_json(browser: Any, tmp_path: Path) -> None:
    root = tmp_path / "results"
    for folder in ("gpu_a", "gpu_b/sub", "limits"):
        (root / folder).mkdir(parents=True)
    write_json(root / "gpu_a" / "suite.json", document(full_suite()))
    write_json(root / "gpu_b" / "top.json", document(full_suite(), gpu_name="B"))
    write_json(root / "gpu_b" / "sub" / "suite.json", document(full_suite(), gpu_name="B"))
    (root / "gpu_b" / "README.md").write_text("# B\n\n## Headline results\n\n- `sub/suite.json`\n")
    (root / "limits" / "table.json").write_text('{"not": "a result"}')
    assert gallery_command.main([str(root)]) == 0
    index = Opened(browser, root / "index.html")
    assert index.messages == []
    machines = index.page.eval_on_selector_all("ul.machines a", "els => els.map(e => e.href)")
    assert [Path(m.removeprefix("file://")) for m in machines] == [
        root / "gpu_a" / "index.html", root / "gpu_b" / "index.html"]
    assert "table.json" in index.page.inner_text("body")  # listed as left out
    opened = Opened(browser, root / "gpu_b" / "index.html")
    assert opened.messages == []
    assert opened.count("details.result") == 1 and opened.visible("figure.panel") > 3
    links = opened.page.eval_on_selector_all("a[href$='.json']", "els => els.map(e => e.href)")
    assert links and all(Path(link.removeprefix("file://")).is_file() for link in links)
    assert {os.path.relpath(link.removeprefix("file://"), root) for link in links} == {
        "gpu_b/sub/suite.json", "gpu_b/top.json"}
    opened.page.fill("#filter", "top.json")
    assert opened.visible("details.result") == 0 and opened.visible("li[data-name]") == 1


# The committed results' gallery: each page must stay small and quick to open.
# test_derived_results holds each committed page to what gpubench-tools gallery writes today.
MAX_GALLERY_PAGE_BYTES = 2 * 10**6
MAX_GALLERY_LOAD_MS = 1000
RESULTS = Path(__file__).resolve().parents[2] / "results"


@pytest.fixture(scope="module")
def committed_gallery() -> dict[str, Path]:
    """The index ("") and each machine's page, by machine."""
    index = RESULTS / "index.html"
    return {"": index, **{p.parent.name: p for p in RESULTS.glob("*/index.html")}}


def test_each_gallery_page_is_small_and_quick(browser: Any,
                                              committed_gallery: dict[str, Path]) -> None:
    assert {"", "h200", "h200x2"} <= set(committed_gallery)
    for name, path in committed_gallery.items():
        assert path.stat().st_size < MAX_GALLERY_PAGE_BYTES, name
        loads = []
        for _ in range(3):  # the quickest of three: a loaded machine slows one now and then
            opened = Opened(browser, path)
            assert opened.messages == [], name
            loads.append(opened.load_ms())
            opened.page.close()
        assert min(loads) < MAX_GALLERY_LOAD_MS, (name, loads)


def shown_panels(opened: Opened) -> list[tuple[str, str, bool]]:
    """(file path, panel title, shown) of every panel of the page."""
    return opened.page.eval_on_selector_all("figure.panel", """els => els.map(e => [
        e.closest('details.result').dataset.name, e.dataset.name, e.getClientRects().length > 0])
    """)


@pytest.mark.parametrize("text", ["vec4_tile", "copy/HtoD", "ci_baseline", "SAXPY/Vec4"])
def test_the_gallery_filter_shows_a_benchmark_or_a_file(
        browser: Any, committed_gallery: dict[str, Path], text: str) -> None:
    """A panel is shown where its name or its file's path holds the text, ignoring case,
    and hidden where neither does."""
    opened = Opened(browser, committed_gallery["h200"])
    assert all(shown for _, _, shown in shown_panels(opened))
    opened.page.fill("#filter", text)
    panels = shown_panels(opened)
    wanted = [text.lower() in f"{path}\n{title}".lower() for path, title, _ in panels]
    assert [shown for _, _, shown in panels] == wanted
    assert 0 < sum(wanted) < len(panels)
    opened.page.fill("#filter", "")
    assert all(shown for _, _, shown in shown_panels(opened))
    assert opened.messages == []
