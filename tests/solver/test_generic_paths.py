"""The default path (compiled enumeration where the game has it; strongly connected components
swept to a fixed point, small ones solved exactly: solver/generic_sweeps.py) equals the old
paths on every bundled game at small parameters (issue 45): the protocol's Python enumeration,
policy iteration's sparse solves, exact Fractions where there is no cycle, the levels' policy
evaluation; and, for Pig, a plain value iteration written here."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games import (
    HandoutGame,
    PeekingBlackjack,
    Pig,
    Piglet,
    Yamslam,
    enumerate_game,
)
from dicejack.games.pig import PigReset
from dicejack.solver.generic import (
    best_response_values,
    evaluate_policy,
    level_structure,
    levels_policy_iteration,
    policy_from_actions,
    solve_game,
    uniform_policy,
)

CYCLIC = [Pig(goal=15), Pig(goal=9, die=3), Piglet(goal=6), PigReset(goal=15),
          PigReset(goal=8, die=3)]
ACYCLIC = [HandoutGame(6, 10, 12, 2), HandoutGame(4, 6, 7, 3), PeekingBlackjack(),
           PeekingBlackjack((1, 3, 5), 2, 12, 1), Yamslam(1)]


class _Python:
    """The game without its compiled_space: the protocol's own enumeration."""

    def __init__(self, game):
        self.game = game
        self.name, self.num_players = game.name, game.num_players

    def __getattr__(self, name):
        if name == "compiled_space":
            raise AttributeError(name)
        return getattr(self.game, name)


@pytest.mark.parametrize("game", CYCLIC, ids=str)
def test_cyclic_games_equal_policy_iteration_and_the_python_enumeration(game):
    space = enumerate_game(game)
    sol = solve_game(space)
    old = solve_game(enumerate_game(_Python(game)), method="policy-iteration")
    assert np.max(np.abs(sol.values - old.values)) <= 1e-12
    assert sol.error_bound < 1e-12 and sol.method == "value-iteration"
    assert np.array_equal(sol.best, old.best)


@pytest.mark.parametrize("game", ACYCLIC, ids=str)
def test_acyclic_games_equal_exact_fractions(game):
    sol = solve_game(game)
    exact = solve_game(game, exact=True)
    assert sol.method == "backward"
    assert np.max(np.abs(sol.values - np.array([float(x) for x in exact.values_exact]))) <= 1e-12
    assert np.array_equal(sol.optimal, exact.optimal)


@pytest.mark.parametrize("game", CYCLIC[:2] + CYCLIC[3:4] + ACYCLIC[:1] + ACYCLIC[2:3], ids=str)
def test_policies_values_and_best_responses_equal_the_levels_policy_iteration(game):
    space = enumerate_game(game)
    levels = level_structure(space)
    rng = np.random.default_rng(45)
    weights = rng.random(space.n_rows)
    sums = np.add.reduceat(weights, space.row_start[:-1][~space.terminal])
    weights /= np.repeat(sums, np.diff(space.row_start)[~space.terminal])
    for policy in (uniform_policy(space), weights):
        every = np.ones(space.n_states, dtype=bool)
        old, _ = levels_policy_iteration(space, levels, policy, every)
        assert np.max(np.abs(evaluate_policy(space, policy) - old)) <= 1e-12
        for responder in range(space.num_players):
            fixed = (space.player >= 0) & (space.player != responder)
            old, _ = levels_policy_iteration(space, levels, policy, fixed)
            new = best_response_values(space, policy, responder)
            assert np.max(np.abs(new - old)) <= 1e-12


def plain_pig(goal: int, die: int) -> dict:
    """P(mover wins) at (mover's score, other's score, turn total): Gauss-Seidel over a dict
    until no value changes by more than 1e-15."""
    p = {(i, j, k): 0.0 for i in range(goal) for j in range(goal) for k in range(goal - i)}

    def value(i, j, k):
        roll = (1.0 - p[(j, i, 0)]) / die
        for face in range(2, die + 1):
            roll += (1.0 if i + k + face >= goal else p[(i, j, k + face)]) / die
        return roll if k == 0 else max(roll, 1.0 - p[(j, i + k, 0)])

    order = sorted(p, reverse=True)
    for _ in range(5_000):
        change = 0.0
        for key in order:
            new = value(*key)
            change = max(change, abs(new - p[key]))
            p[key] = new
        if change <= 1e-15:
            return p
    raise AssertionError("no fixed point")


@pytest.mark.parametrize("goal,die", [(10, 6), (14, 4)])
def test_pig_equals_a_plain_value_iteration_written_here(goal, die):
    sol = solve_game(Pig(goal=goal, die=die))
    ref = plain_pig(goal, die)
    for s, state in enumerate(sol.space.states):
        if state[0] == "win":
            continue
        s0, s1, k, mover = state
        want = ref[(s0, s1, k)] if mover == 0 else 1.0 - ref[(s1, s0, k)]
        assert abs(sol.values[s] - want) <= 1e-12, state


def test_hold_at_k_against_optimal_at_pig_equals_the_old_evaluation():
    space = enumerate_game(Pig(goal=25))
    sol = solve_game(space)
    hold = policy_from_actions(space, lambda s: "hold" if s[2] >= 8 else "roll")
    mixed = np.where(space.player[space.row_state] == 0, hold, sol.policy())
    levels = level_structure(space)
    old, _ = levels_policy_iteration(space, levels, mixed, np.ones(space.n_states, dtype=bool))
    assert abs(evaluate_policy(space, mixed)[0] - old[0]) <= 1e-13
