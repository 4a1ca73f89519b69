"""A matplotlib figure as SVG to inline in a page: the same figure the PNGs show, small and
self-contained.

Text stays text (svg.fonttype "none": the page's browser draws it, and the page can be searched);
matplotlib's XML declaration, DOCTYPE, metadata, comments and per-figure style block are left
out (the page's style holds the one rule they set, and the font family it names on every text);
each element's generated id is dropped, so
that figures side by side share none but the identical marker and clip definitions they
reference (fixed ids: svg.hashsalt), and an artist with the gid run-<index> becomes a group of
class run-<index>, which the page's checkboxes show or hide. The size is the figure's in CSS
pixels, scaled down to the width of the page.
"""

import io
import re

import matplotlib
from matplotlib.figure import Figure

# Pixels of a page per inch of a figure.
DPI = 80

_DROPPED = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->|<metadata>.*?</metadata>"
                      r"|<style[^>]*>.*?</style>|\n", re.DOTALL)
_RUN_GROUP = re.compile(r'<g id="(run-[0-9]+)">')
_GROUP_ID = re.compile(r'<g id="[^"]*">')
# matplotlib names its whole list of fallback fonts on every text; the page's style names one.
_FONT_FAMILY = re.compile(r'(<text style="[^"]*?) font-family: [^;"]*;?')
_SIZE = re.compile(r'<svg ([^>]*?)width="[0-9.]+pt" height="[0-9.]+pt"')


def svg_markup(fig: Figure, label: str) -> str:
    """`fig` as one <svg> element; `label` (escaped for HTML already) is its accessible name."""
    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "gpubench",
                                "svg.image_inline": True}):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None,
                                                 "Format": None, "Type": None})
    text = _DROPPED.sub("", out.getvalue())
    text = _RUN_GROUP.sub(r'<g class="\1">', text)
    text = _GROUP_ID.sub("<g>", text)
    text = _FONT_FAMILY.sub(r"\1", text)
    width, height = (round(v * DPI) for v in fig.get_size_inches())
    # A function, not a template: a label may hold a backslash.
    return _SIZE.sub(lambda m: f'<svg class="figure" role="img" aria-label="{label}" '
                     f'{m[1]}width="{width}" height="{height}"', text, count=1)
