"""Markdown the toolkit writes shows text from a result file as that text: compare --markdown,
report.md, fleet --markdown, stability --markdown, ratios --markdown and --sentences, and the
gate's lines (safe_text.markdown_text, markdown_code).

Hostile text is generated for every text field a result holds (GPU name, driver, UUID, a context
key and value, a benchmark's name, a family's name, a figure's unit) and the output is parsed by
markdown-it-py, a CommonMark parser, with raw HTML kept and GitHub's tables and strikethrough on:
no HTML, link, image, code, emphasis, quote, rule or numbered list is there but those the
toolkit writes, and the text reads as the file holds it."""

import contextlib
import copy
import html
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from family_facts import with_facts
from gbench_builder import copy_run, document, launch_run, recorded, saxpy_run, scaled
from hostile_inputs import write_fleet_of, write_result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_launch_ratios import RATIOS, paired_entries

from gpubench_tools.cli import compare as compare_command
from gpubench_tools.cli import fleet as fleet_command
from gpubench_tools.cli import ratios as ratios_command
from gpubench_tools.cli import stability as stability_command
from gpubench_tools.models.comparison import compare
from gpubench_tools.reading.facts import unit_bigger_is_better
from gpubench_tools.reading.result_file import load
from gpubench_tools.reading.safe_text import markdown_code, markdown_text, printable
from gpubench_tools.renderers.markdown_report import report_markdown
from gpubench_tools.renderers.text_table import render

# Installed from scripts/requirements-test.txt; a machine without it (the GPU machines) skips
# these, and test_markdown_browser.py, which imports this file.
MarkdownIt = pytest.importorskip("markdown_it").MarkdownIt
# What a renderer that keeps raw HTML, as GitHub's does with <details>, reads.
MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

# Markup of every kind CommonMark and GitHub read, and what takes a writer's escaping apart.
MARKUP = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<b>", "</details>",
          "<!-- c -->", "[link](javascript:alert(1))", "![img](javascript:alert(1))",
          "<javascript:alert(1)>", "<https://x.test>", "[x]: javascript:alert(1)", "[x]", "`",
          "``code``", "*em*", "**strong**", "_em_", "__strong__", "~~del~~", "$x$", "# h", "#",
          "- item", "+ ", "* ", "1. ", "2)", "> ", "---", "===", "    ", "|", "||", "&lt;",
          "&#60;", "&amp;", "\\", "\\<b>", "\\*", "!", "[", "]", "(", ")", "<", ">", "a_b",
          "_", "\n", "\r\n", "\u2028", "\t", " ", "x", "é", "GPU-1"]
piece = st.one_of(st.sampled_from(MARKUP),
                  st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=4))
hostile = st.lists(piece, min_size=1, max_size=6).map("".join).filter(lambda t: t.strip())
# A path component of a benchmark's name, or a family's name: no "/", and not a number, which
# a name grammar may read as a size.
component = hostile.map(lambda t: t.replace("/", "")).filter(
    lambda t: t.strip() and not t.strip().isdigit())

# The toolkit's own HTML: each family's table folded under its title.
OWN_HTML = re.compile(r"<details><summary>[^<]*</summary>\n|</details>\n?")
# Tokens only text from a file could have made; (type, where) is allowed per output below.
NEVER = {"link_open", "image", "html_inline", "em_open", "strong_open", "s_open",
         "blockquote_open", "ordered_list_open", "code_block", "fence", "hr", "hardbreak"}


def tokens(markdown: str) -> Iterator[Any]:
    for token in MARKDOWN.parse(markdown):
        yield token
        yield from token.children or ()


def check_markup(markdown: str, *, lists: bool = False, headings: bool = False,
                 code: Callable[[str], bool] = lambda _: False,
                 images: tuple[str, ...] = ()) -> None:
    """No markup in `markdown` but the toolkit's: its headings and bullets where the output has
    them, its folded tables, the code spans `code` accepts, the figures `images` names."""
    for token in tokens(markdown):
        shown = f"{token.type} {token.content!r} in:\n{markdown}"
        if token.type == "image":
            assert token.attrs.get("src") in images, shown
        elif token.type == "code_inline":
            assert code(token.content), shown
        elif token.type == "html_block":
            assert OWN_HTML.fullmatch(token.content), shown
        elif token.type == "heading_open":
            assert headings and token.markup.startswith("#"), shown
        elif token.type == "bullet_list_open":
            assert lists, shown
        else:
            assert token.type not in NEVER, shown


def rendered_text(markdown: str) -> str:
    """The text a reader sees, its whitespace collapsed: tags dropped, references read."""
    text = re.sub(r"<[^>]*>", " ", MARKDOWN.render(markdown))
    return " ".join(html.unescape(text).split())


def seen(text: str) -> str:
    return " ".join(printable(text).split())


@given(hostile)
@settings(max_examples=300, deadline=None)
def test_text_renders_as_itself_wherever_a_writer_puts_it(text: str) -> None:
    """A line's start, a bullet, a heading, a table cell and a <details> summary (an HTML block,
    where only a character reference is read): the text and nothing else."""
    escaped, cell = markdown_text(text), markdown_text(text, starts_line=False)
    for markdown in (f"{escaped}\n", f"intro\n{escaped}\n", f"- {escaped}\n- b\n",
                     f"BASE: {escaped} (x)\n", f"### {escaped}\n",
                     f"| a | b |\n| --- | --- |\n| {cell} | {cell} |\n",
                     f"<details><summary>{escaped}</summary>\n\nbody\n\n</details>\n"):
        check_markup(markdown, lists=markdown.startswith("- "),
                     headings=markdown.startswith("#"))
        assert seen(text) in rendered_text(markdown), (text, markdown)
    assert "\n" not in escaped and "<" not in escaped and "|" not in cell


@given(hostile)
@settings(max_examples=200, deadline=None)
def test_a_code_span_shows_text_as_it_is(text: str) -> None:
    spans = [t for t in tokens(f"run {markdown_code(text)} here\n") if t.type == "code_inline"]
    assert len(spans) == 1 and spans[0].content == printable(text), (text, spans)


@st.composite
def hostile_fields(draw: st.DrawFn) -> dict[str, str]:
    fields = {key: draw(hostile) for key in ("gpu", "driver", "uuid", "key", "value",
                                             "other_value")}
    # A unit that names a time or a rate ("h", "ms") says which way the figure is better, and
    # one saying the other way than saxpy's GB/s is refused as it should be: not this test's.
    fields["unit"] = draw(hostile.filter(lambda unit: unit_bigger_is_better(unit) is None))
    fields.update(name=draw(component), family=draw(component))
    return fields


def hostile_document(fields: dict[str, str]) -> dict[str, Any]:
    """A result whose every text field is hostile: the GPU's name, driver and UUID, a context
    key and value, a benchmark's name, a family's name and a figure's unit."""
    reps = [1.0, 1.01, 1.02, 0.99, 1.0]
    entries = (copy_run("HtoD", fields["name"], "async", 4096, [10 * r for r in reps])
               + copy_run("HtoD", "pinned", "async", 4096, [12 * r for r in reps])
               + saxpy_run("vec4", 2**20, [900 * r for r in reps], 3000.0)
               + launch_run(fields["name"], "submit", 0, [2 * r for r in reps]))
    doc = with_facts(document(entries, gpu_name=fields["gpu"], driver_version=fields["driver"],
                              gpu_uuid=fields["uuid"], **{fields["key"]: fields["value"]}))
    saxpy = next(f for f in doc["context"]["gpubench_families"]["families"]
                 if f["name"] == "saxpy")
    saxpy["figures"][0]["unit"] = fields["unit"]
    family = fields["family"]
    saxpy["name"], saxpy["grammar"] = family, saxpy["grammar"].replace("saxpy/", f"{family}/")
    for entry in doc["benchmarks"]:
        for key in ("name", "run_name"):
            if entry[key].startswith("saxpy/"):
                entry[key] = family + entry[key].removeprefix("saxpy")
    return doc


def printed(main: Callable[[list[str]], int], *args: object) -> str:
    """What a subcommand prints, run in this process."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape")
    with contextlib.redirect_stdout(stream):
        status = main([str(a) for a in args])
    stream.flush()
    out = stream.buffer.getvalue().decode("utf-8", "backslashreplace")
    assert status in (0, 1), f"exit {status}: {out}"
    return out


def write_pair(fields: dict[str, str], folder: Path) -> tuple[Path, Path]:
    """BASE and a NEW whose copies are 2× slower, holding another value of the hostile context
    key and a benchmark BASE lacks."""
    base = recorded(hostile_document(fields))
    new = scaled(hostile_document(fields), f"copy/HtoD/{fields['name']}/async/4096/manual_time",
                 0.5)
    new["context"][fields["key"]] = fields["other_value"]
    new["benchmarks"] += copy.deepcopy(copy_run("DtoH", fields["name"], "async", 4096,
                                                [10.0, 10.1, 10.2, 9.9, 10.0]))
    return (write_result(folder / "base.json", base), write_result(folder / "new.json", new))


def check_fields_shown(markdown: str, fields: dict[str, str], *keys: str) -> None:
    text = rendered_text(markdown)
    for key in keys:
        assert seen(fields[key]) in text, (key, fields[key], markdown)


PROPERTY = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@given(fields=hostile_fields())
@PROPERTY
def test_compare_and_report_markdown_hold_no_markup_of_the_files(
        tmp_path_factory: pytest.TempPathFactory, fields: dict[str, str]) -> None:
    folder = tmp_path_factory.mktemp("pair")
    base, new = write_pair(fields, folder)
    markdown = printed(compare_command.main, "--markdown", "--report", base, new)
    check_markup(markdown, lists=True, headings=True)
    check_fields_shown(markdown, fields, "gpu", "driver")
    comparison = compare(load(base), load(new),
                         compare_command.rules_from(compare_command.parse_args([str(base),
                                                                                 str(new)])),
                         True)
    report = report_markdown(comparison, [folder / "family0.png"], False)
    check_markup(report, lists=True, headings=True, images=("family0.png",))
    check_fields_shown(report, fields, "gpu", "driver")


@given(fields=hostile_fields())
@PROPERTY
def test_fleet_stability_and_ratios_markdown_hold_no_markup_of_the_files(
        tmp_path_factory: pytest.TempPathFactory, fields: dict[str, str]) -> None:
    folder = tmp_path_factory.mktemp("fleet")
    doc = hostile_document(fields)
    fleet = write_fleet_of(doc, folder / "fleet")
    # One GPU slower than its group, so that it is named, with its hints.
    slow = fleet / "gpu0.json"
    write_result(slow, scaled(load_doc(slow), "copy/HtoD/pinned/async/4096/manual_time", 0.5))
    markdown = printed(fleet_command.main, fleet, "--min-gpus", "3", "--markdown")
    check_markup(markdown, headings=True)
    result = write_result(folder / "one.json", doc)
    stability = printed(stability_command.main, result, "--markdown")
    check_markup(stability)
    check_fields_shown(stability, fields, "gpu", "driver")
    # A launch path's name is a counter's ("<path>_vs_<reference>_ratio"): no "_" in it, and
    # not empty (Hypothesis drew "_").
    path = fields["name"].replace("_", "") or "path"
    paired = write_result(folder / "paired.json", document(
        paired_entries(0, {(path, "runtime"): RATIOS[("driver", "runtime")]}),
        gpu_name=fields["gpu"]))
    for args in (["--markdown"], ["--sentences"]):
        text = printed(ratios_command.main, paired, *args)
        check_markup(text, code=lambda content: content in (printable(path), "runtime"))


def load_doc(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="ascii"))


@given(st.lists(hostile, min_size=1, max_size=4))
@settings(max_examples=100, deadline=None)
def test_every_table_cell_is_escaped(cells: list[str]) -> None:
    headers = [f"column {n}" for n in range(len(cells))]
    table = render(headers, [cells], markdown=True, align="left")
    check_markup(table)
    shown = re.findall(r"<td>(.*?)</td>", MARKDOWN.render(table))
    assert [" ".join(html.unescape(c).split()) for c in shown] == [seen(c) for c in cells]
