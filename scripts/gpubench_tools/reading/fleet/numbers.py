"""The JSON numbers gpubench-tools fleet computes with, checked before it does.

Python's json reads an integer of any length (up to 4300 digits) and reads 1e999, Infinity and NaN
as floats that are not finite. float() of an integer past 1.8e308 raises OverflowError, as does
formatting it with `:g` or dividing it; inf and nan give no figure. A file holding such a number
where gpubench-tools fleet reads one is damaged (a result, a record) or refused (a limits file).
"""

import math
from typing import Any


def beyond_float(value: Any) -> str | None:
    """Why a JSON number is no finite float, in words; None for a number a finite float holds
    and for anything that is not a number (text, a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            return f"an integer of {len(str(abs(value)))} digits, more than a float holds"
        return None
    return None if math.isfinite(value) else f"{value}, not a finite number"
