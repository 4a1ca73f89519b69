"""JSON as the toolkit reads it: no key twice with two values, and numbers and values
named in messages as a person reads them."""

import json
from collections import Counter
from typing import Any

# The sizes a nonzero number the toolkit reads lies between, a time in µs: no figure or counter
# of a GPU benchmark comes near either in any unit (bytes per second stay below 1e14, an hour
# is 4e9 µs, a clock tick 1e-3 µs). A facts scale lies in the same range, so what the toolkit
# computes from them stays a finite nonzero float (within 1e±308): a figure in its unit within
# 1e±60, a ratio of two within 1e±120 and its square within 1e±240, a sum over repetitions a
# few digits more than its largest term.
LARGEST_MAGNITUDE = 1e30

SMALLEST_MAGNITUDE = 1e-30

class DuplicateKeyError(ValueError):
    """A JSON object that gives one key two different values. JSON leaves open which counts
    (RFC 8259, section 4) and Python keeps the last, so such a file is refused rather than read
    one way. The same value twice is read: gpubench writes the context's host_name twice (Google
    Benchmark's and its own)."""

def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        # The repeated keys' values alone are written out to compare: a value under a key given
        # once, however large, is not (each level of a nested object would write its whole
        # subtree again).
        counts = Counter(key for key, _ in pairs)
        for key, value in pairs:
            if counts[key] > 1 and not _same_json(obj[key], value):
                raise DuplicateKeyError(f"the key {shown(key)} appears twice in one object, "
                                        "with different values")
    return obj

def _same_json(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are written alike: 1, 1.0 and true are three values."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)

def json_loads(text: str) -> Any:
    """json.loads that refuses an object giving a key two different values (DuplicateKeyError,
    a ValueError)."""
    return json.loads(text, object_pairs_hook=_unique_keys)

def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

def kind_of(value: Any) -> str:
    """How a message names a JSON value's type."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)

def shown(value: Any) -> str:
    """A JSON value in a message: short, one line."""
    if is_int(value) and value.bit_length() > 64:
        return "an integer of more than 64 bits"
    text = repr(value) if isinstance(value, (int, float, str)) else kind_of(value)
    return text if len(text) <= 40 else text[:37] + "..."
