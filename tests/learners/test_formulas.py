"""The handout's formulas (dicejack.learners.formulas): the worked
example, corner cases, bad M, the output arrays and the tied best J."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicejack.games.handout_rules import Game
from dicejack.learners import checks, formulas, handout
from dicejack.learners.checks import LearnerError
from tests.games import HANDOUT


def tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(game.table_shape, np.int64), np.zeros(game.table_shape, np.int64)



def test_handout_action_probability_example():
    game = Game(n_sides=6, low=15, high=17, n_dice=3)
    win, lose = tables(game)
    win[2, 3, 1:] = (0, 3, 1)
    lose[2, 3, 1:] = (2, 1, 1)
    p = formulas.action_probabilities(win, lose, 2, 3, 4)
    assert p.dtype == np.float64 and p.shape == (4,)
    assert p[0] == 0
    assert np.round(p[1:], 4).tolist() == [0.1481, 0.5556, 0.2963]
    assert p[1:] == pytest.approx([4 / 27, 10 / 18, 8 / 27], abs=1e-15)


def test_unvisited_state_is_nearly_uniform_and_f_half_without_data():
    game = Game(6, 15, 17, 3)
    win, lose = tables(game)
    p = formulas.action_probabilities(win, lose, 0, 0, 100.0)
    assert p[1:] == pytest.approx([1 / 3] * 3, abs=1e-15)
    # J=3 has no data, so f_3 = 0.5 beats f_1 = 0.25, f_2 = 0: B = 3.
    win[0, 0, 1:] = (1, 0, 0)
    lose[0, 0, 1:] = (3, 2, 0)
    p = formulas.action_probabilities(win, lose, 0, 0, 1.0)
    t, k, m = 6.0, 3, 1.0
    pb = (t * 0.5 + m) / (t * 0.5 + k * m)
    rest = (1 - pb) / ((0.25 + 0.0) * t + (k - 1) * m)
    assert p.tolist() == pytest.approx([0, rest * (t * 0.25 + m), rest * m, pb], abs=1e-15)


def test_one_die_always_rolls_one():
    game = Game(6, 15, 17, 1)
    win, lose = tables(game)
    for m in (0.0, 1.0, 1e300):
        assert formulas.action_probabilities(win, lose, 3, 4, m).tolist() == [0.0, 1.0]
    win[3, 4, 1], lose[3, 4, 1] = 0, 5
    assert formulas.action_probabilities(win, lose, 3, 4, 0.0).tolist() == [0.0, 1.0]


def test_m_zero_without_data_falls_back_to_uniform():
    game = Game(6, 15, 17, 4)
    win, lose = tables(game)
    assert formulas.action_probabilities(win, lose, 0, 0, 0).tolist() == [0, 0.25, 0.25, 0.25, 0.25]


def test_m_zero_with_every_f_zero_falls_back_to_uniform():
    game = Game(6, 15, 17, 2)
    win, lose = tables(game)
    lose[1, 2, 1:] = (3, 1)  # T = 4, f = (0, 0): T f_B = 0
    assert formulas.action_probabilities(win, lose, 1, 2, 0.0).tolist() == [0, 0.5, 0.5]


def test_m_zero_is_greedy_when_the_rest_has_zero_weight():
    game = Game(6, 15, 17, 3)
    win, lose = tables(game)
    win[1, 2, 1:] = (0, 2, 0)
    lose[1, 2, 1:] = (4, 1, 3)  # f = (0, 2/3, 0): g T + (K-1) M = 0
    assert formulas.action_probabilities(win, lose, 1, 2, 0.0).tolist() == [0, 0, 1, 0]
    win[1, 2, 3] = 1  # f_3 = 1/4 > 0: the formula applies; p_B = 1 still
    assert formulas.action_probabilities(win, lose, 1, 2, 0.0).tolist() == [0, 0, 1, 0]


def test_ties_pick_the_lowest_j_unless_told():
    game = Game(6, 15, 17, 3)
    win, lose = tables(game)
    win[0, 0, 1:] = (1, 2, 0)
    lose[0, 0, 1:] = (1, 2, 5)  # f = (0.5, 0.5, 0): B = 1 (lowest)
    p_low = formulas.action_probabilities(win, lose, 0, 0, 2.0)
    p_two = formulas.action_probabilities(win, lose, 0, 0, 2.0, best=2)
    assert p_low[1] > p_low[2] and p_two[2] > p_two[1]
    assert p_low[1] == p_two[2]
    with pytest.raises(LearnerError, match="largest"):
        formulas.action_probabilities(win, lose, 0, 0, 2.0, best=3)


@pytest.mark.parametrize("m", [-1, -1e-9, math.nan, math.inf, "4", None, True])
def test_bad_m_is_rejected(m):
    with pytest.raises(LearnerError, match="M must"):
        formulas.check_m(m)
    with pytest.raises(LearnerError):
        handout.learn(HANDOUT, m, 10, 1)


def test_m_times_k_must_be_finite():
    with pytest.raises(LearnerError, match="finite"):
        handout.learn(Game(6, 15, 17, 4), 1e308, 1, 1)


@settings(max_examples=200, deadline=None)
@given(
    k=st.integers(1, 6),
    m=st.one_of(st.just(0.0), st.floats(2.3e-308, 1e6, allow_nan=False, allow_infinity=False)),
    counts=st.lists(st.integers(0, 50), min_size=12, max_size=12),
)
def test_action_probabilities_are_a_distribution(k, m, counts):
    game = Game(6, 3, 5, k)
    win, lose = tables(game)
    win[1, 2, 1:] = counts[:k]
    lose[1, 2, 1:] = counts[6 : 6 + k]
    p = formulas.action_probabilities(win, lose, 1, 2, m)
    assert p.shape == (k + 1,) and p[0] == 0
    assert (p >= 0).all() and abs(p.sum() - 1) < 1e-12
    if m >= 1:  # (a tiny M can underflow to p_J = 0 next to a large T f_B)
        assert (p[1:] > 0).all()
    best = int(np.argmax(p))  # B has the largest probability (among the tied, the lowest J)
    pairs = zip(win[1, 2, 1:], lose[1, 2, 1:], strict=True)
    f = [w / (w + lo) if w + lo else 0.5 for w, lo in pairs]
    assert f[best - 1] == max(f)


def test_learned_tables():
    game = Game(6, 3, 5, 3)
    win, lose = tables(game)
    win[0, 0, 1:] = (1, 3, 0)
    lose[0, 0, 1:] = (3, 1, 0)  # J=3 has no data: ignored; best J=2 (0.75)
    win[0, 1, 1:] = (1, 2, 0)
    lose[0, 1, 1:] = (1, 2, 0)  # tie 0.5/0.5: lowest J=1
    lose[1, 1, 3] = 4  # only J=3, estimate 0
    best, prob = formulas.learned_tables(win, lose)
    assert best.dtype == np.int64 and best.shape == (3, 3)
    assert (best[0, 0], prob[0, 0]) == (2, 0.75)
    assert (best[0, 1], prob[0, 1]) == (1, 0.5)
    assert (best[1, 1], prob[1, 1]) == (3, 0.0)
    assert (best[2, 2], prob[2, 2]) == (0, -1.0)
    assert win.sum() == 7  # inputs untouched


def test_tied_best_holds_the_printed_best():
    run = handout.learn(Game(n_sides=4, low=8, high=9, n_dice=2), 100.0, 2_000, 5)
    best, prob = formulas.learned_tables(run.win, run.lose)
    tied = formulas.tied_best(run.win, run.lose)
    has = best > 0
    assert np.all(np.take_along_axis(tied, best[..., None], axis=-1)[..., 0][has])
    assert not tied[..., 0].any() and not tied[~has].any()
    # by hand: 2/4 = 1/2 tie, all lost (0/3, 0/1) tie, untried J never in the set
    win = np.zeros((2, 2, 4), dtype=np.int64)
    lose = np.zeros_like(win)
    win[0, 0, 1:] = (2, 1, 0)
    lose[0, 0, 1:] = (2, 1, 5)
    lose[0, 1, 1:] = (3, 1, 0)
    win[1, 0, 2] = 1
    tied = formulas.tied_best(win, lose)
    np.testing.assert_array_equal(tied[0, 0], [False, True, True, False])
    np.testing.assert_array_equal(tied[0, 1], [False, True, True, False])
    np.testing.assert_array_equal(tied[1, 0], [False, False, True, False])
    assert not tied[1, 1].any()


def test_subnormal_m_is_refused():
    """0 < M < the smallest normal float overflowed p_J to inf (found by hypothesis)."""
    with pytest.raises(checks.LearnerError, match="at least"):
        formulas.check_m(2.2250738585e-313, 2)
    assert formulas.check_m(sys.float_info.min, 2) == sys.float_info.min
