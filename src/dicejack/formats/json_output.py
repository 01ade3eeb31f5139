"""JSON text as dicejack writes it: numpy values made plain, NaN and infinities as null, never
NaN or Infinity tokens; the one home of JSON output for every command and file."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

__all__ = ["json_safe", "json_text"]


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
