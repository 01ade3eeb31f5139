"""Round trip of the submission reader: the same tables printed in every layout the reader
claims (formats.SUBMISSION_LAYOUTS), with every no-data convention, read back exactly.

The printing is tests/formats/layouts.py, written from the layouts' descriptions, not from the
reader.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack.formats import Submission
from dicejack.formats.submission import SUBMISSION_LAYOUTS, find_table_size, read_submission_text

from .layouts import (
    CONVENTIONS,
    DECIMALS,
    LAYOUTS,
    Style,
    Tables,
    expected,
    make_tables,
    render,
)

SEPARATE = {"grid", "grid-tabs", "grid-column-header", "tab-corner", "csv", "labelled-grid"}
SEPARATE |= {"labelled-csv", "list-repr", "list-numpy-items", "numpy-repr", "numpy-str"}


def check_round_trip(tables: Tables, layout: str, style: Style) -> Submission:
    """Print the tables, read them back, compare with the arrays the convention defines."""
    text = render(tables, layout, style)
    context = f"layout {layout}, convention {style.convention.name}, style {style}:\n{text}"
    sub = read_submission_text(text, tables.low, tables.n_dice)
    policy, prob, no_data = expected(tables, layout, style)
    assert sub.policy.dtype == np.int64 and sub.probability.dtype == np.float64, context
    assert np.array_equal(sub.policy, policy), f"policy {sub.policy.tolist()}\n{context}"
    assert np.array_equal(sub.no_data, no_data), f"no_data {sub.no_data.tolist()}\n{context}"
    assert np.array_equal(np.isnan(sub.probability), no_data), context
    assert np.array_equal(sub.probability[~no_data], prob[~no_data]), (
        f"probability {sub.probability.tolist()}\n{context}"
    )
    if tables.low > 1:  # a 1 x 1 table has no separators to tell a csv from a grid
        assert sub.layout == LAYOUTS[layout].reader_layout, f"layout {sub.layout}\n{context}"
    unlabelled = layout in SEPARATE and not style.headings
    assert sub.flags == (("unlabelled",) if unlabelled else ()), f"flags {sub.flags}\n{context}"
    return sub


def test_layouts_cover_the_readers_claims() -> None:
    """Every layout the reader claims is printed by some renderer, and nothing else."""
    assert {layout.reader_layout for layout in LAYOUTS.values()} == set(SUBMISSION_LAYOUTS)


CASES = [
    (layout, convention)
    for layout in sorted(LAYOUTS)
    for convention in LAYOUTS[layout].conventions
]


@pytest.mark.parametrize(("layout", "convention"), CASES)
def test_every_layout_with_every_convention(layout: str, convention: str) -> None:
    """Each pair at a fixed size (L = 5, K = 3), with every number of decimals, printed once
    and twice, with and without headings."""
    tables = make_tables(5, 3, seed=len(CASES))
    for variant, decimals in enumerate(DECIMALS):
        for twice in (False, True):
            style = Style(CONVENTIONS[convention], decimals, twice, variant % 2 == 0, variant)
            check_round_trip(tables, layout, style)


@st.composite
def printings(draw: st.DrawFn) -> tuple[Tables, str, Style]:
    layout = draw(st.sampled_from(sorted(LAYOUTS)))
    low = draw(st.integers(LAYOUTS[layout].min_low, 9))
    tables = make_tables(low, draw(st.integers(1, 4)), draw(st.integers(0, 2**32 - 1)))
    style = Style(
        CONVENTIONS[draw(st.sampled_from(LAYOUTS[layout].conventions))],
        draw(st.sampled_from(DECIMALS)),
        twice=draw(st.booleans()),
        headings=draw(st.booleans()),
        variant=draw(st.integers(0, 2**16)),
    )
    return tables, layout, style


@pytest.mark.slow
@settings(
    max_examples=800,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(printing=printings())
def test_round_trip_random_tables(printing: tuple[Tables, str, Style]) -> None:
    """Random sizes (L 1..9, K 1..4), tables, layouts, conventions, decimals, copies."""
    check_round_trip(*printing)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("low", [4, 10])
def test_the_table_size_is_found_in_every_layout(layout: str, low: int) -> None:
    """Tables of another size than expected: find_table_size names theirs (for the message)."""
    tables = make_tables(low, 3, seed=low)
    for convention, twice in (("-1/-1", False), (LAYOUTS[layout].conventions[-1], True)):
        text = render(tables, layout, Style(CONVENTIONS[convention], 4, twice=twice))
        assert find_table_size(text, 3) == low, f"{layout} {convention}:\n{text}"
    assert find_table_size(text.encode("utf-16"), 3) == low  # as PowerShell's `>` writes it
