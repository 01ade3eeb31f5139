"""The solver is the reference: check it by hand, three independent ways, and by its own laws."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicejack import solver
from dicejack.games.handout_rules import Game
from dicejack.solver import SolverError, engines

SMALL_GAMES = st.builds(
    lambda s, low, extra, k: Game(s, low, low + extra, k),
    st.integers(1, 5),
    st.integers(1, 9),
    st.integers(0, 6),
    st.integers(1, 3),
)


# ----------------------------------------------------------------------- tiny games by hand
def test_one_sided_die_is_deterministic():
    # Every roll of j one-sided dice adds exactly j. Target 3..3, up to 2 dice.
    # From 2 or from 1 the mover lands on 3 at once (1 or 2 dice): P = 1.
    # <0,1>: 1 die -> <1,1>, 2 dice -> <1,2>, and the opponent then wins: P = 0. Same for <0,2>.
    # <0,0>: 1 die -> <0,1> (opponent lost): win; 2 dice -> <0,2> (opponent lost): win. P = 1.
    sol = solver.solve(Game(1, 3, 3, 2), exact=True)
    p = sol.p_exact
    assert p[2, 0] == p[2, 2] == p[1, 0] == p[1, 2] == 1
    assert p[0, 1] == p[0, 2] == 0
    assert p[0, 0] == 1 and sol.p00_exact == 1
    assert sol.optimal[0, 0].tolist() == [False, True, True]
    assert sol.optimal[2, 1].tolist() == [False, True, False]  # 2 dice from 2 would reach 4: bust
    assert sol.q[2, 1, 2] == 0.0


def test_low_equals_high_by_hand():
    # Coin die (1 or 2), one die a turn, target exactly 2.
    # <1,y>: a 1 wins, a 2 busts: 1/2.  <0,1>: a 1 gives the opponent <1,1> (1/2), a 2 wins:
    # 1/2 * (1 - 1/2) + 1/2 = 3/4.  <0,0>: 1/2 * (1 - 3/4) + 1/2 = 5/8.
    sol = solver.solve(Game(2, 2, 2, 1), exact=True)
    assert sol.p_exact[1, 0] == sol.p_exact[1, 1] == Fraction(1, 2)
    assert sol.p_exact[0, 1] == Fraction(3, 4)
    assert sol.p00_exact == Fraction(5, 8)
    assert np.isnan(sol.gap).all()  # one action only: every J optimal, no gap


def test_one_die_always_wins_at_once():
    # Target 1..6 with a six-sided die: one die always lands in it. Two dice win only on totals
    # 2..6, which have 1+2+3+4+5 = 15 of 36 outcomes.
    sol = solver.solve(Game(6, 1, 6, 2))
    assert sol.p00 == 1.0
    assert sol.best[0, 0] == 1
    assert sol.q[0, 0, 2] == pytest.approx(15 / 36, abs=1e-15)
    assert sol.gap[0, 0] == pytest.approx(21 / 36, abs=1e-15)


def test_every_move_loses_in_a_lost_state():
    # The handout's caveat A: target [10, 20], 2 dice of 3 sides, behind 2 to 9. The mover
    # cannot reach 10 this turn (at most 8) and the opponent then reaches 10..15 for sure.
    sol = solver.solve(Game(3, 10, 20, 2), exact=True)
    assert sol.p_exact[2, 9] == 0
    assert np.all(sol.q[2, 9, 1:] == 0)
    assert sol.optimal[2, 9, 1:].all() and np.isnan(sol.gap[2, 9])
    assert sol.best[2, 9] == 1  # lowest optimal J is the one shown


def test_handout_remark_two_dice_when_no_overshoot():
    # Target [10, 20], 3 sides, 2 dice: from every state 2 dice cannot overshoot (x + 6 < 20),
    # so rolling 2 dice is optimal everywhere.
    game = Game(3, 10, 20, 2)
    for sol in (solver.solve(game), solver.solve(game, exact=True)):
        assert sol.optimal[:, :, 2].all()
    exact = solver.solve(game, exact=True)
    # ... and strictly better (exactly) wherever the mover has not already lost or won for sure.
    undecided = (exact.p > 0) & (exact.p < 1)
    assert undecided.sum() > 0
    assert not exact.optimal[:, :, 1][undecided].any()
    assert np.all(exact.best[undecided] == 2)


def test_handout_game_first_player_edge():
    sol = solver.solve(Game(6, 15, 17, 2), exact=True)
    assert sol.p00_exact == Fraction(7077717857363469114035, 12281884428929630994432)
    assert sol.p00 == pytest.approx(0.5762729569977145, abs=1e-15)


# -------------------------------------------------------------------- three ways, one answer
def assert_solutions_agree(a: solver.Solution, b: solver.Solution) -> None:
    assert np.abs(a.q - b.q).max() <= 1e-12
    assert np.abs(a.p - b.p).max() <= 1e-12


def assert_same_solution(a: solver.Solution, b: solver.Solution) -> None:
    """Bit for bit: Q, P, the lowest optimal J, the tie sets and the gap (NaN where NaN)."""
    for name in ("q", "p", "best", "optimal"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y), name
    assert np.array_equal(a.gap, b.gap, equal_nan=True)
    assert a.p00 == b.p00 and a.method == b.method and a.sweeps == b.sweeps


@given(SMALL_GAMES)
@settings(max_examples=60, deadline=None)
def test_backward_value_iteration_and_rationals_agree(game):
    # Both engines of backward induction (bit-identical; see the tests below) take part.
    backward = solver.solve(game, engine="numpy")
    assert_same_solution(backward, solver.solve(game, engine="numba"))
    iterated = solver.solve(game, method="value-iteration")
    exact = solver.solve(game, exact=True)
    assert_solutions_agree(backward, iterated)
    assert_solutions_agree(backward, exact)
    assert 1 <= iterated.sweeps <= 2 * game.low + 2
    # Float ties (within 1e-12) include every exact tie; any extra one is a sub-1e-12 difference.
    for sol in (backward, iterated):
        assert np.all(sol.optimal >= exact.optimal)
        extra = sol.optimal & ~exact.optimal
        if extra.any():
            p_exact = np.vectorize(float)(exact.p_exact)
            assert np.all(np.abs(p_exact[:, :, None] - exact.q)[extra] <= 1e-12)
    assert backward.p00 == pytest.approx(float(exact.p00_exact), abs=1e-12)


# ------------------------------------------------ two engines (numpy, numba), one bit pattern
ENGINE_GAMES = st.builds(
    lambda s, low, extra, k: Game(s, low, low + extra, k),
    st.integers(1, 9),
    st.integers(1, 30),
    st.integers(0, 12),
    st.integers(1, 5),
)


@given(ENGINE_GAMES)
@settings(max_examples=80, deadline=None)
def test_numpy_and_numba_backward_induction_are_bit_identical(game):
    numpy_sol = solver.solve(game, engine="numpy")
    assert_same_solution(numpy_sol, solver.solve(game, engine="numba"))
    for engine in ("numpy", "numba"):
        p, best = solver.solve_values(game, engine=engine)
        assert np.array_equal(p, numpy_sol.p) and np.array_equal(best, numpy_sol.best)


def random_policies(game: Game, rng: np.random.Generator, sol: solver.Solution) -> list:
    """Every policy form: a Solution (ties split), J tables, random and sparse distributions."""
    k = game.n_dice
    dist = rng.random(game.table_shape) * (rng.random(game.table_shape) < 0.7)
    dist[:, :, 0] = 0.0
    dist[:, :, 1] += dist[:, :, 1:].sum(axis=2) == 0  # at least one J per state
    dist /= dist.sum(axis=2, keepdims=True)
    return [sol, sol.best, rng.integers(1, k + 1, size=game.shape), dist]


@given(ENGINE_GAMES, st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_numpy_and_numba_forward_propagation_are_bit_identical(game, seed):
    rng = np.random.default_rng(seed)
    sol = solver.solve(game, engine="numba")
    policies = random_policies(game, rng, sol)
    for a in policies:
        for b in policies:
            visits = solver.visit_probabilities(game, a, b, engine="numpy")
            assert np.array_equal(visits, solver.visit_probabilities(game, a, b, engine="numba"))
            wins = solver.evaluate(game, a, b, engine="numpy")
            assert wins == solver.evaluate(game, a, b, engine="numba")


def test_default_engine_numpy_for_small_games_numba_for_large_ones_or_many_calls(monkeypatch):
    monkeypatch.setattr(engines, "NUMBA_STARTUP_SECONDS", float("inf"))
    handout = Game(6, 15, 17, 2)
    loaded = engines.choose_engine(handout)  # "numba" once this process has run the learner
    assert engines.choose_engine(Game(6, 60, 70, 4)) == loaded  # 3600 * 4 * 25 = 360,000
    assert engines.choose_engine(Game(6, 100, 110, 6)) == "numba"  # 2,220,000 > NUMPY_MAX_WORK
    # Numpy runs are charged; once they add up to numba's start-up, numba takes over.
    spent = engines.numpy_engine_seconds()
    solver.evaluate(handout, np.ones(handout.shape, dtype=int), np.ones(handout.shape, dtype=int),
                    engine="numpy")
    assert engines.numpy_engine_seconds() > spent
    monkeypatch.setattr(engines, "NUMBA_STARTUP_SECONDS", engines.numpy_engine_seconds())
    assert engines.choose_engine(handout) == "numba"
    with pytest.raises(SolverError, match="unknown engine"):
        solver.solve(handout, engine="fortran")  # type: ignore[arg-type]


def test_a_fresh_process_solves_small_games_with_numpy_until_numba_is_loaded():
    code = (
        "from dicejack.solver import engines; "
        "from dicejack.learners.handout import learning as learner; "
        "from dicejack.games.handout_rules import Game; "
        "g = Game(6, 15, 17, 2); a = engines.choose_engine(g); learner.learn(g, 1.0, 1, 1); "
        "print(a, engines.choose_engine(g))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["numpy", "numba"]


def test_large_games_go_through_the_kernels_and_numpy_agrees_there_too():
    game = Game(6, 100, 110, 6)
    assert engines.choose_engine(game) == "numba"
    sol = solver.solve(game)
    assert_same_solution(sol, solver.solve(game, engine="numpy"))
    p, best = solver.solve_values(game)
    assert np.array_equal(p, sol.p) and np.array_equal(best, sol.best)
    assert solver.evaluate(game, sol, sol.best) == solver.evaluate(
        game, sol, sol.best, engine="numpy"
    )
    assert np.array_equal(
        solver.visit_probabilities(game, sol, sol.best),
        solver.visit_probabilities(game, sol, sol.best, engine="numpy"),
    )


@given(SMALL_GAMES)
@settings(max_examples=40, deadline=None)
def test_bellman_equation_holds_in_every_state(game):
    sol = solver.solve(game)
    low, high = game.low, game.high
    probs = game.sum_probability_table
    for x in range(low):
        for y in range(low):
            for j in range(1, game.n_dice + 1):
                expected = 0.0
                for t in range(j, j * game.n_sides + 1):
                    s = x + t
                    value = (1.0 - sol.p[y, s]) if s < low else float(s <= high)
                    expected += probs[j, t] * value
                assert sol.q[x, y, j] == pytest.approx(expected, abs=1e-12)
            assert sol.p[x, y] == sol.q[x, y, 1:].max()
    assert np.all((sol.p >= 0) & (sol.p <= 1))
    assert np.all(sol.q[:, :, 0] == 0) and not sol.optimal[:, :, 0].any()
    assert np.all(sol.optimal[np.arange(low)[:, None], np.arange(low)[None, :], sol.best])


def test_values_only_mode_matches_full_solution():
    game = Game(6, 60, 70, 5)
    p, best = solver.solve_values(game)
    sol = solver.solve(game)
    assert np.array_equal(p, sol.p)
    assert np.array_equal(best, sol.best)


def test_gap_is_best_minus_best_non_optimal():
    sol = solver.solve(Game(6, 15, 17, 2))
    q = sol.q[:, :, 1:]
    other = np.where(sol.optimal[:, :, 1:], -np.inf, q).max(axis=2)
    expected = np.where(np.isfinite(other), sol.p - other, np.nan)
    np.testing.assert_array_equal(sol.gap, expected)


def test_bad_requests_raise_solver_errors():
    game = Game(6, 15, 17, 2)
    with pytest.raises(SolverError, match="unknown method"):
        solver.solve(game, method="magic")  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="too large for exact"):
        solver.solve(Game(6, 300, 310, 6), exact=True)
    with pytest.raises(SolverError, match="backward"):
        solver.solve(game, method="value-iteration", exact=True)


# ------------------------------------------------------------------ evaluation and visiting
def uniform_policy(game: Game) -> np.ndarray:
    dist = np.zeros(game.table_shape)
    dist[:, :, 1:] = 1.0 / game.n_dice
    return dist


@given(SMALL_GAMES)
@settings(max_examples=40, deadline=None)
def test_optimal_self_play_wins_p00_and_visits_start_once(game):
    sol = solver.solve(game)
    assert solver.evaluate(game, sol, sol) == pytest.approx(sol.p00, abs=1e-12)
    assert solver.evaluate(game, sol.best, sol.best) == pytest.approx(sol.p00, abs=1e-12)
    visits = solver.visit_probabilities(game, sol)
    assert visits[0, 0] == 1.0
    assert np.all(visits >= 0) and np.all(visits <= 1 + 1e-12)


@given(SMALL_GAMES, st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_no_policy_beats_the_optimal_one(game, seed):
    sol = solver.solve(game)
    rng = np.random.default_rng(seed)
    policy = rng.integers(1, game.n_dice + 1, size=game.shape)
    assert solver.evaluate(game, policy, sol) <= sol.p00 + 1e-12
    assert solver.evaluate(game, sol, policy) >= sol.p00 - 1e-12


def test_uniform_play_visits_exactly_the_reachable_states():
    game = Game(3, 12, 14, 3)
    visits = solver.visit_probabilities(game, uniform_policy(game))
    assert np.array_equal(visits > 0, game.reachable())


def test_evaluate_by_hand_on_a_coin_game():
    # Coin die, target exactly 2, one die: P(first wins) = 5/8 whatever the (only) policy.
    game = Game(2, 2, 2, 1)
    ones = np.ones(game.shape, dtype=int)
    assert solver.evaluate(game, ones, ones) == pytest.approx(5 / 8, abs=1e-15)
    # The game visits <0,1> when A rolls 1 (1/2); <1,1> when then B rolls 1 (1/4).
    visits = solver.visit_probabilities(game, ones)
    np.testing.assert_allclose(visits, [[1.0, 0.5], [0.0, 0.25]], atol=1e-15)


def test_invalid_policies_are_refused():
    game = Game(6, 15, 17, 2)
    with pytest.raises(SolverError, match=r"no data \(-1 or NaN\) at <0,0>; fill='error'"):
        solver.evaluate(game, np.full(game.shape, -1), np.ones(game.shape, dtype=int),
                        fill="error")
    with pytest.raises(SolverError, match=r"must be 1\.\.2 \(-1 = no data\)"):
        solver.evaluate(game, np.full(game.shape, 3), np.ones(game.shape, dtype=int))
    with pytest.raises(SolverError, match="fill must be"):
        solver.evaluate(game, np.ones(game.shape, dtype=int), np.ones(game.shape, dtype=int),
                        fill="random")
    with pytest.raises(SolverError, match="shape"):
        solver.evaluate(game, np.ones((3, 3), dtype=int), np.ones(game.shape, dtype=int))
    bad = uniform_policy(game)
    bad[0, 0, 1] = 0.9
    with pytest.raises(SolverError, match="sum to 1"):
        solver.visit_probabilities(game, bad)


# ------------------------------------------------------------------ the one entry, every game
def test_solve_sends_a_handout_game_to_its_engines_and_any_other_to_the_generic_solver():
    from dicejack.games import HandoutGame, Piglet
    from dicejack.solver.generic import solve_game

    game = Game(6, 15, 17, 2)
    sol = solver.solve(HandoutGame.from_game(game), engine="numpy")
    assert isinstance(sol, solver.Solution) and sol.method == "backward"
    np.testing.assert_array_equal(sol.q, solver.solve(game, engine="numba").q)
    assert solver.solve(game, method="auto").method == "backward"
    generic = solver.solve(Piglet(goal=3))
    assert isinstance(generic, solver.GameSolution)
    want = solve_game(Piglet(goal=3))
    np.testing.assert_array_equal(generic.values, want.values)
    vi = solver.solve(Piglet(goal=3), method="value-iteration", tolerance=1e-6)
    assert vi.tolerance == 1e-6 and vi.method == "value-iteration"


@pytest.mark.parametrize("game_kind, options, words", [
    ("handout", {"method": "policy-iteration"}, "no cycles"),
    ("handout", {"tolerance": 1e-9}, "drop tolerance"),
    ("handout", {"method": "value-iteration", "exact": True}, "drop --method"),
    ("handout", {"engine": "gpu"}, "unknown engine"),
    ("piglet", {"engine": "numba"}, "drop engine"),
    ("piglet", {"method": "backward"}, "has cycles"),
    ("piglet", {"method": "value-iteration", "exact": True}, "drop method="),
    ("piglet", {"method": "magic"}, "unknown method"),
])
def test_solve_refuses_a_combination_that_means_nothing_in_one_line(game_kind, options, words):
    from dicejack.games import HandoutGame, Piglet

    game = HandoutGame() if game_kind == "handout" else Piglet(goal=2)
    with pytest.raises(SolverError, match=words) as caught:
        solver.solve(game, **options)
    assert "\n" not in str(caught.value)
