"""Compiled enumeration (dicejack.games.compiled): the turn-total games' arrays equal what the
protocol's own enumeration makes of them, state for state and row for row (the compact matrix
through the scipy matrix made from it); the plain kernel equals the compiled one; a user's game
takes the Python path and says so."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from dicejack.games import Pig, Piglet, enumerate_game
from dicejack.games.compiled import turn_total_space
from dicejack.games.pig import PigReset
from dicejack.games.protocol import GameDefinitionError

GAMES = [Piglet(goal=5), Pig(goal=12), Pig(goal=9, die=4), PigReset(goal=14),
         PigReset(goal=9, die=3), Pig(goal=1), Piglet(goal=1)]


class _Python:
    """The same game without its compiled_space: the protocol's own enumeration."""

    def __init__(self, game):
        self.game = game
        self.name, self.num_players = game.name, game.num_players

    def __getattr__(self, name):
        if name == "compiled_space":
            raise AttributeError(name)
        return getattr(self.game, name)


def assert_same(fast, slow):
    assert fast.enumeration == "compiled" and slow.enumeration == "python"
    assert len(fast.states) == len(slow.states) and list(fast.states) == slow.states
    assert all(fast.index[s] == i and s in fast.index for i, s in enumerate(slow.states))
    assert list(fast.actions) == slow.actions and list(fast.payoff_exact) == slow.payoff_exact
    for name in ("player", "payoff", "row_start", "row_state"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(fast.transitions, name), getattr(slow.transitions, name))
    assert fast.transitions.shape == slow.transitions.shape


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_the_arrays_are_the_protocols_enumeration(game):
    assert_same(enumerate_game(game), enumerate_game(_Python(game)))


@pytest.mark.parametrize("game", GAMES[:4], ids=str)
def test_the_plain_kernel_is_the_compiled_one(game):
    spaces = []
    for compiled in (True, False):
        spaces.append(turn_total_space(
            game, [(p, float(q)) for p, q in game.faces], float(game.pig), float(game.reset),
            float(game.pig + game.reset),
            [0.0] + [float(game._winning.get(n, 0)) for n in range(1, 20)], 10**6,
            compiled=compiled))
    assert_same(spaces[0], enumerate_game(_Python(game)))
    assert_same(spaces[1], enumerate_game(_Python(game)))


def test_lookups_of_other_things_fail_as_a_dict_would():
    space = enumerate_game(Pig(goal=5))
    for bad in [(1, 1, 1), (9, 0, 0, 0), ("win", 3), "x", (0, 0, 1, 0), None, (0.0, 0, 0, 0)]:
        assert bad not in space.index and space.index.get(bad) is None
        with pytest.raises(KeyError):
            space.index[bad]
    assert space.states[:2] == [(0, 0, 0, 0), (0, 0, 0, 1)]
    assert space.row_of((0, 0, 2, 0), "hold") == space.rows(space.index[(0, 0, 2, 0)])[1]


def test_exact_and_the_limit_take_the_python_path_or_refuse():
    assert enumerate_game(Pig(goal=6), exact=True).enumeration == "python"
    with pytest.raises(GameDefinitionError, match="more than 100 reachable states"):
        enumerate_game(Pig(goal=10), limit=100)


def test_a_subclass_takes_the_python_path():
    class Shorter(Pig):
        def outcomes(self, state, action):
            return super().outcomes(state, action)

    assert enumerate_game(Shorter(goal=5)).enumeration == "python"


def test_pig_reset_is_one_component():
    from dicejack.solver.generic import level_structure

    levels = level_structure(enumerate_game(PigReset(goal=10)))
    assert sum(levels.cyclic) == 1 and sum(len(s) > 0 for s in levels.states) == 1


def test_memory_per_state_of_the_compiled_enumeration():
    enumerate_game(Pig(goal=4))  # compiled already
    tracemalloc.start()
    try:
        space = enumerate_game(Pig(goal=60))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / space.n_states < 120  # the Python path: about 1,400; scipy's CSR: +88
    assert space.matrix is None  # scipy's matrix is made on first read only
