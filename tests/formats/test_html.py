"""Tests of dicejack.formats.html: pages that fetch nothing, text that stays text, tables, and
the Markdown dicejack writes turned into the same content as HTML."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from dicejack.formats.html import (
    HtmlColumn,
    Markup,
    html_link,
    html_page,
    html_table,
    html_text,
    markdown_html,
    png_data_uri,
)

HOSTILE = ('<img src=x onerror=alert(1)>', "</script><script>alert(1)</script>",
           '" onmouseover="alert(1)', "\x1b[31mred\x1b[0m", "a\u202eb")
VOID = {"meta", "img", "input", "br", "link", "hr"}


class Tags(HTMLParser):
    """Every tag and attribute of a page, and whether its elements nest properly."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.unbalanced: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in_script = False
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.unbalanced.append(tag)

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


def csp(page: str) -> dict[str, str]:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    return {part.split()[0]: part.split(" ", 1)[1] for part in policy.split("; ")}


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_a_page_allows_no_request_and_only_its_own_style_and_script():
    page = html_page("t", ["hello"], script=True)
    policy = csp(page)
    assert policy["default-src"] == "'none'" and policy["img-src"] == "data:"
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    assert policy["style-src"] == sha(style) and policy["script-src"] == sha(script)
    tags = parse(page)
    assert not tags.stack and not tags.unbalanced
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert '<meta name="viewport"' in page and "@media print" in page
    assert "<script>" not in html_page("t", ["x"])  # script only when asked


@pytest.mark.parametrize("name", HOSTILE)
def test_text_is_escaped_everywhere_it_goes(name):
    page = html_page(name, [name, html_table(
        [HtmlColumn("a"), HtmlColumn("b", numeric=True)], [(name, (name, name))],
        table_id="t", sortable=True, search=[name], filter_label=name)], script=True)
    tags = parse(page)
    assert not tags.unbalanced and not tags.stack
    assert [t for t, _ in tags.tags].count("script") == 1 and [
        t for t, _ in tags.tags].count("img") == 0
    for _, attrs in tags.tags:
        assert not any(k.startswith("on") for k in attrs)
    assert "\x1b" not in page and "\u202e" not in page
    assert html_text(name) != name


def test_markup_is_kept_and_text_is_not():
    assert html_text(Markup("<b>x</b>")) == "<b>x</b>"
    assert html_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    assert html_text("\x1b[2J") == "\\x1b[2J"


def test_links_stay_within_the_folder():
    assert html_link("a_b-1.txt.html", "<x>") == (
        '<a href="a_b-1.txt.html">&lt;x&gt;</a>')
    assert html_link("#part", "p") == '<a href="#part">p</a>'
    for bad in ("javascript:alert(1)", "https://example.org/", "../up.html", "/abs.html",
                ".hidden.html", "a b.html", "x.html#a b"):
        with pytest.raises(ValueError, match="not a link within the folder"):
            html_link(bad, "x")


def test_numeric_cells_keep_their_exact_value_for_sorting_and_nan_shows_as_missing():
    table = html_table(
        [HtmlColumn("n", numeric=True, fmt=".1f", missing="n/a"), HtmlColumn("s")],
        [(9.96, "b"), (float("nan"), "a"), (100.0, Markup("<i>c</i>"))],
        table_id="t", sortable=True)
    assert '<td class="num" data-v="9.96">10.0</td>' in table
    assert '<td class="num">n/a</td>' in table
    assert '<td class="num" data-v="100.0">100.0</td>' in table and "<i>c</i>" in table
    assert 'class="sortable"' in table and '<th class="num" scope="col">n</th>' in table
    assert "filter" not in html_table([HtmlColumn("a")], [("x",)], table_id="t")


def test_optional_columns_get_a_chooser_and_cards_label_every_cell():
    """Issue 38: an optional column's header names it for the chooser (the script hides it
    until ticked); a table of cards is marked for the script, which labels each cell with its
    header for the phone layout (Chromium: tests/browser)."""
    columns = [HtmlColumn("who"), HtmlColumn("n", numeric=True, fmt=".0f"),
               HtmlColumn('<b>"x"</b>', optional=True)]
    table = html_table(columns, [("a", 1.0, "z")], table_id="t", sortable=True, cards=True)
    assert '<table id="t" class="sortable fit choosable" data-cards>' in table
    assert ('<th data-optional="&lt;b&gt;&quot;x&quot;&lt;/b&gt;" scope="col">'
            "&lt;b&gt;&quot;x&quot;&lt;/b&gt;</th>") in table
    assert '<td>a</td><td class="num" data-v="1.0">1</td>' in table  # labels: the script's
    plain = html_table(columns[:2], [("a", 1.0)])
    assert "data-cards" not in plain and "choosable" not in plain and "data-optional" not in plain
    tags = parse(html_page("t", [table], script=True))
    assert not tags.unbalanced


def test_png_data_uri_round_trips():
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    uri = png_data_uri(data)
    assert uri.startswith("data:image/png;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]) == data


def test_markdown_as_dicejack_writes_it():
    md = "\n".join([
        "# Title <x>", "", "Generated by `dicejack report --games 100..1e7`: text.", "",
        "**Optimal play:** P*(0,0) = 0.5. **Optimal policy and P***", "",
        "## Part", "", "- **M = 10.** first line", "  continued here", "- second",
        "", "| set | states | meaning |", "|---|---:|---|", "| all | 225 | every <X,Y> |",
        "| a \\| b | 1 | `x\\|y` |", "", "![Agreement](figures/a.png)", "",
        "![gone](figures/missing.png)", "", "## Part", "", "1 < 2 & 3 > 2 \\*not bold\\*",
        "&lt;img&gt; <script>alert(1)</script> [link](other.html) [bad](javascript:x)",
    ])
    html = markdown_html(
        md, lambda src: png_data_uri(b"png") if src == "figures/a.png" else None)
    assert '<h1 id="title-x">Title &lt;x&gt;</h1>' in html
    assert "<code>dicejack report --games 100..1e7</code>" in html
    assert "<strong>Optimal play:</strong> P*(0,0) = 0.5." in html
    assert "<strong>Optimal policy and P*</strong>" in html
    assert "<li><strong>M = 10.</strong> first line continued here</li><li>second</li>" in html
    assert '<th class="num">states</th>' in html and '<td class="num">225</td>' in html
    assert "<td>every &lt;X,Y&gt;</td>" in html and "<td>a | b</td>" in html
    assert "<code>x|y</code>" in html
    assert f'<figure><img src="{png_data_uri(b"png")}" alt="Agreement"></figure>' in html
    assert "[picture missing: figures/missing.png]" in html
    assert '<h2 id="part">' in html and '<h2 id="part-2">' in html
    assert "1 &lt; 2 &amp; 3 &gt; 2 *not bold*" in html
    assert "&lt;img&gt; &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<a href="other.html">link</a>' in html and "[bad](javascript:x)" in html
    tags = parse(str(html))
    assert not tags.unbalanced and not tags.stack
    assert {t for t, _ in tags.tags} <= {"h1", "h2", "p", "code", "strong", "ul", "li", "div",
                                         "table", "thead", "tbody", "tr", "th", "td", "figure",
                                         "img", "span", "a"}


def test_markdown_images_take_only_data_uris():
    html = markdown_html("![x](a.png)", lambda src: "https://example.org/a.png")
    assert "<img" not in html and "[picture missing: a.png]" in html
    html = markdown_html("![x](a.png)", lambda src: 'data:image/png;base64,AA" onload="x')
    assert "<img" not in html


def test_an_images_alt_text_is_plain_text_without_markdowns_escapes():
    """Issue 46: report.md writes `![Optimal policy and P\\*](...)` (escaped Markdown); the
    page's alt text is the caption as read, `P*`, never the backslash."""
    uri = png_data_uri(b"png")
    html = markdown_html("![Optimal policy and P\\* \\(x\\) a &lt; b](figures/o.png)",
                         lambda src: uri)
    assert f'<img src="{uri}" alt="Optimal policy and P* (x) a &lt; b">' in html
    assert "\\" not in html
