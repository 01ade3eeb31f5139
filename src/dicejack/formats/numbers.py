"""Counts as people write them, read one way by every command: ``100000``, ``100_000``,
``100,000`` (thousands separators) and ``1e5`` are the same count; a count must be a whole
number, exactly (``1.5e3`` is 1500, ``1e-3`` and ``12.5`` are refused); and counts are printed
back as integers with thousands separators (``100,000``), never as ``1e+14``."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from dicejack.formats import FormatError

__all__ = ["parse_count", "count_text"]

_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+")
_PLAIN = re.compile(r"[+-]?(\d+(_\d+)*)(\.\d*)?([eE][+-]?\d+)?|[+-]?\.\d+([eE][+-]?\d+)?")


def parse_count(text: str | int, what: str = "count") -> int:
    """`text` as an exact integer: digits with optional ``_`` or ``,`` thousands separators, or
    a number in scientific notation whose value is whole (``1e5``, ``2.5e6``); FormatError (one
    line, naming `what`) for anything else. Sign and range are the caller's to check."""
    if isinstance(text, bool):
        raise FormatError(f"{what} must be a whole number, got {text!r}")
    if isinstance(text, int):
        return text
    raw = str(text).strip()
    digits = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw
    if not _PLAIN.fullmatch(digits):
        raise FormatError(f"{what} must be a whole number such as 100000, 100_000, 100,000 or "
                          f"1e5, got {raw!r}")
    try:
        value = Decimal(digits.replace("_", ""))
    except InvalidOperation:
        raise FormatError(f"{what} must be a whole number, got {raw!r}") from None
    if value.is_finite() and value.adjusted() > 18:
        raise FormatError(f"{what} {raw} is too large (at most 10^18)")
    if value != value.to_integral_value():
        raise FormatError(f"{what} must be a whole number, got {raw!r}")
    return int(value)


def count_text(n: int) -> str:
    """A count as people read it: 100,000 (an integer with thousands separators)."""
    return f"{int(n):,}"
