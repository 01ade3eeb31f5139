"""Reading one submission file safely: only a regular file (a FIFO or device is never opened,
and nothing blocks), at most MAX_SUBMISSION_BYTES; and the text of a web page (an LMS text
entry), scripts and styles left out."""

from __future__ import annotations

import os
import stat
from html.parser import HTMLParser

__all__ = ["MAX_SUBMISSION_BYTES", "NotRegularFile", "open_regular", "read_regular",
           "html_text"]

#: Larger submission files (and archive members) are refused unread.
MAX_SUBMISSION_BYTES = 10 * 2**20


# ------------------------------------------------------------------------ reading files
class NotRegularFile(Exception):
    """The path is not a regular file once opened (a FIFO or device swapped in)."""


def open_regular(path: str | bytes | os.PathLike[str]) -> int:
    """A file descriptor of `path`, opened without blocking, refused (NotRegularFile) unless it
    is a regular file once open."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | bytes | os.PathLike[str], limit: int = MAX_SUBMISSION_BYTES
                 ) -> bytes:
    """At most `limit` + 1 bytes of `path`, opened without blocking (NotRegularFile unless a
    regular file once open; OSError as the system says)."""
    fd = open_regular(path)
    try:
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 2**20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


class _TextOfPage(HTMLParser):
    _BLOCKS = frozenset({"p", "div", "br", "tr", "li", "pre", "table", "h1", "h2", "h3", "h4",
                         "h5", "h6", "section", "article", "body", "blockquote", "hr"})
    _SKIP = frozenset({"script", "style", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in self._SKIP:
            self.skip += 1
        elif tag in self._BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data.replace("\xa0", " "))


def html_text(data: bytes | str) -> str:
    """The text of a web page (an LMS text entry: Canvas `_text.html`, Moodle `onlinetext.html`),
    a line per paragraph, row or break, table cells apart; nothing in it is run."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    parser = _TextOfPage()
    parser.feed(text)
    parser.close()
    return "".join(parser.parts)
