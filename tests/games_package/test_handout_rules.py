"""Rules of the game: validation, exact dice-sum distributions, reachability."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicejack.games.handout_rules import (
    CONTINUES,
    MOVER_LOSES,
    MOVER_WINS,
    DicejackError,
    Game,
    GameError,
)


def brute_force_counts(n_sides: int, j: int) -> list[int]:
    """Count totals by enumerating every roll of j dice."""
    counts = [0] * (j * n_sides + 1)
    for faces in itertools.product(range(1, n_sides + 1), repeat=j):
        counts[sum(faces)] += 1
    return counts


def test_two_six_sided_dice_by_hand():
    game = Game(6, 15, 17, 2)
    assert game.sum_counts(2) == [0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    assert game.sum_fractions(2)[7] == Fraction(1, 6)
    assert game.sum_counts(0) == [1]
    assert game.sum_probability_table[2, 7] == pytest.approx(6 / 36, abs=0)


@given(st.integers(1, 6), st.integers(1, 4))
@settings(max_examples=30, deadline=None)
def test_sum_counts_match_enumeration(n_sides, n_dice):
    game = Game(n_sides, 10, 12, n_dice)
    for j in range(n_dice + 1):
        assert game.sum_counts(j) == brute_force_counts(n_sides, j)
        cdf = game.sum_cdf_table[j]
        assert cdf[-1] == 1.0
        assert np.all(np.diff(cdf) >= 0)


def test_large_counts_are_exact_python_integers():
    game = Game(6, 10, 12, 30)
    counts = game.sum_counts(30)
    assert sum(counts) == 6**30  # beyond float precision, still exact
    assert counts[30] == 1 and counts[180] == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_sides=0, low=5, high=6, n_dice=1), "n_sides"),
        (dict(n_sides=6, low=5, high=6, n_dice=0), "n_dice"),
        (dict(n_sides=6, low=0, high=6, n_dice=1), "low"),
        (dict(n_sides=6, low=7, high=6, n_dice=1), "high"),
        (dict(n_sides=6.0, low=5, high=6, n_dice=1), "integer"),
        (dict(n_sides=True, low=5, high=6, n_dice=1), "integer"),
        (dict(n_sides="6", low=5, high=6, n_dice=1), "integer"),
    ],
)
def test_invalid_games_are_refused_with_one_line(kwargs, message):
    with pytest.raises(GameError, match=message) as info:
        Game(**kwargs)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, DicejackError)


def test_oversized_game_names_its_size():
    with pytest.raises(GameError, match=r"GiB"):
        Game(6, 40_000, 40_010, 10)


def test_game_is_frozen_and_hashable():
    game = Game(6, 15, 17, 2)
    with pytest.raises(AttributeError):
        game.low = 3  # type: ignore[misc]
    assert {game: 1}[Game(6, 15, 17, 2)] == 1
    assert game.params() == {"n_sides": 6, "low": 15, "high": 17, "n_dice": 2}


def test_outcome_rules():
    game = Game(6, 15, 17, 2)
    assert game.outcome(14) == CONTINUES
    assert game.outcome(15) == MOVER_WINS
    assert game.outcome(17) == MOVER_WINS
    assert game.outcome(18) == MOVER_LOSES


def test_reachable_handout_caveat_b():
    # NDice = 2, NSides = 2: <5, 0> cannot be reached from <0, 0> (the handout's caveat B).
    game = Game(2, 10, 20, 2)
    reach = game.reachable()
    assert not reach[5, 0]
    assert reach[0, 0] and reach[0, 4] and reach[4, 4]
    # Opponent has 0 only before the opponent's first move: mover has 0 too (the start).
    assert not reach[1:, 0].any()


def test_reachable_by_brute_force_enumeration():
    game = Game(3, 7, 8, 2)
    seen = set()
    frontier = [(0, 0)]
    while frontier:
        x, y = frontier.pop()
        if (x, y) in seen:
            continue
        seen.add((x, y))
        for t in range(1, 2 * 3 + 1):
            if x + t < game.low:
                frontier.append((y, x + t))
    expected = np.zeros(game.shape, dtype=bool)
    for x, y in seen:
        expected[x, y] = True
    assert np.array_equal(game.reachable(), expected)


def test_outcome_is_the_rule_every_path_uses():
    from dicejack.games.handout_rules import CONTINUES, MOVER_LOSES, MOVER_WINS, outcome

    game = Game(n_sides=6, low=15, high=17, n_dice=2)
    assert [outcome(s, 15, 17) for s in (14, 15, 17, 18)] == [
        CONTINUES, MOVER_WINS, MOVER_WINS, MOVER_LOSES]
    assert [game.outcome(s) for s in (14, 15, 17, 18)] == [outcome(s, 15, 17)
                                                          for s in (14, 15, 17, 18)]


def test_roll_total_inverts_the_cdf_exactly():
    from dicejack.games.handout_rules import roll_total

    game = Game(n_sides=3, low=10, high=12, n_dice=2)
    cdf = game.sum_cdf_table.tolist()
    # Two dice of 3 sides: totals 2..6 with counts 1, 2, 3, 2, 1 over 9.
    edges = [(0.0, 2), (1 / 9 - 1e-12, 2), (1 / 9, 3), (3 / 9 - 1e-12, 3), (3 / 9, 4),
             (6 / 9 + 1e-12, 5), (8 / 9, 6), (1 - 1e-16, 6)]
    for u, total in edges:
        assert roll_total(cdf[2], u) == total, (u, total)
    assert roll_total(cdf[1], 0.5) == 2
