"""The errors of reading a result: each one line naming the file and the problem."""



class GpubenchJsonError(Exception):
    """A result file that cannot be used; str() is a one-line message naming the file."""

class MissingFileError(GpubenchJsonError):
    """No such file, or a path that cannot be read as a file (a directory, no permission)."""

class EmptyFileError(GpubenchJsonError):
    pass

class InvalidJsonError(GpubenchJsonError):
    """Not JSON, or JSON Python cannot hold (nested too deeply, an integer of too many digits)."""

class NotGpubenchError(GpubenchJsonError):
    """JSON, but not a gpubench result: no `benchmarks` list or `context` with its version."""

class MalformedResultError(GpubenchJsonError):
    """gpubench output whose benchmark entries or context cannot be read."""

class WrongTypeError(MalformedResultError):
    """A field holds another type than Google Benchmark writes (`"run_name": 5`)."""

class BadValueError(MalformedResultError):
    """A number that is no measurement: NaN, infinite, too large for a float, outside 1e-30 to
    1e30 in size, or not > 0 where a measurement is."""

class DuplicateBenchmarkError(MalformedResultError):
    """The same benchmark, repetition or aggregate appears twice."""

class TooLargeError(GpubenchJsonError):
    """More than MAX_RESULT_BYTES (a device such as /dev/zero too), MAX_CONTAINERS objects and
    lists or MAX_VALUES values: refused before it is parsed."""

class NoBenchmarksError(GpubenchJsonError):
    """No benchmark in the file succeeded: nothing to compare, plot or export."""

class OutputIsInputError(GpubenchJsonError):
    """An output path that names a file the command reads: writing it would destroy that input."""

class OutputIsStandardStreamError(OutputIsInputError):
    """An output path that names the file the command's standard output or error goes to: its
    own lines and the output would overwrite each other. An OutputIsInputError, refused wherever
    one is."""
