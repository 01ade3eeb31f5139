"""The handout's game as arrays (HandoutGame.compiled_space, dicejack.games.compiled): equal to
the protocol's own enumeration state for state, row for row and probability for probability
(bit for bit, also where the dice-sum denominators pass 2**53); the plain kernel equals the
compiled one; the solver's per-row view on it equals the generic solver on the Python
enumeration; lookups, the limit, subclasses and exact=True behave as on the Python path."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import solver
from dicejack.games import HandoutGame, enumerate_game
from dicejack.games import compiled as compiled_module
from dicejack.games.compiled import handout_space
from dicejack.games.handout_rules import Game
from dicejack.games.protocol import GameDefinitionError
from dicejack.solver.generic import solve_game

#: (sides, low, high, dice): the handout's; three dice, a tight window; a coin, one die; five
#: dice; 25 nine-sided dice (9**25 > 2**53: a float division of the counts would round twice);
#: a one-sided die; a target the first roll passes.
GAMES = [(6, 15, 17, 2), (4, 8, 9, 3), (2, 5, 6, 1), (6, 40, 45, 5), (9, 10, 30, 25),
         (1, 5, 5, 1), (3, 1, 1, 2)]


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
    assert fast.states == slow.states and slow.states == fast.states
    assert all(fast.index[s] == i and s in fast.index for i, s in enumerate(slow.states))
    assert list(fast.actions) == slow.actions and list(fast.payoff_exact) == slow.payoff_exact
    assert np.array_equal(np.asarray(fast.actions), np.asarray(slow.actions))
    for name in ("player", "payoff", "row_start", "row_state"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    for name in ("indptr", "indices", "data"):  # the probabilities bit for bit
        assert np.array_equal(getattr(fast.transitions, name), getattr(slow.transitions, name))
    assert fast.transitions.shape == slow.transitions.shape


@pytest.mark.parametrize("params", GAMES, ids=str)
def test_the_arrays_are_the_protocols_enumeration(params):
    game = HandoutGame(*params)
    slow = enumerate_game(_Python(game))
    assert_same(enumerate_game(game), slow)
    exact = enumerate_game(game, exact=True)  # the Python path, its Fractions summed exactly
    assert exact.enumeration == "python"
    assert np.array_equal(exact.transitions.data, slow.transitions.data)


@pytest.mark.parametrize("params", GAMES[:5], ids=str)
def test_the_plain_kernel_is_the_compiled_one(params):
    game = HandoutGame(*params)
    slow = enumerate_game(_Python(game))
    for compiled in (True, False):
        assert_same(handout_space(game, 10**6, compiled=compiled), slow)


@pytest.mark.parametrize("params", GAMES[:4], ids=str)
def test_the_solvers_view_equals_the_generic_solver_on_the_python_enumeration(params):
    view = solver.solve(Game(*params)).generic()
    assert view.space.enumeration == "compiled"
    ref = solve_game(enumerate_game(_Python(HandoutGame(*params))))
    assert view.space.states == ref.space.states
    np.testing.assert_allclose(view.values, ref.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(view.q, ref.q, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(view.optimal, ref.optimal)
    np.testing.assert_array_equal(view.best, ref.best)
    compiled = solve_game(HandoutGame(*params))  # the generic solver on the compiled arrays
    np.testing.assert_array_equal(compiled.values, ref.values)


def test_states_and_lookups():
    space = enumerate_game(HandoutGame(6, 15, 17, 2))
    assert space.states[:3] == [(0, 0, 0), (1, 0, 1), (2, 0, 1)]
    assert space.states[space.index[("win", 0)]] == ("win", 0)
    assert space.payoff_exact[space.index[("win", 0)]] == 1
    assert space.payoff_exact[space.index[("win", 1)]] == 0 and space.payoff_exact[0] is None
    assert space.index[(np.int64(1), 0, 1)] == 1 == space.index.get((1, 0, 1))
    for bad in [(0, 1, 0), (15, 0, 0), (0, 0, 2), ("win", 2), (0, 0), "x", None, (0.5, 0, 0)]:
        assert bad not in space.index and space.index.get(bad) is None
        with pytest.raises(KeyError):
            space.index[bad]
    assert space.row_of((0, 0, 0), 2) == 1 and space.actions[1] == 2
    assert space.states != list(space.states)[:-1] and space.states != "not states"
    assert space.matrix is None  # scipy's matrix made on first read only


def test_the_limit_subclasses_and_large_grids():
    with pytest.raises(GameDefinitionError, match="game handout: more than 100 reachable"):
        enumerate_game(HandoutGame(6, 40, 45, 5), limit=100)
    with pytest.raises(GameDefinitionError, match="game handout: more than 100 reachable"):
        enumerate_game(_Python(HandoutGame(6, 40, 45, 5)), limit=100)
    assert enumerate_game(HandoutGame(6, 15, 17, 2), limit=387).n_states == 387

    class Other(HandoutGame):
        pass

    assert enumerate_game(Other(6, 15, 17, 2)).enumeration == "python"


def test_a_game_past_the_grid_declines(monkeypatch):
    monkeypatch.setattr(compiled_module, "HANDOUT_GRID_LIMIT", 2 * 15 * 15 + 1)
    assert enumerate_game(HandoutGame(6, 15, 17, 2)).enumeration == "python"
    assert enumerate_game(HandoutGame(6, 14, 17, 2)).enumeration == "compiled"
