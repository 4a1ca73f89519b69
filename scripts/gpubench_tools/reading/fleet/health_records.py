"""The NVML health records gpubench writes into a result's context, before and after its run
(`gpu_health_before`, `device_<N>_health_after`, ...): each a JSON object as text."""

import json
import re
from typing import Any

from gpubench_tools.reading.fleet.numbers import beyond_float
from gpubench_tools.reading.json_values import json_loads

# The context keys of health records: the run's GPU, or device N of a run of several.
HEALTH_KEY = re.compile(r"^(?:gpu|device_(\d+))_health_(before|after)$")


def parse_record(text: Any) -> dict[str, Any] | str:
    """The record as a dict, or why it cannot be read (one line)."""
    if isinstance(text, dict):
        return text
    if not isinstance(text, str):
        return f"is {type(text).__name__}, not a JSON object as text"
    try:
        record = json_loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as error:
        return f"is not JSON ({str(error).splitlines()[0][:80]})"
    return record if isinstance(record, dict) else "is JSON but not an object"


def field_beyond_float(context: dict[str, Any]) -> str | None:
    """The first field of a health record holding a number no finite float holds, and why
    (`gpu_health_after pcie_replay_count: an integer of 400 digits, ...`); None where none
    does. Such a record cannot be judged: its result is damaged (reading/fleet/records.py)."""
    for key, value in context.items():
        record = parse_record(value) if HEALTH_KEY.match(key) else None
        for name, number in record.items() if isinstance(record, dict) else ():
            if why := beyond_float(number):
                return f"{key} {name}: {why}"
    return None
