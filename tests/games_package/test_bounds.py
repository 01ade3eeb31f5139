"""A game's bounds (dicejack.games.bounds.game_bounds): player 0's least and greatest return over
every play (rewards on the way and the payoff) and the longest play, held to a walk of every
play written here; cyclic games have no longest play, and a cycle that pays makes the range
open on that side."""

from __future__ import annotations

import math

import pytest

from dicejack.games import HandoutGame, PeekingBlackjack, Pig, Piglet, enumerate_game
from dicejack.games.bounds import MOVES_CAP, Bounds, game_bounds


def _walk(game):
    """(least return, greatest return, most moves) over every play of an acyclic game."""

    def go(state):
        if game.is_terminal(state):
            p = float(game.payoff(state))
            return p, p, 0
        lo, hi, long = math.inf, -math.inf, 0
        for a in game.actions(state):
            r = float(game.reward(state, a)) if hasattr(game, "reward") else 0.0
            for nxt, _ in game.outcomes(state, a):
                l2, h2, n2 = go(nxt)
                lo, hi, long = min(lo, r + l2), max(hi, r + h2), max(long, n2 + 1)
        return lo, hi, long

    return go(game.initial_state())


@pytest.mark.parametrize("game", [PeekingBlackjack(), PeekingBlackjack(peek_cost=3, threshold=7),
                                  HandoutGame(sides=2, low=3, high=4, dice=2)])
def test_bounds_are_every_plays(game):
    b = game_bounds(enumerate_game(game))
    assert (b.low, b.high, b.longest) == _walk(game)
    assert b.move_limit == b.longest


def test_cyclic_games_have_no_longest_play():
    for game in (Pig(goal=10), Piglet(goal=3)):
        b = game_bounds(enumerate_game(game))
        assert b == Bounds(0.0, 1.0, None) and b.move_limit == MOVES_CAP


class _Toll:
    """One player; at 0 'go' pays `toll` and returns to 0 or ends (1/2 each); 'stop' ends."""

    name = "toll"
    num_players = 1

    def __init__(self, toll):
        self.toll = toll

    def initial_state(self):
        return 0

    def is_terminal(self, s):
        return s == 1

    def payoff(self, s):
        return 2

    def player(self, s):
        return 0

    def actions(self, s):
        return ["go", "stop"]

    def outcomes(self, s, a):
        from fractions import Fraction

        return [(0, Fraction(1, 2)), (1, Fraction(1, 2))] if a == "go" else [(1, 1)]

    def reward(self, s, a):
        return self.toll if a == "go" else 0


def test_a_cycle_that_pays_opens_the_range_on_its_side():
    assert game_bounds(enumerate_game(_Toll(-1))) == Bounds(-math.inf, 2.0, None)
    assert game_bounds(enumerate_game(_Toll(1))) == Bounds(2.0, math.inf, None)  # stop at once
