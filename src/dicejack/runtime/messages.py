"""The one-line message a user sees for an error: every layer's errors, warnings and batch rows
say their reason through :func:`one_line`, so none prints a multi-line or endless text. No
imports: the console script loads it before its Ctrl-C handler is in place."""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(message: object, limit: int = 500) -> str:
    """`message` (an exception or text) as one line for the user: whitespace runs collapsed,
    at most `limit` characters; an exception without text gives its type's name."""
    line = " ".join(str(message).split())
    if not line and isinstance(message, BaseException):
        line = type(message).__name__
    return line[:limit] if line else "unknown error"
