"""Matplotlib as every subcommand that draws uses it: imported before matplotlib is.

- The Agg backend, whatever MPLBACKEND says: the toolkit writes files and never needs a display,
  and matplotlib refuses to import at all under an MPLBACKEND it does not know.
- Matplotlib's default settings, not a matplotlibrc's: a figure looks the same on every machine,
  and no usetex or other setting of the user's applies.
- Text is text: mathtext is off for every text object (text.parse_math), so a `$` or a
  backslash in a benchmark or GPU name is drawn as written. `figure_text` makes a name one
  short printable line (no control characters or lone surrogates, which fonts cannot draw).
- Matplotlib's warnings about layout and missing glyphs are off: a figure with a long or
  unusual name is still right, and a command's stderr stays for problems. So are the warnings
  it logs as it loads where its config or cache folder cannot be made (MPLCONFIGDIR,
  XDG_CACHE_HOME or HOME unwritable): it then uses a temporary folder, and the figures are
  the same.
- `figure_bytes` draws the format the path's extension names, PNG where it names none, and never
  appends an extension: the file written is the path the command prints. A command that writes
  several files as one output draws each so and writes them all or none (writing/outputs.py's
  write_outputs); `save_figure` writes one figure whole or not at all, as every output is written
  (writing/outputs.py's write_output).
"""

import errno
import io
import logging
import os
import warnings
from pathlib import Path

os.environ["MPLBACKEND"] = "Agg"
logging.getLogger("matplotlib").setLevel(logging.ERROR)

import matplotlib  # noqa: E402  (MPLBACKEND must be set first)

matplotlib.rcdefaults()
matplotlib.use("Agg")
matplotlib.rcParams["text.parse_math"] = False
matplotlib.rcParams["text.usetex"] = False
# A long name crowds the layout, a rare script has no glyph in the font: the figure is still
# right, and stderr stays for problems.
warnings.filterwarnings("ignore", "constrained_layout not applied")
warnings.filterwarnings("ignore", "Glyph .* missing from font")

from matplotlib.figure import Figure  # noqa: E402

from gpubench_tools.reading.safe_text import one_line, printable, shorten  # noqa: E402
from gpubench_tools.writing.outputs import write_output  # noqa: E402

# Characters of a name drawn in a title, legend or tick label: longer names are cut with "…".
FIGURE_TEXT_LIMIT = 80
_DEFAULT_FORMAT = "png"


def figure_text(text: object, limit: int = FIGURE_TEXT_LIMIT) -> str:
    """A name or value from a file or the command line as a figure shows it."""
    return shorten(printable(text), limit)


def figure_bytes(fig: Figure, path: Path, **savefig: object) -> bytes:
    """`fig` drawn in memory in the format the extension of `path` names (PNG without one), as
    the file `path` will hold. Raises OSError naming the path: an extension that names no image
    format matplotlib writes, or a figure too large to draw."""
    suffix = path.suffix.lower().removeprefix(".")
    supported = fig.canvas.get_supported_filetypes()
    if suffix and suffix not in supported:
        raise OSError(errno.EINVAL, f"{printable(path.suffix)} is no image format matplotlib "
                      f"writes ({', '.join('.' + s for s in sorted(supported))})", str(path))
    image = io.BytesIO()
    try:
        fig.savefig(image, format=suffix or _DEFAULT_FORMAT, **savefig)
    except ValueError as error:  # e.g. "Image size of 300000x200 pixels is too large"
        raise OSError(errno.EINVAL, f"cannot draw the figure ({one_line(error, 200)})",
                      str(path)) from None
    return image.getvalue()


def save_figure(fig: Figure, path: Path, **savefig: object) -> None:
    """Writes `fig` to `path` as figure_bytes draws it, whole or not at all (write_output), so
    a write that fails (a full disk) leaves an earlier figure as it was. Raises OSError naming
    the path: an unwritable path, or one figure_bytes refuses."""
    write_output(path, figure_bytes(fig, path, **savefig))
