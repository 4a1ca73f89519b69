"""The facts gpubench declares of its families (docs/family-facts.md), as `gpubench --describe`
prints them and every result's context holds them under gpubench_families, for tests of the
toolkit on files that hold them; and the edits the tests make to such a file: a family renamed
throughout, a family the toolkit has never seen."""

import copy
import json
from pathlib import Path
from typing import Any

# What gpubench --describe prints (results/h200/facts/describe.json); it needs no GPU.
DESCRIBE = Path(__file__).resolve().parents[2] / "results" / "h200" / "facts" / "describe.json"
FACTS: dict[str, Any] = json.loads(DESCRIBE.read_text(encoding="utf-8"))


def with_facts(doc: dict[str, Any], facts: dict[str, Any] = FACTS) -> dict[str, Any]:
    """`doc` with `facts` in its context, as gpubench writes them."""
    doc = copy.deepcopy(doc)
    doc["context"]["gpubench_families"] = copy.deepcopy(facts)
    return doc


def renamed(doc: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """`doc` with family `old` called `new` throughout: every benchmark name and run name, and
    the facts in its context."""
    text = json.dumps(doc)
    for key in ("name", "run_name"):
        text = text.replace(f'"{key}": "{old}/', f'"{key}": "{new}/')
    doc = json.loads(text)
    for family in doc["context"].get("gpubench_families", {}).get("families", []):
        if family["name"] == old:
            family["name"] = new
            family["grammar"] = family["grammar"].replace(f"{old}/", f"{new}/")
    return doc
