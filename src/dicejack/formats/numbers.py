"""Counts as people write them, read one way by every command: ``100000``, ``100_000``,
``100,000`` (thousands separators) and ``1e5`` are the same count; a count must be a whole
number, exactly (``1.5e3`` is 1500, ``1e-3`` and ``12.5`` are refused); and counts are printed
back as integers with thousands separators (``100,000``), never as ``1e+14``.

Measured numbers that files keep (a report's metrics.csv, metrics.json and its figures' CSV)
are written at a stated precision, :data:`STATED_DIGITS` significant digits (:func:`stated`):
another numpy, scipy or numba may move a float's last digits, never these."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from dicejack.formats import FormatError

__all__ = ["parse_count", "count_text", "STATED_DIGITS", "stated", "stated_numbers"]

#: Significant digits of the measured numbers files keep (module docstring).
STATED_DIGITS = 12


def stated(v: float) -> float:
    """`v` rounded to :data:`STATED_DIGITS` significant digits (NaN and infinities as they are);
    its repr is at most that many digits."""
    v = float(v)
    return float(f"{v:.{STATED_DIGITS}g}") if math.isfinite(v) else v


def stated_numbers(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, tuples, numbers) with every float :func:`stated`."""
    if isinstance(value, float):
        return stated(value)
    if isinstance(value, dict):
        return {k: stated_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [stated_numbers(v) for v in value]
    return value

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
