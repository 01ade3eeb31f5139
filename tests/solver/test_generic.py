"""The generic solver (dicejack.solver.generic) against the specialised solver on the handout's
game, against an independent value iteration (written here) on Pig, and policy iteration against
value iteration; policy evaluation, best response and exploitability against
dicejack.solver's."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack import solver
from dicejack.games import HandoutGame, Pig, Piglet, enumerate_game
from dicejack.solver.generic import (
    best_response_values,
    evaluate_policy,
    game_exploitability,
    level_structure,
    policy_from_actions,
    solve_game,
    uniform_policy,
)
from dicejack.solver.solution import SolverError
from tests.games import HAND_SIZED, HANDOUT, SMALL, TINY


def mover_view(state, table):
    """Player 0's value at a protocol state of the handout's game from a (L, L) mover table."""
    a, b, mover = state
    return table[a, b] if mover == 0 else 1.0 - table[b, a]


@pytest.mark.parametrize("game", [HANDOUT, SMALL, TINY, HAND_SIZED], ids=str)
def test_handout_through_the_protocol_equals_the_specialised_solver(game):
    ref = solver.solve(game)
    sol = solve_game(HandoutGame.from_game(game))
    assert sol.method == "backward" and sol.residual <= 1e-15
    live = [s for s, st in enumerate(sol.space.states) if st[0] != "win"]
    got = sol.values[live]
    want = np.array([mover_view(sol.space.states[s], ref.p) for s in live])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert abs(sol.value - ref.p00) <= 1e-12
    for s in live:  # the optimal actions of player 0's states are the optimal J
        a, b, mover = sol.space.states[s]
        if mover == 0:
            rows = sol.space.rows(s)
            mine = {sol.space.actions[r] for r in rows if sol.optimal[r]}
            assert mine == set(np.flatnonzero(ref.optimal[a, b]).tolist())


def test_exact_rationals_equal_the_specialised_exact_solver():
    game = HAND_SIZED
    sol = solve_game(HandoutGame.from_game(game), exact=True)
    ref = solver.solve(game, exact=True)
    assert sol.value_exact == ref.p00_exact
    assert isinstance(sol.value_exact, Fraction)
    assert sol.value == float(ref.p00_exact)


def independent_pig(goal: int, die: int = 6, tol: float = 1e-14) -> np.ndarray:
    """Neller and Presser's equations, by plain synchronous value iteration over the mover's
    view P[i, j, k] (i + k >= goal: 1), written without dicejack."""
    width = goal + die + 1
    p = np.zeros((goal, goal, width))
    i = np.arange(goal)[:, None, None]
    k = np.arange(width)[None, None, :]
    p[np.broadcast_to(i + k >= goal, p.shape)] = 1.0
    kk = np.arange(goal)[None, None, :]
    jj = np.arange(goal)[None, :, None]
    for _ in range(100_000):
        start = p[:, :, 0]
        roll = (1.0 - start.T)[:, :, None] / die + sum(
            p[:, :, r:r + goal] for r in range(2, die + 1)) / die
        hold = np.where(kk == 0, -1.0, 1.0 - start[jj, np.minimum(i + kk, goal - 1)])
        new = np.where(i + kk >= goal, 1.0, np.maximum(roll, hold))
        change = np.abs(new - p[:, :, :goal]).max()
        p[:, :, :goal] = new
        if change <= tol:
            return p
    raise AssertionError("no convergence")


@pytest.mark.parametrize("goal", [2, 12])
def test_pig_equals_an_independent_value_iteration(goal):
    sol = solve_game(Pig(goal=goal))
    assert sol.method == "value-iteration" and sol.residual <= 1e-12
    ref = independent_pig(goal)
    for s, state in enumerate(sol.space.states):
        if state[0] == "win":
            continue
        s0, s1, k, mover = state
        want = ref[s0, s1, k] if mover == 0 else 1.0 - ref[s1, s0, k]
        assert abs(sol.values[s] - want) <= 1e-10, state
    if goal == 2:  # roll: 5/6 win now, 1/6 the opponent is first at 0:0
        assert abs(sol.value - 6 / 7) <= 1e-12


def test_policy_iteration_equals_value_iteration():
    space = enumerate_game(Pig(goal=12))
    vi = solve_game(space)
    pi = solve_game(space, method="policy-iteration")
    assert pi.method == "policy-iteration" and pi.residual <= 1e-12
    np.testing.assert_allclose(pi.values, vi.values, atol=1e-10)
    np.testing.assert_array_equal(pi.optimal, vi.optimal)


def test_piglet_to_two_by_hand():
    # Piglet goal 1: a head (1/2) wins; V = 1/2 + 1/2 (1 - V) -> V = 2/3
    assert abs(solve_game(Piglet(goal=1)).value - 2 / 3) <= 1e-12
    with pytest.raises(SolverError, match="has cycles"):
        solve_game(Piglet(goal=2), exact=True)


def test_levels_of_pig():
    space = enumerate_game(Pig(goal=6))
    levels = level_structure(space)
    assert not levels.acyclic
    # terminal states are level 0; states of one pair of scores share their level
    assert np.all(levels.height[space.terminal] == 0)
    heights = {}
    for s, st in enumerate(space.states):
        if st[0] != "win":
            heights.setdefault(st[:2], set()).add(int(levels.height[s]))
    assert all(len(h) == 1 for h in heights.values())
    assert levels_acyclic_for_handout()


def levels_acyclic_for_handout() -> bool:
    return level_structure(enumerate_game(HandoutGame.from_game(TINY))).acyclic


def handout_policy(space, table):
    """A (L, L) table of J (mover's view) as protocol row weights."""
    return policy_from_actions(space, lambda st: int(table[st[st[2]], st[1 - st[2]]]))


@pytest.mark.parametrize("game", [SMALL, HANDOUT], ids=str)
def test_evaluation_best_response_exploitability_equal_the_specialised_ones(game):
    rng = np.random.default_rng(5)
    table = rng.integers(1, game.n_dice + 1, size=game.shape)
    space = enumerate_game(HandoutGame.from_game(game))
    w = handout_policy(space, table)
    br = solver.best_response(game, table)
    assert abs(best_response_values(space, w, 0)[0] - br.first) <= 1e-12
    assert abs((1 - best_response_values(space, w, 1)[0]) - br.second) <= 1e-12
    assert abs(game_exploitability(space, w) - solver.exploitability(game, table)) <= 1e-12
    assert abs(evaluate_policy(space, w)[0] - solver.evaluate(game, table, table)) <= 1e-12
    # the uniform policy is the table of -1 (no data: uniform J)
    no_data = np.full(game.shape, -1, dtype=np.int64)
    assert abs(game_exploitability(space, uniform_policy(space))
               - solver.exploitability(game, no_data)) <= 1e-12


def test_optimal_play_is_not_exploitable():
    sol = solve_game(Pig(goal=10))
    assert abs(game_exploitability(sol.space, sol.policy())) <= 1e-10
    hold_at_2 = policy_from_actions(sol.space, lambda st: "hold" if st[2] >= 2 else "roll")
    assert game_exploitability(sol.space, hold_at_2) > 0.05
    assert abs(evaluate_policy(sol.space, sol.policy())[0] - sol.value) <= 1e-10


def test_bad_policies_and_methods():
    space = enumerate_game(Piglet(goal=2))
    with pytest.raises(SolverError, match="weights"):
        evaluate_policy(space, np.ones(3))
    with pytest.raises(SolverError, match="sum to"):
        evaluate_policy(space, np.ones(space.n_rows))
    with pytest.raises(SolverError, match="not a legal action"):
        policy_from_actions(space, lambda st: "dance")
    with pytest.raises(SolverError, match="unknown method"):
        solve_game(space, method="magic")


@pytest.mark.slow
def test_pig_to_100_reproduces_neller_and_presser():
    sol = solve_game(Pig(goal=100, die=6))
    assert sol.residual <= 1e-12
    assert round(sol.value, 4) == 0.5306  # "Optimal Play of the Dice Game Pig", UMAP J. 2004
    assert abs(sol.value - 0.5305927) <= 1e-7  # independent value iteration (benchmarks)


@pytest.mark.parametrize("game", [SMALL, HANDOUT], ids=str)
def test_expected_visits_are_the_specialised_visit_probabilities(game):
    from dicejack.solver.generic import expected_visits

    rng = np.random.default_rng(9)
    table = rng.integers(1, game.n_dice + 1, size=game.shape)
    space = enumerate_game(HandoutGame.from_game(game))
    visits = expected_visits(space, handout_policy(space, table))
    want = solver.visit_probabilities(game, table, table)
    got = np.zeros(game.shape)
    for s, (a, b, *rest) in enumerate(space.states):
        if a == "win":
            continue
        mover = rest[0]
        got[(a, b) if mover == 0 else (b, a)] += visits[s]
    np.testing.assert_allclose(got, want, atol=1e-12)
    ends = visits[space.terminal]
    assert abs(ends.sum() - 1.0) <= 1e-12  # every game ends somewhere


def test_expected_visits_with_cycles_by_hand():
    from dicejack.solver.generic import expected_visits

    # Piglet to 1: each roll ends the game with 1/2, else passes the turn: the start of player
    # 0 is visited 1 + 1/4 + 1/16 + ... = 4/3 times, player 1's 2/3; player 0 wins 2/3.
    space = enumerate_game(Piglet(goal=1))
    visits = expected_visits(space, uniform_policy(space))
    assert abs(visits[space.index[(0, 0, 0, 0)]] - 4 / 3) <= 1e-12
    assert abs(visits[space.index[(0, 0, 0, 1)]] - 2 / 3) <= 1e-12
    assert abs(visits[space.index[("win", 0)]] - 2 / 3) <= 1e-12


class Waiting:
    """One player: 'wait' (stay) or 'stop' (payoff 1). Always waiting never ends."""

    name = "waiting"
    num_players = 1

    def initial_state(self):
        return "here"

    def is_terminal(self, state):
        return state == "done"

    def payoff(self, state):
        return 1

    def player(self, state):
        return 0

    def actions(self, state):
        return ("wait", "stop")

    def outcomes(self, state, action):
        return [("here" if action == "wait" else "done", 1)]


@pytest.mark.parametrize("method", ["value-iteration", "policy-iteration"])
def test_a_policy_that_never_ends_is_worth_nothing(method):
    sol = solve_game(Waiting(), method=method)
    # Bellman's equation cannot tell waiting (worth V = 1 too) from stopping: both optimal
    assert sol.value == 1.0 and sol.optimal[sol.space.row_of("here", "stop")]
    waiting = policy_from_actions(sol.space, lambda s: "wait")
    assert evaluate_policy(sol.space, waiting)[0] == 0.0  # the linear system is singular
    assert best_response_values(sol.space, waiting, 0)[0] == 1.0
    assert game_exploitability(sol.space, waiting) == 1.0
