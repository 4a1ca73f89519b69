"""The benchmarks a gpubench result records as failed.

Google Benchmark writes a benchmark that called SkipWithError as an entry with
`"error_occurred": true` and its `error_message`; result_file leaves such entries out of a
Result, since they hold no figure. gpubench calls it for a benchmark that failed (a failed check,
a CUDA error: bench/harness/outcome.cpp `fail`) and for one it skipped (a size that does not fit
in memory, a GPU that faulted in an earlier benchmark: `skip`, whose message starts
SKIPPED_PREFIX). A skipped benchmark is no failure: the benchmark that faulted is listed itself.
"""

from dataclasses import dataclass
from typing import Any

SKIPPED_PREFIX = "skipped: "


@dataclass(frozen=True)
class FailedBenchmark:
    name: str  # its run name: once for all its repetitions
    message: str  # as the file holds it: escape it before showing it (safe_text)


def failed_benchmarks(doc: dict[str, Any]) -> list[FailedBenchmark]:
    """Each benchmark of a gpubench JSON document (checked by result_file) that failed, in the
    file's order, with the message of its first failed repetition."""
    failed: dict[str, str] = {}
    for entry in doc.get("benchmarks", []):
        if not (isinstance(entry, dict) and entry.get("error_occurred") is True):
            continue
        message = entry.get("error_message")
        message = message if isinstance(message, str) and message else "(no message)"
        if message.startswith(SKIPPED_PREFIX):
            continue
        failed.setdefault(str(entry.get("run_name") or entry.get("name")), message)
    return [FailedBenchmark(name, message) for name, message in failed.items()]
