"""Yamslam's re-roll decision (dicejack.games.yamslam): the score table by hand, and the exact
expected final score of (roll, mask) pairs held to a brute-force enumeration of the ordered
re-rolled dice written here."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from dicejack.games import GameDefinitionError, Yamslam, enumerate_game, make_game
from dicejack.games.yamslam import ROLLS, pattern, score
from dicejack.solver.generic import solve_game


@pytest.mark.parametrize("dice, points, name", [
    ((4, 4, 4, 4, 4), 50, "five of a kind"),
    ((2, 3, 4, 5, 6), 50, "large straight"),
    ((1, 2, 3, 4, 5), 50, "large straight"),
    ((3, 3, 3, 3, 6), 40, "four of a kind"),
    ((2, 2, 5, 5, 5), 30, "full house"),
    ((1, 1, 3, 5, 5), 25, "flush"),       # all odd (also two pair: 5)
    ((2, 4, 4, 6, 6), 25, "flush"),       # all even
    ((1, 2, 3, 4, 6), 20, "small straight"),
    ((3, 4, 5, 6, 6), 20, "small straight"),
    ((2, 2, 2, 5, 6), 10, "three of a kind"),
    ((1, 1, 2, 2, 6), 5, "two pair"),
    ((1, 1, 2, 4, 6), 0, "nothing"),
    ((1, 1, 1, 3, 5), 25, "flush"),  # all odd beats three of a kind
])
def test_score_table(dice, points, name):
    assert score(dice) == points
    assert pattern(dice) == name
    assert score(tuple(reversed(dice))) == points


def _brute(roll, mask):
    """E[score] after holding `mask` of `roll` and re-rolling the rest: every ordered throw."""
    held = [d for i, d in enumerate(roll) if mask >> i & 1]
    m = 5 - len(held)
    total = sum(score(tuple(held) + faces) for faces in product(range(1, 7), repeat=m))
    return Fraction(total, 6 ** m)


def test_exact_values_equal_brute_force():
    sol = solve_game(Yamslam(1), exact=True)
    space = sol.space
    assert space.n_states == 1 + 252 + 252
    assert len(ROLLS) == 252
    for roll in [(1, 1, 2, 4, 6), (2, 3, 4, 5, 5), (6, 6, 6, 6, 6), (1, 3, 3, 5, 6)]:
        s = space.index[(roll, 1)]
        for r in space.rows(s):
            mask = space.actions[r]
            if mask in (0, 1, 6, 15, 22, 31):
                assert sol.q[r] == pytest.approx(float(_brute(roll, mask)), abs=1e-12)
        assert sol.values_exact[s] == max(_brute(roll, m) for m in range(32))
    # the start: every roll's best, weighted by its probability (252 rolls, 7776 throws)
    start = sum(Fraction(1, 7776) * sol.values_exact[space.index[(tuple(sorted(t)), 1)]]
                for t in product(range(1, 7), repeat=5))
    assert sol.value_exact == start == Fraction(74375, 3888)


def test_two_rerolls_is_worth_more_and_holding_all_is_the_roll():
    one, two = solve_game(Yamslam(1)), solve_game(Yamslam(2))
    assert two.value > one.value
    space = two.space
    roll = (2, 2, 5, 5, 5)
    r = space.row_of((roll, 1), 31)
    assert two.q[r] == 30
    # with two re-rolls left, holding the full house keeps it for the last decision
    assert two.q[space.row_of((roll, 2), 31)] == pytest.approx(two.value_of((roll, 1)))
    assert enumerate_game(Yamslam(2)).n_states == 1 + 252 * 3


def test_bad_rerolls():
    with pytest.raises(GameDefinitionError, match="rerolls"):
        make_game("yamslam", {"rerolls": 0})
