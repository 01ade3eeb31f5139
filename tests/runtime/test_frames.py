"""dicejack.runtime.frames: rows to a pandas DataFrame, and a one-line error without pandas."""

import sys

import pytest

from dicejack.runtime import frames


def test_rows_become_columns_in_order():
    pd = pytest.importorskip("pandas")
    df = frames.to_frame([{"a": 1, "b": 2.5}, {"a": 3, "c": "x"}])
    assert list(df.columns) == ["a", "b", "c"]
    assert df["a"].tolist() == [1, 3]
    assert df["b"].iloc[0] == 2.5 and pd.isna(df["b"].iloc[1])
    assert list(frames.to_frame([{"a": 1, "b": 2}], columns=["b", "a"]).columns) == ["b", "a"]


def test_without_pandas_the_error_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(frames.PandasMissingError, match="pip install pandas"):
        frames.to_frame([{"a": 1}])
