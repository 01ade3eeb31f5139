"""solver.results: one face for every solution. The handout engines' Solution, seen per row
(``generic()``, computed from its tables), equals the generic solver's GameSolution of
HandoutGame state by state and row by row, and both answer the same game-agnostic questions;
the sequence form's solution of a game with hidden information (Kuhn poker) answers the scalar
ones too, and refuses the per-state ones with a one-line SolverError."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack import solver
from dicejack.games import HandoutGame, Pig, enumerate_game
from dicejack.games.handout_rules import Game
from dicejack.games.kuhn import Kuhn
from dicejack.solver import BaseSolution, GameSolution, Solution
from dicejack.solver.generic import solve_game
from dicejack.solver.generic_policies import evaluate_policy, game_exploitability
from dicejack.solver.information_policies import expected_payoff
from dicejack.solver.information_policies import exploitability as information_exploitability
from dicejack.solver.sequence_form import SequenceFormSolution

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


#: One game of each kind, with its value worked by hand and how `solve` answers it:
#: the handout's coin die to exactly 2 (test_solver: 5/8; one action, backward induction);
#: Pig to 2: a roll of 2..6 reaches the goal, a pig passes the turn, so p = 5/6 + (1 - p)/6 =
#: 6/7 (it has cycles: value iteration, no exact value); Kuhn poker (hidden information):
#: -1/18, exactly (the sequence form's rounded equilibrium checked in Fractions).
FACES = [
    pytest.param(Game(2, 2, 2, 1), {"exact": True}, Fraction(5, 8), "backward", Fraction(5, 8),
                 id="handout"),
    pytest.param(Pig(goal=2), {}, Fraction(6, 7), "value-iteration", None, id="pig-2"),
    pytest.param(Kuhn(), {}, Fraction(-1, 18), "sequence-form", Fraction(-1, 18), id="kuhn"),
]


def _played(game, sol) -> tuple[float, float]:
    """The value of `sol.policy()` played by both seats, and its exploitability (perfect
    information: game_exploitability on the enumeration; hidden information: over the tree of
    plays, OpenSpiel's convention), computed outside the solution."""
    if isinstance(sol, SequenceFormSolution):
        policy = sol.policy()
        return float(expected_payoff(game, policy)), float(information_exploitability(game, policy))
    space = sol.generic().space
    w = sol.policy()
    return float(evaluate_policy(space, w)[0]), game_exploitability(space, w)


@pytest.mark.parametrize(("game", "options", "value", "method", "value_exact"), FACES)
def test_every_solution_has_the_scalar_face(game, options, value, method, value_exact):
    sol = solver.solve(game, **options)
    assert isinstance(sol, BaseSolution)
    assert sol.method == method
    assert isinstance(sol.sweeps, int) and sol.sweeps >= 1
    assert abs(sol.value - float(value)) <= 1e-12
    assert sol.value_exact == value_exact
    assert 0 <= sol.residual <= 1e-12
    assert sol.error_bound is not None and 0 <= sol.error_bound <= 1e-12
    assert abs(sol.value - float(value)) <= sol.error_bound + 1e-16  # the bound holds
    played, exploited = _played(game, sol)
    assert abs(played - float(value)) <= 1e-12  # the policy is worth the value...
    assert 0 <= exploited <= 1e-12  # ...and no best response beats it


@pytest.mark.parametrize(("game", "options", "value", "method", "value_exact"), FACES[:2])
def test_perfect_information_has_the_per_state_face(game, options, value, method, value_exact):
    sol = solver.solve(game, **options)
    start = sol.space.states[0]
    assert sol.generic().space is sol.space and len(sol.values) == sol.space.n_states
    assert sol.value_of(start) == sol.values[0] == sol.value
    w = sol.policy()
    rows = sol.space.rows(0)
    played = [sol.space.actions[r] for r in range(rows.start, rows.stop) if w[r] > 0]
    assert sol.best_action(start) == played[0]
    assert (sol.values_exact is not None) == (value_exact is not None)


def test_hidden_information_refuses_the_per_state_face():
    """Kuhn's solution has no per-state values or best actions: each member raises a one-line
    SolverError that names the game and says why, rather than being absent or wrong."""
    sol = solver.solve(Kuhn())
    start = sol.tree.states[0]
    for member in (lambda: sol.generic(), lambda: sol.space, lambda: sol.values,
                   lambda: sol.values_exact, lambda: sol.best_action(start),
                   lambda: sol.value_of(start)):
        with pytest.raises(solver.SolverError, match=r"^kuhn ante=1 bet=1 has hidden "
                                                      r"information: its solution has no ") as e:
            member()
        assert "\n" not in str(e.value)
    # what it has instead: the equilibrium per information key, both players' keys
    assert sorted(sol.policy()) == sorted(i.key for i in sol.tree.decisions())
    assert sol.policy() is sol.behaviour
    assert sol.residual == abs(sol.value - sol.value_check)
    assert sol.error_bound == abs(sol.value - (-1 / 18))
