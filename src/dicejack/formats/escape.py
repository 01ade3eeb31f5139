"""Untrusted text (student and file names, archive members, metadata) shown as the characters it
is, never interpreted: one function per kind of output. Terminal and any line of text: control,
escape and bidirectional-override characters as backslash escapes (safe_text); spreadsheets: no
cell starts a formula (spreadsheet_cell); Markdown: code spans and escaped prose (markdown_code,
markdown_text); HTML: entities (html_text_escape). Figures turn math text off where they draw
names (dicejack.figures)."""

from __future__ import annotations

import html
import re

__all__ = ["safe_text", "spreadsheet_cell", "markdown_code", "markdown_text",
           "html_text_escape"]


def safe_text(text: str) -> str:
    """`text` with every character that is not printable (controls such as ESC, BEL, CR and
    NUL, bidirectional overrides such as U+202E, zero-width marks, lone surrogates) as a
    backslash escape (``\\x1b``, ``\\u202e``): a name looks like what it is wherever shown."""
    text = str(text)
    if text.isprintable():  # the common case, checked in one pass
        return text
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" if ord(c) < 256
                   else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                   for c in str(text))


def spreadsheet_cell(text: str) -> str:
    """A CSV text cell on one line that a spreadsheet shows as text: whitespace runs as one
    space, other controls escaped (:func:`safe_text`), and a leading ``= + - @`` (a formula)
    made text by a leading apostrophe."""
    text = safe_text(" ".join(str(text).split()))
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def markdown_code(text: str) -> str:
    """`text` as a Markdown code span, shown verbatim (no emphasis, link or HTML inside): fenced
    by one backtick more than its longest run of backticks, padded when it starts or ends with
    one."""
    text = safe_text(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def markdown_text(text: str) -> str:
    """`text` as Markdown prose shown verbatim: every Markdown punctuation backslash-escaped,
    ``< > &`` as HTML entities (so no tag, link or emphasis is made)."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", safe_text(text))
    return escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_text_escape(text: str) -> str:
    """`text` for HTML element content or a quoted attribute: ``& < > " '`` as entities."""
    return html.escape(safe_text(text), quote=True)
