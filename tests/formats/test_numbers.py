"""Tests of dicejack.formats.numbers: one notation for counts, exact, printed as integers."""

from __future__ import annotations

import math

import pytest

from dicejack import formats
from dicejack.formats.numbers import count_text, parse_count


@pytest.mark.parametrize("text, value", [
    ("100000", 100_000), ("100_000", 100_000), ("100,000", 100_000), ("1e5", 100_000),
    ("1E5", 100_000), ("2.5e6", 2_500_000), (" 7 ", 7), ("1,000,000", 1_000_000),
    ("0", 0), ("-3", -3), (12, 12),
])
def test_counts_written_every_common_way_read_the_same(text, value):
    assert parse_count(text, "--games") == value


@pytest.mark.parametrize("text, message", [
    ("12.5", "must be a whole number, got '12.5'"), ("1e-3", "must be a whole number"),
    ("100,00", "such as 100000, 100_000, 100,000 or 1e5"), ("abc", "got 'abc'"),
    ("nan", "got 'nan'"), ("inf", "got 'inf'"), ("", "got ''"), (True, "whole number"),
    ("1e300", "--games 1e300 is too large (at most 10^18)"),
])
def test_anything_else_is_a_one_line_error_naming_the_option(text, message):
    with pytest.raises(formats.FormatError, match="^--games") as info:
        parse_count(text, "--games")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_counts_print_as_integers():
    assert count_text(10**14) == "100,000,000,000,000"


def test_measured_numbers_are_kept_at_the_stated_digits():
    """Issue 46: Pig's committed exploitability 0.4692385779051529 came out as
    0.46923857790515267 under other libraries; at 12 significant digits both are one number."""
    from dicejack.formats.numbers import STATED_DIGITS, stated, stated_numbers

    assert STATED_DIGITS == 12
    assert stated(0.4692385779051529) == stated(0.46923857790515267) == 0.469238577905
    assert repr(stated(1 / 3)) == "0.333333333333" and stated(2.0) == 2.0
    assert math.isnan(stated(math.nan)) and stated(-math.inf) == -math.inf
    assert stated_numbers({"a": [1 / 3, 2, "x", None], "b": (1e-20 / 3,)}) == {
        "a": [0.333333333333, 2, "x", None], "b": [3.33333333333e-21]}
