"""solver.results: one face for every solution. The handout engines' Solution, seen per row
(``generic()``, computed from its tables), equals the generic solver's GameSolution of
HandoutGame state by state and row by row, and both answer the same game-agnostic questions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack import solver
from dicejack.games import HandoutGame, Pig, enumerate_game
from dicejack.games.handout_rules import Game
from dicejack.solver import BaseSolution, GameSolution, Solution
from dicejack.solver.generic import solve_game

#: The handout's game and two others: three dice, a tight window; a two-sided die, one die.
GAMES = [Game(6, 15, 17, 2), Game(4, 8, 9, 3), Game(2, 5, 6, 1)]


@pytest.mark.parametrize("game", GAMES, ids=str)
@pytest.mark.parametrize("method", ["backward", "value-iteration"])
def test_the_tables_view_equals_the_generic_solver(game, method):
    tables = solver.solve(game, method=method)
    view = tables.generic()
    ref = solve_game(HandoutGame.from_game(game))
    assert isinstance(view, GameSolution) and view.method == method
    assert view.space.states == ref.space.states  # the same enumeration, state for state
    np.testing.assert_allclose(view.values, ref.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(view.q, ref.q, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(view.optimal, ref.optimal)
    np.testing.assert_array_equal(view.best, ref.best)
    assert view.residual <= 1e-15 and view.error_bound == 0.0 and view.tolerance == 0.0
    assert view.value == tables.p00 == tables.value
    assert view.values_exact is None and tables.value_exact is None


def test_player_one_reads_the_mover_view_complement():
    """At (a, b, 1) player 1 moves with b against a: player 0's value is 1 - P[b, a], each row
    1 - Q[b, a, J]; the optimal rows are the mover's optimal J."""
    game = GAMES[1]
    tables = solver.solve(game)
    view = tables.generic()
    space = view.space
    seen = 0
    for s, state in enumerate(space.states):
        if state[0] == "win" or state[2] != 1:
            continue
        a, b, _ = state
        assert view.values[s] == 1.0 - tables.p[b, a]
        for r in space.rows(s):
            j = space.actions[r]
            assert view.q[r] == 1.0 - tables.q[b, a, j]
            assert view.optimal[r] == tables.optimal[b, a, j]
        assert space.actions[view.best[s]] == tables.best[b, a]
        seen += 1
    assert seen > 10


@pytest.mark.parametrize("game", GAMES[1:], ids=str)
def test_the_exact_view_equals_the_generic_exact_solver(game):
    tables = solver.solve(game, exact=True)
    view = tables.generic()
    ref = solve_game(HandoutGame.from_game(game), exact=True)
    assert view.values_exact == ref.values_exact == tables.values_exact
    assert all(isinstance(v, Fraction) for v in view.values_exact)
    np.testing.assert_array_equal(view.optimal, ref.optimal)
    assert tables.value_exact == view.value_exact == ref.value_exact
    assert view.error_bound == 0.0


def test_one_face_for_both_kinds():
    game = GAMES[0]
    tables = solver.solve(game)
    generic = solver.solve(Pig(goal=8))
    for sol in (tables, generic):
        assert isinstance(sol, BaseSolution)
        w = sol.policy()
        assert w.shape == (sol.generic().space.n_rows,)
        assert sol.space is sol.generic().space and sol.values is sol.generic().values
    assert generic.generic() is generic
    assert tables.generic() is tables.generic()  # computed once, then kept
    # the handout's face reads through the view: the start's best J is the table's
    assert tables.best_action((0, 0, 0)) == tables.best[0, 0]
    assert tables.value_of((3, 5, 1)) == 1.0 - tables.p[5, 3]
    with pytest.raises(solver.SolverError, match="not a reachable"):
        tables.value_of((99, 0, 0))
    # its policy: ties split evenly over the optimal J
    view = tables.generic()
    rows = view.space.rows(0)
    want = tables.optimal[0, 0, 1:] / tables.optimal[0, 0, 1:].sum()
    np.testing.assert_array_equal(tables.policy()[rows.start:rows.stop], want)


def test_a_handout_game_by_either_name_is_solved_by_the_handout_engines():
    game = GAMES[0]
    by_rules = solver.solve(game)
    by_protocol = solver.solve(HandoutGame.from_game(game))
    assert isinstance(by_protocol, Solution) and by_protocol.game == game
    np.testing.assert_array_equal(by_rules.q, by_protocol.q)
    # its enumeration goes to the generic solver: the other path, for cross-checks
    assert isinstance(solver.solve(enumerate_game(HandoutGame.from_game(game))), GameSolution)


def test_solve_game_output_prints_either_kind_the_same_way():
    """`solve --game`'s text, JSON and CSV take any solution: the handout engines' through its
    per-row view print what the generic solver's solution of HandoutGame prints (the values
    agree to 1e-12, so every printed digit does)."""
    from dicejack.solver import generic_output as out

    game = GAMES[1]
    tables = solver.solve(game)
    ref = solve_game(HandoutGame.from_game(game))
    assert out.game_solution_text(tables).splitlines()[2:] == \
        out.game_solution_text(ref).splitlines()[2:]
    mine, theirs = out.game_solution_dict(tables), out.game_solution_dict(ref)
    assert mine.pop("residual") <= 1e-15 and theirs.pop("residual") <= 1e-15
    assert mine == theirs
    assert "sweeps to no change" in out.game_solution_text(
        solver.solve(game, method="value-iteration"))
