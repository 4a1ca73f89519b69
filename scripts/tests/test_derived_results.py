"""The files under results/ that a script prints from committed files are what it prints today
(derived_results.py lists each with its command; `derived_results.py --write` makes them anew)."""

import pytest
from derived_results import (
    DERIVED,
    FLEET,
    GALLERY,
    ROOT,
    Derived,
    fleet_printed,
    gallery_printed,
    printed,
)


@pytest.mark.parametrize("derived", DERIVED, ids=[d.output for d in DERIVED])
def test_a_committed_output_is_what_its_command_prints(derived: Derived) -> None:
    assert printed(derived) == (ROOT / derived.output).read_text(encoding="utf-8")


def test_the_example_fleet_is_what_its_commands_print() -> None:
    assert fleet_printed() == (ROOT / FLEET).read_text(encoding="utf-8")


def test_the_gallery_is_what_gallery_py_writes() -> None:
    """results/index.html and each machine's page."""
    pages = gallery_printed()
    assert GALLERY in pages and len(pages) > 1
    for page, text in pages.items():
        assert (ROOT / page).is_file(), page
        assert text == (ROOT / page).read_text(encoding="utf-8"), page


def test_every_results_folder_has_a_readme() -> None:
    """Each folder under results/ says in its README which command made each of its files."""
    folders = [ROOT / "results", *(p for p in (ROOT / "results").rglob("*") if p.is_dir())]
    assert [str(f.relative_to(ROOT)) for f in folders if not (f / "README.md").is_file()] == []
