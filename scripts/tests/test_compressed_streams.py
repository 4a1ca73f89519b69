"""The compressed-result readers (reading/bounded_read.py's unpacked): a file of many gzip
members, xz or bzip2 streams reads as the streams joined, whatever their number, sizes and the
zero padding between them, in time linear in the file's size; one cut short inside a stream, or
followed by bytes that begin no stream, is refused."""

import time

import pytest
from gbench_builder import COMPRESSORS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpubench_tools.reading.bounded_read import (
    DAMAGED_STREAM,
    MAX_RESULT_BYTES,
    compression,
    unpacked,
)

FORMS = sorted(COMPRESSORS)

PROPERTIES = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.too_slow])

# Each stream's text, and the zero bytes after it (xz pads streams to 4 bytes; gzip -d and
# bzip2 -d pass zeros over).
_STREAMS = st.lists(st.tuples(st.binary(max_size=300), st.integers(0, 9)), min_size=1,
                    max_size=30)


def packed(form: str, streams: list[tuple[bytes, int]]) -> bytes:
    return b"".join(COMPRESSORS[form](text) + bytes(padding) for text, padding in streams)


@PROPERTIES
@given(form=st.sampled_from(FORMS), streams=_STREAMS)
def test_every_stream_is_read_as_one_file(form: str, streams: list[tuple[bytes, int]]) -> None:
    data = packed(form, streams)
    assert compression(data) == form
    assert unpacked(data, form) == b"".join(text for text, _ in streams)


@PROPERTIES
@given(form=st.sampled_from(FORMS), streams=_STREAMS, data=st.data())
def test_a_file_cut_inside_a_stream_is_refused(form: str, streams: list[tuple[bytes, int]],
                                               data: st.DataObject) -> None:
    """Cut anywhere but where a stream ends or in the padding after one: the decoder is left
    wanting, or reads a stream header it cannot finish."""
    whole, ends = b"", []
    for text, padding in streams:
        whole += COMPRESSORS[form](text)
        ends += range(len(whole), len(whole) + padding + 1)
        whole += bytes(padding)
    cut = data.draw(st.integers(1, len(whole) - 1).filter(lambda at: at not in ends))
    with pytest.raises((EOFError, *DAMAGED_STREAM)):
        unpacked(whole[:cut], form)


@PROPERTIES
@given(form=st.sampled_from(FORMS), streams=_STREAMS,
       garbage=st.binary(min_size=1, max_size=40).filter(lambda b: b[0] != 0))
def test_bytes_after_the_streams_that_begin_none_are_refused(
        form: str, streams: list[tuple[bytes, int]], garbage: bytes) -> None:
    with pytest.raises((EOFError, *DAMAGED_STREAM)):
        unpacked(packed(form, streams) + garbage, form)


@pytest.mark.parametrize("form", FORMS)
def test_the_largest_file_of_the_most_streams_is_read_in_seconds(form: str) -> None:
    """MAX_RESULT_BYTES of empty streams, the most a file within the bound holds (1 to 2.4
    million): about 2 s each on 2 cores, where handing each decoder the rest of the file made
    30 MiB of xz streams take 15 minutes."""
    stream = COMPRESSORS[form](b"")
    data = stream * (MAX_RESULT_BYTES // len(stream))
    started = time.perf_counter()
    assert unpacked(data, form) == b""
    assert time.perf_counter() - started < 20
