"""Tables printed as Python programs print them, made with the real numpy (and pandas when it is
installed): numpy's own print of an int and a float table (wrapped at 75 characters, `0.` for
zero, scientific notation when the values span many decades), with and without a title line,
repr, .tolist(), row by row, DataFrames. Read at the probe sizes (LTarget 7, 20 and 31: numpy
prints up to 1,000 values in full), and a summarised printout is refused with a plain reason."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable

import pytest

from dicejack.formats import FormatError
from dicejack.formats.submission import read_submission_text
from dicejack.formats.submission.reader import find_table_size

np = pytest.importorskip("numpy")

N_DICE = 2
NUMPY_REASON = ("the tables were printed summarised with '...' (numpy prints at most 1,000 "
                "values by default): print them in full, e.g. "
                "numpy.set_printoptions(threshold=sys.maxsize)")


def _tables(low: int, *, tiny: bool) -> tuple[np.ndarray, np.ndarray]:
    """A best-J table (1..2, -1 in a corner) and a probability table (0 and 1 among its values,
    -1 where the corner has no data; `tiny`: a value of 1e-5, which makes numpy print all of it
    in scientific notation)."""
    rng = np.random.default_rng(low)
    policy = rng.integers(1, N_DICE + 1, size=(low, low))
    prob = (0.05 + 0.9 * rng.random((low, low))).round(6)
    prob[0, 0], prob[1, 1] = 0.0, 1.0
    if tiny:
        prob[2, 2] = 1e-5
    policy[-1, -1] = prob[-1, -1] = -1
    return policy, prob


def _printed(show: Callable[[], object]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        show()
    return out.getvalue()


def _ways(policy: np.ndarray, prob: np.ndarray) -> dict[str, Callable[[], object]]:
    return {
        "print": lambda: (print(policy), print(prob)),
        "print with titles": lambda: (print("Best number of dice:"), print(policy),
                                      print("Probability of winning:"), print(prob)),
        "repr": lambda: (print(repr(policy)), print(repr(prob))),
        "float best J": lambda: (print(policy.astype(float)), print(prob)),
        "rows of arrays": lambda: [print(row) for table in (policy, prob) for row in table],
        "tolist": lambda: (print(policy.tolist()), print(prob.tolist())),
        "tolist with titles": lambda: (print("J"), print(policy.tolist()), print("P"),
                                       print(prob.tolist())),
        "rows of lists": lambda: [print(row) for table in (policy, prob)
                                  for row in table.tolist()],
        "rows with commas": lambda: [print(", ".join(map(str, row)))
                                     for table in (policy, prob) for row in table.tolist()],
    }


def _check_read(text: str, low: int, policy: np.ndarray, prob: np.ndarray) -> None:
    sub = read_submission_text(text, low, N_DICE)
    assert np.array_equal(sub.policy, policy)
    no_data = prob == -1
    assert np.array_equal(sub.no_data, no_data)
    assert np.allclose(sub.probability[~no_data], prob[~no_data], rtol=0, atol=1e-7)
    assert find_table_size(text, N_DICE) == low  # the size hint finds them too


@pytest.mark.parametrize("tiny", [False, True], ids=["fixed", "scientific"])
@pytest.mark.parametrize("low", [7, 20, 31])
@pytest.mark.parametrize("way", list(_ways(np.zeros((1, 1)), np.zeros((1, 1)))))
def test_tables_printed_by_numpy_are_read(low: int, tiny: bool, way: str) -> None:
    policy, prob = _tables(low, tiny=tiny)
    with np.printoptions():  # numpy's defaults, whatever another test set
        np.set_printoptions(**_NUMPY_DEFAULTS)
        text = _printed(_ways(policy, prob)[way])
    if tiny and way.startswith("print"):
        assert "e-01" in text  # numpy printed the probabilities in scientific notation
    if way == "print" and not tiny:
        assert "[[ 0.  " in text  # `0.` for zero
        assert ("\n  " in text) == (low >= 20)  # rows wrapped at 75 characters
    assert "..." not in text
    _check_read(text, low, policy, prob)


_NUMPY_DEFAULTS = {"threshold": 1000, "linewidth": 75, "edgeitems": 3, "precision": 8}


def test_numpy_prints_a_31x31_table_in_full_and_a_32x32_one_summarised() -> None:
    """The largest probe's tables (docs/running.md): numpy's default threshold is 1,000 values;
    a 32x32 table (1,024) is summarised and refused with the plain reason."""
    assert np.get_printoptions()["threshold"] == 1000
    for low, full in ((31, True), (32, False)):
        policy, prob = _tables(low, tiny=False)
        for way in ("print", "print with titles", "repr", "float best J"):
            text = _printed(_ways(policy, prob)[way])
            assert ("..." not in text) == full
            if full:
                _check_read(text, low, policy, prob)
                continue
            with pytest.raises(FormatError) as err:
                read_submission_text(text, low, N_DICE)
            assert str(err.value) == NUMPY_REASON
            assert find_table_size(text, N_DICE) is None  # no size to hint at: values elided
    # printed in full as the reason says, it is read
    with np.printoptions(threshold=sys.maxsize):
        policy, prob = _tables(40, tiny=True)
        _check_read(_printed(_ways(policy, prob)["print with titles"]), 40, policy, prob)


def test_a_table_summarised_by_numpy_at_any_size_gets_the_plain_reason() -> None:
    policy, prob = _tables(7, tiny=False)
    with np.printoptions(threshold=20):  # a smaller threshold, as a program may set it
        text = _printed(_ways(policy, prob)["print"])
    assert "..." in text
    with pytest.raises(FormatError) as err:
        read_submission_text(text, 7, N_DICE)
    assert str(err.value) == NUMPY_REASON


def test_dataframes_printed_in_full_are_read_and_summarised_ones_get_the_plain_reason() -> None:
    pd = pytest.importorskip("pandas")
    policy, prob = _tables(20, tiny=False)
    frames = pd.DataFrame(policy), pd.DataFrame(prob)
    text = _printed(lambda: [print(f.to_string()) for f in frames])
    _check_read(text, 20, policy, prob)
    with pd.option_context("display.width", 80, "display.max_columns", 10):
        text = _printed(lambda: [print(f) for f in frames])  # as pandas prints to a pipe
    assert "..." in text
    with pytest.raises(FormatError) as err:
        read_submission_text(text, 20, N_DICE)
    assert str(err.value) == ("the tables were printed summarised with '...' (pandas leaves out "
                              "rows and columns by default): print them in full, e.g. "
                              "print(df.to_string())")
