"""The toolkit's markdown of a hostile result in a real browser: headless Chromium driven by
Playwright, as test_html_browser.py drives the HTML pages.

A result whose every text field (GPU name, driver, UUID, a context key and value, benchmark and
family names, a figure's unit) holds a script, an element with an event handler, a javascript:
link, image and autolink is rendered by compare --markdown, report.md, fleet --markdown,
stability --markdown, ratios --sentences and the gate's lines; each is made HTML with raw HTML
kept (markdown-it-py, CommonMark with GitHub's tables), as a renderer that keeps it does, and
opened: no script runs, and no script, event handler or javascript: address is in the page.
Without a browser these tests skip, or fail where GPUBENCH_BROWSER_TESTS=required (CI)."""

import base64
from pathlib import Path
from typing import Any

import pytest
from test_html_browser import Opened, browser  # noqa: F401 (browser: the fixture)
from gbench_builder import document
from hostile_inputs import write_result
from test_launch_ratios import RATIOS, paired_entries
from test_markdown_escaping import MARKDOWN, hostile_document, printed, write_pair

from gpubench_tools.cli import compare as compare_command
from gpubench_tools.cli import fleet as fleet_command
from gpubench_tools.cli import ratios as ratios_command
from gpubench_tools.cli import stability as stability_command
from gpubench_tools.models.comparison import compare
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.safe_text import markdown_code, markdown_text
from gpubench_tools.renderers.markdown_report import report_markdown

# Each sets window.ran where it runs: a script, event handlers, javascript: addresses.
ATTACK = ('<script>window.ran="script"</script><img src=x onerror=window.ran="img">'
          '[link](javascript:window.ran="link")![img](javascript:window.ran="image")'
          '<javascript:window.ran="autolink"><svg onload=window.ran="svg">'
          '<details open ontoggle=window.ran="toggle">')
# A name's parts and a family's name hold no "/": the same attack without closing tags.
ATTACK_IN_NAME = ATTACK.replace("</script>", "").replace("/", "")
FIELDS = {"gpu": ATTACK, "driver": ATTACK, "uuid": ATTACK, "key": ATTACK, "value": ATTACK,
          "other_value": ATTACK + "2", "unit": ATTACK, "name": ATTACK_IN_NAME,
          "family": ATTACK_IN_NAME + "f"}
# What may run or lead to code: any script, on* attribute, or javascript: address.
FOUND = """() => {
  const found = [...document.querySelectorAll('script')].map(e => e.outerHTML);
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) {
      if (a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value)) found.push(e.outerHTML);
    }
  }
  return found.concat([...document.querySelectorAll('a')].map(e => e.outerHTML));
}"""


def markdown_outputs(folder: Path) -> dict[str, str]:
    """Every markdown the toolkit writes, of a result hostile in every text field."""
    base, new = write_pair(FIELDS, folder)
    comparison = compare(load(base), load(new), compare_command.rules_from(
        compare_command.parse_args([str(base), str(new)])), True)
    fleet = folder / "fleet"
    fleet.mkdir()
    for gpu in range(4):
        doc = hostile_document(FIELDS)
        doc["context"].update(gpu_uuid=f"{ATTACK}{gpu}", host_name=f"{ATTACK}{gpu}")
        write_result(fleet / f"gpu{gpu}.json", doc)
    one = write_result(folder / "one.json", hostile_document(FIELDS))
    (folder / "family0.png").write_bytes(base64.b64decode(  # report.md's figure: 1 x 1 pixel
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="))
    paired = write_result(folder / "paired.json", document(
        paired_entries(0, {(ATTACK_IN_NAME, "runtime"): RATIOS[("driver", "runtime")]}),
        gpu_name=ATTACK))
    return {
        "compare": printed(compare_command.main, "--markdown", "--report", base, new),
        "report": report_markdown(comparison, [folder / "family0.png"], False),
        "fleet": printed(fleet_command.main, fleet, "--min-gpus", "3", "--markdown"),
        "stability": printed(stability_command.main, one, "--markdown"),
        "ratios": printed(ratios_command.main, paired, "--sentences")
                  + printed(ratios_command.main, paired, "--markdown"),
        "gate": (f"Confirmed by 5 more runs: {markdown_code(ATTACK)}\n\n"
                 f"{markdown_text('gpubench-tools compare: ' + ATTACK)}\n"),
    }


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("markdown")
    paths = {}
    for name, markdown in markdown_outputs(folder).items():
        path = folder / f"{name}.html"
        path.write_text(f"<!doctype html><meta charset=utf-8><title>{name}</title>\n"
                        + MARKDOWN.render(markdown), encoding="utf-8")
        paths[name] = path
    return paths


@pytest.mark.parametrize("output", ["compare", "report", "fleet", "stability", "ratios",
                                    "gate"])
def test_no_script_runs_from_a_hostile_results_markdown(browser: Any,  # noqa: F811
                                                        pages: dict[str, Path],
                                                        output: str) -> None:
    opened = Opened(browser, pages[output])
    opened.page.wait_for_timeout(100)  # an image's onerror, a details' ontoggle
    assert opened.page.evaluate("() => window.ran === undefined"), \
        opened.page.evaluate("() => window.ran")
    assert opened.page.evaluate(FOUND) == []
    assert opened.messages == []
    # The attack shows as text.
    assert "window.ran" in opened.page.inner_text("body")
