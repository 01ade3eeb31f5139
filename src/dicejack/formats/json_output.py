"""JSON text as dicejack writes it: numpy values made plain, NaN and infinities as null, never
NaN or Infinity tokens; the one home of JSON output for every command and file. Large tables are
written a row at a time (json_chunks), so the output never needs many times its size in RAM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

__all__ = ["json_chunks", "json_safe", "json_text", "write_json"]


def json_safe(obj: Any) -> Any:
    """`obj` with numpy values made plain and every non-finite float (NaN, +-inf) as None.

    JSON has no NaN or infinity; dicejack writes null for them (a hostile input such as ``inf``
    or ``1e309`` in a table is data, never a crash)."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if np.isfinite(v) else None
    return obj


def json_text(obj: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """`obj` as valid JSON text ending in a newline, non-finite numbers as null (see
    :func:`json_safe`); never NaN or Infinity tokens (``allow_nan=False`` holds it to that)."""
    separators = (",", ":") if compact else None
    return json.dumps(json_safe(obj), indent=indent, separators=separators,
                      allow_nan=False) + "\n"


def _compact(obj: Any) -> str:
    return json.dumps(json_safe(obj), separators=(",", ":"), allow_nan=False)


def _value_chunks(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        yield "{"
        for n, (key, value) in enumerate(obj.items()):
            yield ("," if n else "") + json.dumps(str(key)) + ":"
            yield from _value_chunks(value)
        yield "}"
    elif isinstance(obj, np.ndarray) and obj.ndim >= 2:
        yield "["
        for n, row in enumerate(obj):
            yield ("," if n else "") + _compact(row)
        yield "]"
    else:
        yield _compact(obj)


def json_chunks(obj: Any) -> Iterator[str]:
    """`json_text(obj, compact=True)` in pieces, to be written one after another: a numpy
    array of two or more dimensions a row at a time (its rows as lists only while written), so
    writing a table of 10^7 values holds one row of them as Python objects, not all."""
    yield from _value_chunks(obj)
    yield "\n"


def write_json(obj: Any, stream: IO[str]) -> None:
    """Write `json_text(obj, compact=True)` to a text stream as :func:`json_chunks` makes it
    (what `learn` and `solve --format json` print: a table of 10^7 values never held as a
    string nor as Python lists)."""
    for chunk in json_chunks(obj):
        stream.write(chunk)
