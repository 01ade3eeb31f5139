"""HTML pages that open from disk: one self-contained file per page (style, script and pictures
inline), every text escaped, nothing fetched from anywhere.

What every page of :mod:`dicejack.grade` and :mod:`dicejack.report` is built from:
  * :func:`html_page`: the document: a Content-Security-Policy that allows no request at all
    (pictures only as ``data:`` URIs, the one inline style sheet and script by their SHA-256),
    a phone-width viewport and print rules;
  * :class:`Markup` (HTML made here, inserted as is) against any other ``str`` (text: escaped by
    :func:`dicejack.formats.escape.html_text_escape`, control characters shown as escapes);
  * :func:`html_table` (a table whose header sorts it, empty cells last either way, whose
    filter box narrows it to the rows holding every word typed, whose optional columns a
    chooser shows, and which becomes a card per row on a phone, when the page's script is on;
    plain HTML without it), :func:`png_data_uri`, :func:`html_link` (only relative links to
    files of the same folder);
  * :func:`markdown_html`: the Markdown that dicejack itself writes (headings, paragraphs, lists,
    pipe tables, images, bold, code spans, backslash escapes) as HTML, so that an HTML page says
    exactly what its Markdown twin says. Raw HTML in the Markdown is shown as text.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from dicejack.formats.escape import html_text_escape

__all__ = ["Markup", "HtmlColumn", "html_page", "html_table", "html_text", "html_link",
           "png_data_uri", "markdown_html", "HTML_GENERATOR"]

#: The generator every page names in its head: a file starting with :func:`html_page`'s first
#: bytes and naming it is one this tool wrote.
HTML_GENERATOR = "dicejack"


class Markup(str):
    """HTML made by this module (or from its pieces): inserted into a page as is."""

    __slots__ = ()


def html_text(value: object) -> Markup:
    """`value` as HTML text: Markup as is, anything else escaped (``& < > " '`` as entities,
    control and direction characters as visible backslash escapes)."""
    return value if isinstance(value, Markup) else Markup(html_text_escape(str(value)))


_STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def html_link(target: str, text: object, *, attrs: str = "") -> Markup:
    """A link to `target`, a file name of the same folder or ``#anchor`` (anything else is
    refused: a page never links out, so a name cannot make it)."""
    name, _, anchor = target.partition("#")
    if (name and not _STEM.fullmatch(name)) or (anchor and not _STEM.fullmatch(anchor)):
        raise ValueError(f"not a link within the folder: {target!r}")
    href = quote(name) + (f"#{quote(anchor)}" if anchor else "")
    return Markup(f'<a href="{href}"{attrs}>{html_text(text)}</a>')


def png_data_uri(data: bytes) -> str:
    """PNG bytes as a ``data:`` URI, for an ``<img src>`` that fetches nothing."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


# ------------------------------------------------------------------------------ the page
_STYLE = """
:root{--fg:#1d232a;--muted:#5b6570;--line:#d5dbe1;--head:#f3f5f7;--pass:#2e7d32;
--review:#a05a00;--fail:#c62828;--link:#0b57d0}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
margin:0 auto;padding:1rem;max-width:90rem}
h1{font-size:1.5rem;margin:.2rem 0 .6rem}h2{font-size:1.2rem;margin:1.6rem 0 .5rem;
border-bottom:1px solid var(--line)}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
a{color:var(--link)}code{font:13px ui-monospace,Menlo,Consolas,monospace;background:var(--head);
padding:0 .2em;border-radius:3px;overflow-wrap:anywhere}
nav{font-size:.9rem;margin-bottom:.5rem}p,li{max-width:60rem}p,li,h1{overflow-wrap:anywhere}
.scroll{overflow-x:auto;margin:.4rem 0 1rem}
table{border-collapse:collapse;font-size:.88rem}
th,td{border:1px solid var(--line);padding:.25rem .5rem;vertical-align:top;text-align:left}
th{background:var(--head)}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafbfc}
th button{all:inherit;cursor:pointer;border:0;padding:0;background:none}
th button::after{content:" \\2195";color:var(--muted)}
th[aria-sort=ascending] button::after{content:" \\2191"}
th[aria-sort=descending] button::after{content:" \\2193"}
.verdict{font-weight:600}.pass{color:var(--pass)}.review{color:var(--review)}
.fail,.error{color:var(--fail)}.muted{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:.6rem;margin:.6rem 0}
.card{border:1px solid var(--line);border-radius:6px;padding:.4rem .8rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}
.banner{border-left:6px solid var(--muted);padding:.4rem .8rem;background:var(--head);
margin:.6rem 0}.banner.b-pass{border-color:var(--pass)}.banner.b-review{border-color:var(--review)}
.banner.b-fail{border-color:var(--fail)}th{white-space:nowrap}
.filter{margin:.4rem 0}.filter input{font:inherit;padding:.3rem .5rem;width:min(28rem,100%)}
figure{margin:.6rem 0}figure img,figure svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted)}
svg text{font:11px system-ui,sans-serif}
[hidden]{display:none!important}
pre.submission{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;border:1px solid var(--line);
padding:.3rem 0;overflow-x:auto;max-height:40rem;overflow-y:auto;background:#fcfcfd}
pre.submission .ln,pre.submission .gap{display:block;padding:0 .5rem 0 0;white-space:pre}
pre.submission .no{display:inline-block;min-width:3.5em;padding-right:.8em;text-align:right;
color:var(--muted);user-select:none}
pre.submission .read{background:#fff1c7;box-shadow:inset 4px 0 var(--review)}
pre.submission .gap{color:var(--muted);font-style:italic;padding-left:4.3em}
.columns{border:1px solid var(--line);border-radius:6px;margin:.4rem 0;padding:.2rem .6rem;
font-size:.88rem}.columns label{margin-right:.9rem;white-space:nowrap}
table.fit{width:100%}table.fit th{white-space:normal}
table.fit td{overflow-wrap:anywhere}table.fit td:first-child{overflow-wrap:break-word}
table.fit td.num{white-space:nowrap}
@media (max-width:40rem){body{padding:.5rem;font-size:14px}h1{font-size:1.2rem}
table{font-size:.8rem}
table.tcards,table.tcards tbody,table.tcards tr,table.tcards td{display:block;width:auto}
table.tcards thead tr{display:flex;flex-wrap:wrap;gap:.3rem;margin-bottom:.4rem}
table.tcards thead th{border-radius:4px}
table.tcards tbody tr{border:1px solid var(--line);border-radius:6px;margin:0 0 .5rem;
padding:.3rem .5rem;background:none}
table.tcards td{border:0;padding:.05rem 0;text-align:left}table.tcards td:empty{display:none}
table.tcards td::before{content:attr(data-label) ": ";color:var(--muted)}
table.tcards td:first-child{font-weight:600;font-size:.95rem}
table.tcards td:first-child::before{content:none}}
@media print{.filter,.columns,nav{display:none}body{max-width:none;font-size:11pt}
a{color:inherit;text-decoration:none}th button::after{content:""}
.scroll{overflow:visible}tr,figure{break-inside:avoid}}
"""

_SCRIPT = """
(function () {
  "use strict";
  function each(list, f) { Array.prototype.forEach.call(list, f); }
  function key(row, i, numeric) {
    var cell = row.cells[i], v = cell.getAttribute("data-v");
    if (numeric) { return v === null ? NaN : parseFloat(v); }
    return (v === null ? cell.textContent : v).trim().toLowerCase();
  }
  function sortable(table) {
    var body = table.tBodies[0], heads = table.tHead.rows[0].cells;
    each(heads, function (th, i) {
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        var numeric = th.classList.contains("num");
        each(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, i, numeric), y = key(b, i, numeric);
          var emptyX = numeric ? isNaN(x) : x === "", emptyY = numeric ? isNaN(y) : y === "";
          if (emptyX || emptyY) { return emptyX - emptyY; }
          if (numeric) { return dir * (x - y); }
          return dir * (x < y ? -1 : x > y ? 1 : 0);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  function choosable(table) {
    var heads = table.tHead.rows[0].cells, box = document.createElement("fieldset");
    var legend = document.createElement("legend");
    legend.textContent = "More columns";
    box.className = "columns";
    box.appendChild(legend);
    each(heads, function (th, i) {
      if (!th.hasAttribute("data-optional")) { return; }
      var label = document.createElement("label"), tick = document.createElement("input");
      tick.type = "checkbox";
      function show() {
        th.hidden = !tick.checked;
        each(table.tBodies[0].rows, function (row) { row.cells[i].hidden = !tick.checked; });
      }
      tick.addEventListener("change", show);
      label.appendChild(tick);
      label.appendChild(document.createTextNode(" " + th.getAttribute("data-optional")));
      box.appendChild(label);
      show();
    });
    var scroll = table.parentNode;
    scroll.parentNode.insertBefore(box, scroll);
  }
  function cards(table) {
    var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return th.textContent.trim();
    });
    each(table.tBodies[0].rows, function (row) {
      each(row.cells, function (cell, i) { cell.setAttribute("data-label", names[i]); });
    });
    table.classList.add("tcards");
  }
  function filterable(box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    var input = box.querySelector("input"), count = box.querySelector("output");
    box.hidden = false;
    input.addEventListener("input", function () {
      var terms = input.value.toLowerCase().split(/\\s+/).filter(Boolean), shown = 0;
      each(table.tBodies[0].rows, function (row) {
        var text = (row.getAttribute("data-search") || "") + " " +
          Array.prototype.map.call(row.cells, function (c) { return c.textContent; })
            .join(" ").toLowerCase();
        var hit = terms.every(function (t) { return text.indexOf(t) >= 0; });
        row.hidden = !hit;
        shown += hit ? 1 : 0;
      });
      count.textContent = shown + " of " + table.tBodies[0].rows.length + " shown";
    });
  }
  each(document.querySelectorAll("table[data-cards]"), cards);
  each(document.querySelectorAll("table.choosable"), choosable);
  each(document.querySelectorAll("table.sortable"), sortable);
  each(document.querySelectorAll(".filter"), filterable);
})();
"""


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


_CSP = ("default-src 'none'; img-src data:; style-src " + _sha256(_STYLE) + "; script-src "
        + _sha256(_SCRIPT) + "; base-uri 'none'; form-action 'none'")


def html_page(title: str, body: Iterable[str], *, script: bool = False,
              generator: str = HTML_GENERATOR) -> str:
    """A whole HTML document: `title` (text), the `body` parts (Markup, or text to escape) in
    order, the style sheet, and the sorting and filtering script when `script` is set. Its
    Content-Security-Policy allows no request (no network, no other file but links followed)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{html_text(generator)}">',
        f"<title>{html_text(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        *(html_text(part) for part in body),
    ]
    if script:
        parts.append(f"<script>{_SCRIPT}</script>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


# ------------------------------------------------------------------------------ tables
@dataclass(frozen=True)
class HtmlColumn:
    """A table column: its header, whether it holds numbers (right-aligned, sorted as numbers:
    a row's float cell is shown with `fmt`, its exact value kept for sorting; NaN shows as
    `missing` and sorts last), a tooltip, and whether it is `optional` (hidden until ticked in
    the table's column chooser, when the page's script runs; always shown without it)."""

    name: str
    numeric: bool = False
    fmt: str = ".4f"
    help: str = ""
    missing: str = ""
    optional: bool = False


def _cell(column: HtmlColumn, value: object) -> str:
    cls = ' class="num"' if column.numeric else ""
    if column.numeric and isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if not math.isfinite(number):
            return f"<td{cls}>{html_text(column.missing)}</td>"
        shown = format(value, column.fmt)
        return f'<td{cls} data-v="{number!r}">{html_text(shown)}</td>'
    if isinstance(value, tuple):  # (shown, sort value)
        shown, sort = value
        return f'<td{cls} data-v="{html_text(sort)}">{html_text(shown)}</td>'
    return f"<td{cls}>{html_text(value)}</td>"


def _header_cell(column: HtmlColumn) -> str:
    cls = ' class="num"' if column.numeric else ""
    tip = f' title="{html_text(column.help)}"' if column.help else ""
    opt = f' data-optional="{html_text(column.name)}"' if column.optional else ""
    return f'<th{cls}{tip}{opt} scope="col">{html_text(column.name)}</th>'


def html_table(columns: Sequence[HtmlColumn], rows: Iterable[Sequence[object]], *,
               table_id: str | None = None, sortable: bool = False,
               search: Sequence[str] | None = None, filter_label: str = "",
               cards: bool = False) -> Markup:
    """A table in a horizontally scrolling box. A cell is Markup, text, a number (numeric
    columns) or a (shown, sort value) pair. With `sortable`, clicking a header sorts by it (a
    second click reverses; empty cells stay last both ways); with `filter_label` (needs
    `table_id`), a filter box above it keeps the rows whose text (every cell's, shown or in an
    optional column, and the row's `search` text when given) holds every word typed. Optional
    columns (:class:`HtmlColumn`) get a column chooser above the table. With `cards`, the
    table spans the page's width and, on a narrow screen (a phone), shows each row as a card of
    lines labelled by their headers (the first cell its title) under a bar of the headers. The
    sorting, the filter, the chooser and the cards need the page's script (the cards' labels
    are set by it, not repeated in every cell of the file); without it the table is plain
    HTML."""
    rows = list(rows)
    head = "".join(_header_cell(c) for c in columns)
    classes = [*(["sortable"] if sortable else []), *(["fit"] if cards else []),
               *(["choosable"] if any(c.optional for c in columns) else [])]
    attrs = (f' id="{html_text(table_id)}"' if table_id else "") + (
        f' class="{" ".join(classes)}"' if classes else "") + (" data-cards" if cards else "")
    out = []
    if filter_label and table_id:
        out.append(f'<div class="filter" data-table="{html_text(table_id)}" hidden><label>'
                   f'{html_text(filter_label)} <input type="search" autocomplete="off"></label> '
                   '<output aria-live="polite"></output></div>')
    out.append(f'<div class="scroll"><table{attrs}><thead><tr>{head}</tr></thead><tbody>')
    for i, row in enumerate(rows):
        text = "" if search is None else (
            f' data-search="{html_text(search[i].lower())}"')
        cells = "".join(_cell(c, v) for c, v in zip(columns, row, strict=True))
        out.append(f"<tr{text}>{cells}</tr>")
    out.append("</tbody></table></div>")
    return Markup("\n".join(out))


# ------------------------------------------------------------------------------ Markdown
_INLINE = re.compile(
    r"(?P<code>(?P<fence>`+)(?P<codetext>.+?)(?P=fence)(?!`))"
    r"|(?P<image>!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\))"
    r"|(?P<link>\[(?P<linktext>[^\]]+)\]\((?P<href>[^)\s]+)\))"
    r"|(?P<bold>\*\*(?P<boldtext>.+?)\*\*(?!\*))"
    r"|(?P<escaped>\\(?P<char>[\\`*_{}\[\]()#+\-.!|~<>&]))"
)
_ENTITY = re.compile(r"&(amp|lt|gt|quot|#39);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "#39": "'"}


def _plain(text: str) -> str:
    """Markdown text between inline marks: its entities (as escape.markdown_text writes them)
    read back, then the whole escaped for HTML."""
    return html_text(_ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text))


def _inline(text: str, image: Callable[[str], str | None]) -> str:
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(_plain(text[at:m.start()]))
        at = m.end()
        if m.group("code") is not None:
            code = m.group("codetext")
            code = code[1:-1] if len(code) > 2 and code[0] == code[-1] == " " else code
            out.append(f"<code>{html_text(code)}</code>")
        elif m.group("image") is not None:
            out.append(_image(m.group("alt"), m.group("src"), image))
        elif m.group("link") is not None:
            try:
                out.append(html_link(m.group("href"), Markup(_inline(m.group("linktext"),
                                                                     image))))
            except ValueError:
                out.append(_plain(m.group(0)))
        elif m.group("bold") is not None:
            out.append(f"<strong>{_inline(m.group('boldtext'), image)}</strong>")
        else:
            out.append(html_text(m.group("char")))
    out.append(_plain(text[at:]))
    return "".join(out)


_DATA_URI = re.compile(r"data:image/(png|svg\+xml);base64,[A-Za-z0-9+/]*={0,2}")


_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>&])")


def _image(alt: str, src: str, image: Callable[[str], str | None]) -> str:
    uri = image(src)
    if uri is None or not _DATA_URI.fullmatch(uri):
        return f'<span class="muted">[picture missing: {html_text(src)}]</span>'
    text = _ESCAPED.sub(r"\1", alt)  # plain text: Markdown's escapes read back (P\* is P*)
    return f'<img src="{uri}" alt="{_plain(text)}">'


def _table(lines: list[str], image: Callable[[str], str | None]) -> str:
    def cells(line: str) -> list[str]:
        line = line.strip()
        line = line[1:] if line.startswith("|") else line
        line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]

    head, rule, body = cells(lines[0]), cells(lines[1]), [cells(x) for x in lines[2:]]
    numeric = [r.endswith(":") and not r.startswith(":") for r in rule]

    def row(items: list[str], tag: str) -> str:
        out = []
        for i, item in enumerate(items):
            cls = ' class="num"' if i < len(numeric) and numeric[i] else ""
            out.append(f"<{tag}{cls}>{_inline(item, image)}</{tag}>")
        return "<tr>" + "".join(out) + "</tr>"

    return ('<div class="scroll"><table><thead>' + row(head, "th") + "</thead><tbody>"
            + "".join(row(r, "td") for r in body) + "</tbody></table></div>")


_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_IMAGE_LINE = re.compile(r"^!\[([^\]]*)\]\(([^)\s]+)\)$")


def markdown_html(markdown: str, image: Callable[[str], str | None] = lambda src: None) -> Markup:
    """The Markdown dicejack writes, as HTML: ATX headings (with ids from their text), paragraphs
    (a line break inside one is a space), ``- `` lists (lines indented by two spaces continue an
    item), pipe tables (``---:`` right-aligns a column), an image alone on its line as a figure,
    and inline code spans, images, relative links, ``**bold**`` and backslash escapes. `image`
    turns an image's path into a data URI (None: shown as missing). Everything else is text."""
    lines = markdown.splitlines()
    out: list[str] = []
    used: set[str] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            anchor = _anchor(heading.group(2), used)
            out.append(f'<h{level} id="{anchor}">{_inline(heading.group(2), image)}</h{level}>')
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(_table(lines[i:j], image))
            i = j
        elif line.startswith("- "):
            items: list[list[str]] = []
            while i < len(lines) and (lines[i].startswith("- ") or (
                    items and lines[i].startswith("  ") and lines[i].strip())):
                if lines[i].startswith("- "):
                    items.append([lines[i][2:]])
                else:
                    items[-1].append(lines[i].strip())
                i += 1
            out.append("<ul>" + "".join(f"<li>{_inline(' '.join(it), image)}</li>"
                                        for it in items) + "</ul>")
        elif (picture := _IMAGE_LINE.match(line.strip())) is not None:
            out.append(f"<figure>{_image(picture.group(1), picture.group(2), image)}</figure>")
            i += 1
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not (
                    _HEADING.match(lines[i]) or lines[i].startswith("- ")
                    or (lines[i].startswith("|") and i + 1 < len(lines)
                        and _RULE.match(lines[i + 1]))):
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{_inline(' '.join(para), image)}</p>")
    return Markup("\n".join(out))


def _anchor(text: str, used: set[str]) -> str:
    """A heading's id: its words in lower case joined by '-', made distinct within the page."""
    base = "-".join(re.findall(r"[a-z0-9]+", text.lower())) or "section"
    anchor, n = base, 2
    while anchor in used:
        anchor = f"{base}-{n}"
        n += 1
    used.add(anchor)
    return anchor
