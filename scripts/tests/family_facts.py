"""The facts gpubench declares of its families (docs/family-facts.md), as `gpubench --describe`
prints them and every result's context holds them under gpubench_families, for tests of the
scripts on files that hold them; and the edits the tests make to such a file: a family renamed
throughout, a family the scripts have never seen."""

import copy
import json
from typing import Any

GBPS = {"counter": "bytes_per_second", "unit": "GB/s", "scale": 1e-9, "better": "higher"}
US_PER_COPY = {"counter": "us_per_copy", "unit": "µs", "scale": 1.0, "better": "lower"}
SIZES = {"name": "--sizes", "default": "4B..1GiB:x4", "help": "copy sizes"}

FACTS: dict[str, Any] = {"schema": 1, "families": [
    {"name": "saxpy", "order": 10, "grammar": "saxpy/<variant>/<elements>",
     "argument": {"key": "", "unit": "elements"}, "figures": [GBPS],
     "flags": [{"name": "--l2", "default": "cold", "help": "cold or warm L2"}]},
    {"name": "launch", "order": 20,
     "grammar": "launch/<path>/<measure>/params:<bytes>, launch/floor/<path>/<measure>, "
                "launch/paired/submit/params:<bytes>, launch/module/<step>",
     "argument": {"key": "params", "unit": "bytes"},
     "figures": [{"counter": "us_per_launch", "unit": "µs", "scale": 1.0, "better": "lower"}],
     "flags": []},
    {"name": "copy", "order": 30, "grammar": "copy/<direction>/<memory>/<api>/<bytes>",
     "argument": {"key": "", "unit": "bytes"}, "figures": [GBPS, US_PER_COPY], "flags": [SIZES]},
    {"name": "peer", "order": 40, "grammar": "peer/<engine>/<mode>/<source>to<destination>/<bytes>",
     "argument": {"key": "", "unit": "bytes"}, "figures": [GBPS, US_PER_COPY], "flags": [SIZES]},
]}


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
