"""formats.precision: numbers written at 12 significant digits, so that a last-digit change of a
library does not move a reproducible file."""

from __future__ import annotations

import math

from dicejack.formats.precision import STATED_DIGITS, stated, stated_text, stated_tree


def test_twelve_significant_digits_whatever_the_last_ones():
    assert STATED_DIGITS == 12
    assert stated_text(1 / 3) == "0.333333333333"
    assert stated_text(0.1 + 0.2) == "0.3"
    # two float64 values apart in the 16th-17th digit (as another numpy may sum) read alike
    a, b = 0.5297735149737643, 0.5297735149737641
    assert a != b and stated_text(a) == stated_text(b) == "0.529773514974"
    assert stated_text(123456789.123456789) == "123456789.123"
    assert stated_text(2.5e-14) == "2.5e-14"
    assert stated(0.0) == 0.0 and math.isnan(stated(math.nan)) and stated(math.inf) == math.inf


def test_a_tree_has_every_float_stated_and_nothing_else_touched():
    tree = {"p": 1 / 3, "n": 7, "ok": True, "name": "q-learning",
            "rows": [{"mean": 2 / 3, "low": None}, (0.1 + 0.2, 5)]}
    assert stated_tree(tree) == {"p": 0.333333333333, "n": 7, "ok": True, "name": "q-learning",
                                 "rows": [{"mean": 0.666666666667, "low": None}, [0.3, 5]]}
    assert stated_tree(tree)["ok"] is True
