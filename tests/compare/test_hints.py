"""Slips in printed tables (transposed, 0-based J, another size), judged against the truth."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import compare
from dicejack.compare import hints
from dicejack.learners import formulas, handout
from tests.games import HANDOUT
from tests.games import SMALLEST as TINY

# The tiny game of tests/test_compare.py, computed by hand there: a two-sided die, target exactly
# 2, up to 2 dice. P* = [[5/8, 3/4], [1/2, 1/2]], optimal J = 1 everywhere; <1,0> unreachable.


def test_hints_on_the_hand_computed_tiny_game(tiny_truth):
    sol = tiny_truth.solution  # P* = [[5/8, 3/4], [1/2, 1/2]], J = 1 everywhere
    right = hints.table_hints(tiny_truth, sol.best, sol.p)
    assert not right.transposed and not right.zero_based
    assert right.error == 0.0 and right.agreement == 1.0 and right.agreement_shifted == 0.0
    # transposed, <0,1> shows P*(1,0) = 1/2 instead of 3/4: off by 1/4 in 1 of 3 reachable states
    flipped = hints.table_hints(tiny_truth, sol.best.T, sol.p.T)
    assert flipped.transposed and not flipped.zero_based
    assert flipped.error == pytest.approx(1 / 12) and flipped.error_transposed == 0.0
    (message,) = flipped.messages(TINY.n_dice)
    assert "transposed" in message and "0.000" in message and "0.083" in message
    # J printed 0-based: 0 where the handout prints 1
    zero = hints.table_hints(tiny_truth, sol.best - 1, sol.p)
    assert zero.zero_based and not zero.transposed
    assert (zero.agreement, zero.agreement_shifted) == (0.0, 1.0)
    (message,) = zero.messages(TINY.n_dice)
    assert "0-based (0..1 printed for 1..2 dice)" in message and "100%" in message
    both = hints.table_hints(tiny_truth, (sol.best - 1).T, sol.p.T)
    assert both.transposed and both.zero_based and len(both.messages(2)) == 2


def test_hints_on_learned_tables(handout_truth):
    run = handout.learn(HANDOUT, 100.0, 100_000, seed=3)
    best, prob = formulas.learned_tables(run.win, run.lose)
    as_printed = hints.table_hints(handout_truth, best, prob)
    assert not as_printed.transposed and not as_printed.zero_based
    flipped = hints.table_hints(handout_truth, best.T, prob.T)
    assert flipped.transposed and not flipped.zero_based
    # a student printing argmax over J = 1..K without the +1: -1 where there is no data
    zero_based = np.where(best > 0, best - 1, -1)
    found = hints.table_hints(handout_truth, zero_based, prob)
    assert found.zero_based and not found.transposed
    assert found.agreement_shifted - found.agreement >= hints.ZERO_BASED_MIN_GAIN
    # J = 0 printed only where there is no data is the handout's own convention, not a slip
    assert not hints.table_hints(handout_truth, best, prob).zero_based
    # a policy that never plays K is not 0-based when shifting it does not help
    ones = np.ones_like(best)
    assert not hints.table_hints(handout_truth, ones, prob).zero_based


def test_size_hint():
    assert hints.size_hint(HANDOUT, 10) == (
        "the tables are 10x10: LTarget=10? try --low 10 --high <UTarget>")
    assert hints.size_hint(HANDOUT, 15) == "" and hints.size_hint(HANDOUT, None) == ""


def test_hint_names_are_imported_from_hints_not_from_compare():
    for name in hints.__all__:
        assert callable(getattr(hints, name)) or getattr(hints, name) is not None
        assert not hasattr(compare, name) and name not in dir(compare)
    with pytest.raises(AttributeError, match="no_such_name"):
        compare.no_such_name  # noqa: B018


def test_hint_tables_of_another_size_are_refused(tiny_truth):
    with pytest.raises(compare.CompareError, match="needs two 2x2 tables"):
        hints.table_hints(tiny_truth, np.ones((3, 3)), np.ones((2, 2)))
