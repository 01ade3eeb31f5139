"""The protocol checked while enumerating (dicejack.games.space), and the bundled games' spaces."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from dicejack.games import (
    GameDefinitionError,
    HandoutGame,
    Pig,
    Piglet,
    enumerate_game,
)


@dataclass(frozen=True)
class Walk:
    """A one-player walk on 0..3: step (+1 or stay, each 1/2) or stop; payoff = position / 3;
    `bad` breaks one promise of the protocol."""

    bad: str = ""
    name = "walk"
    num_players = 1

    def initial_state(self):
        return [0] if self.bad == "unhashable" else 0

    def is_terminal(self, state):
        return isinstance(state, tuple)

    def payoff(self, state):
        return float("nan") if self.bad == "payoff" else Fraction(state[1], 3)

    def player(self, state):
        return 1 if self.bad == "player" else 0

    def actions(self, state):
        if self.bad == "raises":
            raise KeyError("oops")
        if self.bad == "no-actions":
            return []
        return ["step", "stop"] if state < 3 else ["stop"]

    def outcomes(self, state, action):
        if action == "stop":
            return [(("end", state), 1)]
        half = 0.5 if self.bad == "float" else Fraction(1, 2)
        if self.bad == "sum":
            return [(state + 1, Fraction(1, 2)), (state, Fraction(1, 3))]
        return [(state + 1, half), (state, half)]


def test_walk_space():
    space = enumerate_game(Walk(), exact=True)
    assert space.states[0] == 0
    assert space.n_states == 8  # 0..3 and ("end", 0..3)
    assert space.n_rows == 7  # step/stop at 0..2, stop at 3
    assert list(space.actions[:2]) == ["step", "stop"]
    assert space.transitions.shape == (7, 8)
    np.testing.assert_allclose(np.asarray(space.transitions.sum(axis=1)).ravel(), 1.0)
    assert space.payoff[space.index[("end", 3)]] == 1.0
    assert space.exact_rows[0] == ((1, Fraction(1, 2)), (0, Fraction(1, 2)))
    assert space.row_of(2, "stop") == space.row_start[2] + 1


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("unhashable", "hashable"),
        ("payoff", "not a finite number"),
        ("player", r"is 1, not 0 \(a one-player game\)"),
        ("raises", "KeyError at state 0: .oops."),
        ("no-actions", "no legal action"),
        ("float", "not exact"),
        ("sum", "not 1"),
    ],
)
def test_broken_games_say_what_broke_in_one_line(bad, words):
    with pytest.raises(GameDefinitionError, match=words) as info:
        enumerate_game(Walk(bad), exact=(bad == "sum"))
    assert "\n" not in str(info.value)


def test_not_a_game():
    with pytest.raises(GameDefinitionError, match="not a game: it has no"):
        enumerate_game(object())


def test_limit():
    with pytest.raises(GameDefinitionError, match="more than 100 reachable states"):
        enumerate_game(Pig(goal=10), limit=100)


def test_handout_adapter_matches_the_rules():
    game = HandoutGame(sides=2, low=3, high=4, dice=2)
    outs = dict(game.outcomes((0, 0, 0), 2))  # totals 2, 3, 4 with 1/4, 1/2, 1/4
    assert outs == {(2, 0, 1): Fraction(1, 4), ("win", 0): Fraction(3, 4)}
    outs = dict(game.outcomes((2, 1, 1), 2))  # player 1 at 1: 3, 4 win, 5 busts
    assert outs == {("win", 1): Fraction(3, 4), ("win", 0): Fraction(1, 4)}
    with pytest.raises(GameDefinitionError, match="high"):
        HandoutGame(sides=6, low=15, high=3, dice=2)


def test_pig_rules():
    pig = Pig(goal=10, die=6)
    assert pig.actions((0, 0, 0, 0)) == ("roll",)
    assert pig.actions((0, 0, 4, 1)) == ("roll", "hold")
    assert pig.outcomes((3, 5, 4, 1), "hold") == [((3, 9, 0, 0), 1)]
    outs = dict(pig.outcomes((3, 5, 2, 0), "roll"))  # need 5: a 5 or a 6 wins
    assert outs == {
        (3, 5, 0, 1): Fraction(1, 6), (3, 5, 4, 0): Fraction(1, 6),
        (3, 5, 5, 0): Fraction(1, 6), (3, 5, 6, 0): Fraction(1, 6),
        ("win", 0): Fraction(1, 3),
    }
    assert dict(Piglet(goal=3).outcomes((0, 2, 0, 1), "roll")) == {
        (0, 2, 0, 0): Fraction(1, 2), ("win", 1): Fraction(1, 2)}
    with pytest.raises(GameDefinitionError, match="die must be"):
        Pig(goal=10, die=1)
    # every state of Pig to 10: i + k < 10 for the mover, both players
    assert enumerate_game(Pig(goal=10), exact=True).n_states < 2 * 10 * 10 * 10
