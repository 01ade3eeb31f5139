"""Optional pandas: rows of plain values as a ``pandas.DataFrame``, for ``to_frame()`` methods.

pandas is not a dependency of dicejack (``pip install 'dicejack[pandas]'`` or any pandas >= 2);
it is imported only here, only when a frame is asked for, and its absence is a one-line error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dicejack.runtime.messages import DicejackError


class PandasMissingError(DicejackError):
    """``to_frame()`` was called but pandas is not installed."""


def to_frame(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None) -> Any:
    """A ``pandas.DataFrame`` with one row per mapping, columns in `columns` order (default: the
    keys of the first row, then any new keys in order of appearance)."""
    try:
        import pandas as pd
    except ImportError:
        raise PandasMissingError(
            "to_frame() needs pandas, which dicejack does not install: pip install pandas"
        ) from None
    rows = [dict(r) for r in rows]
    if columns is None:
        seen: dict[str, None] = {}
        for row in rows:
            seen.update(dict.fromkeys(row))
        columns = list(seen)
    return pd.DataFrame.from_records(rows, columns=list(columns))
