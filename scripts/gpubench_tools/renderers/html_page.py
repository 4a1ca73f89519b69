"""The frame of gpubench's HTML pages: escaping, the page shell, its style and its controls.

A page is one self-contained file: its style and script are inline and it loads nothing, so it
opens the same offline, from an archive or an e-mail. Every text that comes from a result file
or the command line passes through `esc`: made one printable line (safe_text.printable: no
control characters or lone surrogates, which UTF-8 cannot hold), cut to a length a page can
show, and escaped for HTML and SVG alike, so a name holding `<script>` is shown, never run.

The controls: a checkbox per run shows or hides every element of class `run-<index>` (the page
body's class `hide-run-<index>`), and a text filter shows only the elements with a `data-name`
that holds the text (ignoring case), that lie within one that holds it, or that hold one that
holds it: a file's section (its path) shows all its figures where the path matches, and the
figures whose own name matches where it does not.
"""

import html

from gpubench_tools.reading.safe_text import printable, shorten

# Characters of one text from a file shown on a page; longer ones are cut with "…".
TEXT_LIMIT = 300
MAX_RUNS_SHOWN = 10

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1600px;padding:0 16px 48px;
color:#222}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid
#ccc}h3{font-size:15px;margin:16px 0 4px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:2px 6px;
text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4}.verdict-SLOWER{color:#b00020;font-weight:600}
.verdict-FASTER{color:#1b7a1b;font-weight:600}.note{color:#555}
.controls{position:sticky;top:0;background:#fffe;padding:6px 0;border-bottom:1px solid #ddd;
z-index:2}.controls label{margin-right:14px;white-space:nowrap}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;
margin-right:4px}
.panels{display:flex;flex-wrap:wrap;gap:10px}figure.panel{margin:0;border:1px solid #e4e4e4;
padding:4px;max-width:100%}figure.panel figcaption{font-size:12px;font-weight:600;
overflow-wrap:anywhere}svg.figure{display:block;max-width:100%;height:auto}
svg.figure path{stroke-linejoin:round;stroke-linecap:butt}
svg.figure text{font-family:"DejaVu Sans",Verdana,Arial,sans-serif}
td.cell{text-align:center;min-width:56px}.matrices{display:flex;flex-wrap:wrap;gap:18px}
.hidden{display:none!important}
details.result{content-visibility:auto;contain-intrinsic-size:auto 1500px}
"""

SCRIPT = """
(function(){
  var body=document.body;
  document.querySelectorAll('input[data-run]').forEach(function(box){
    box.addEventListener('change',function(){
      body.classList.toggle('hide-run-'+box.dataset.run,!box.checked);
    });
  });
  var filter=document.getElementById('filter');
  if(filter){filter.addEventListener('input',function(){
    var text=filter.value;
    var holds='[data-name*="'+CSS.escape(text)+'" i]';
    document.querySelectorAll('[data-name]').forEach(function(el){
      var up=el.parentElement;
      el.classList.toggle('hidden',text!==''&&!el.matches(holds)&&
        !(up&&up.closest(holds))&&!el.querySelector(holds));
    });
  });}
})();
"""


def esc(text: object, limit: int = TEXT_LIMIT) -> str:
    """Text from a file or the command line as page text or an attribute value."""
    return html.escape(shorten(printable(text), limit), quote=True)


def hide_run_style(runs: int) -> str:
    return "".join(f".hide-run-{i} .run-{i}{{display:none}}" for i in range(runs))


def controls(labels: list[str], colours: list[str], filter_hint: str) -> str:
    """A checkbox per run (shown or hidden) and the filter box."""
    boxes = "".join(
        f'<label><input type="checkbox" checked data-run="{i}" id="run-{i}">'
        f'<span class="swatch" style="background:{c}"></span>{esc(label)}</label>'
        for i, (label, c) in enumerate(zip(labels, colours)))
    return (f'<div class="controls">{boxes}<label>filter: <input id="filter" type="search" '
            f'placeholder="{esc(filter_hint)}" size="28"></label></div>')


def page(title: str, body: str, runs: int) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{esc(title)}</title>"
            f"<style>{STYLE}{hide_run_style(runs)}</style></head><body>{body}"
            f"<script>{SCRIPT}</script></body></html>\n")


def table(headers: list[str], rows: list[list[str]], row_names: list[str] | None = None,
          numeric: set[int] | None = None) -> str:
    """An HTML table; `headers` are escaped, cells are HTML already (escape what comes from
    a file). `row_names` gives each row a data-name for the filter."""
    numeric = numeric or set()
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for index, row in enumerate(rows):
        name = f' data-name="{esc(row_names[index])}"' if row_names is not None else ""
        cells = "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                        for i, c in enumerate(row))
        body.append(f"<tr{name}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
