"""compare.conventions: the handout's J and probabilities against 0-based actions and [-1, 1]
values, and q-values as the handout's two arrays."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import compare
from dicejack.compare import CompareError, greedy_tables
from dicejack.learners import formulas
from tests.games import SMALL


def test_actions_and_values_convert_both_ways():
    assert compare.dice_to_action(1) == 0 and compare.action_to_dice(0) == 1
    np.testing.assert_array_equal(compare.dice_to_action([1, 2, 3]), [0, 1, 2])
    np.testing.assert_array_equal(compare.action_to_dice(np.array([0, 2])), [1, 3])
    assert compare.probability_to_value(0.75) == 0.5 and compare.value_to_probability(-1.0) == 0.0
    p = np.linspace(0, 1, 11)
    np.testing.assert_allclose(compare.value_to_probability(compare.probability_to_value(p)), p)
    assert compare.mover_view((3, 9), 0) == (3, 9) and compare.mover_view((3, 9), 1) == (9, 3)
    with pytest.raises(CompareError, match="player 0 or 1"):
        compare.mover_view((3, 9), 2)


def test_greedy_tables_match_the_learner_on_counts():
    rng = np.random.default_rng(0)
    win = rng.integers(0, 4, size=SMALL.table_shape)
    lose = rng.integers(0, 4, size=SMALL.table_shape)
    win[..., 0] = lose[..., 0] = 0
    win[2, 3] = lose[2, 3] = 0  # a state without data
    win[4, 5, 1:] = lose[4, 5, 1:] = (2, 2)  # a tie: the lowest J
    plays = win + lose
    q = np.where(plays > 0, win / np.maximum(plays, 1), 0.0)
    best, prob = greedy_tables(SMALL, q, visits=plays)
    want_best, want_prob = formulas.learned_tables(win, lose)
    np.testing.assert_array_equal(best, want_best)
    np.testing.assert_array_equal(prob, want_prob)
    assert best[2, 3] == 0 and prob[2, 3] == -1 and best[4, 5] == 1
    # Per-state visits, and none: every state gets a J.
    best_s, _ = greedy_tables(SMALL, q, visits=plays.sum(axis=2))
    assert best_s[2, 3] == 0 and (best_s[plays.sum(axis=2) > 0] > 0).all()
    full, _ = greedy_tables(SMALL, q)
    assert full.min() == 1 and full.max() == 2


@pytest.mark.parametrize(
    ("q", "visits", "message"),
    [
        (np.zeros((8, 8, 2)), None, "q must have shape"),
        (np.full((8, 8, 3), np.nan), None, "finite"),
        (np.zeros((8, 8, 3)), np.zeros((8, 3)), "visits must have shape"),
    ],
)
def test_greedy_tables_bad_input(q, visits, message):
    with pytest.raises(CompareError, match=message):
        greedy_tables(SMALL, q, visits)


