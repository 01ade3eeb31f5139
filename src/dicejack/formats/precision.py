"""The precision numbers are written at in files a command must reproduce byte for byte on any
machine (a report's ``metrics.csv`` and ``metrics.json``): 12 significant digits
(:data:`STATED_DIGITS`). The values are computed in float64, whose last digits move with a
library's version (numpy's summation order, scipy's solvers, numba's code); rounded to 12
digits they stay put unless a value sits within a few units of the 17th digit of a rounding
boundary, and they keep far more digits than any metric's sampling spread."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["STATED_DIGITS", "stated", "stated_text", "stated_tree"]

#: Significant digits of a number written to a reproducible file.
STATED_DIGITS = 12


def stated(value: float) -> float:
    """`value` rounded to :data:`STATED_DIGITS` significant digits (inf and nan as they are)."""
    value = float(value)
    if not math.isfinite(value) or value == 0.0:
        return value
    return float(f"{value:.{STATED_DIGITS}g}")


def stated_text(value: float) -> str:
    """:func:`stated`'s value as the shortest text that reads back to it (``0.351111111111``)."""
    return repr(stated(value))


def stated_tree(data: Any) -> Any:
    """`data` (JSON-like: mappings, lists, tuples, numbers, text) with every float
    :func:`stated`; ints, bools and everything else as they are."""
    if isinstance(data, float):
        return stated(data)
    if isinstance(data, Mapping):
        return {k: stated_tree(v) for k, v in data.items()}
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return [stated_tree(v) for v in data]
    return data
