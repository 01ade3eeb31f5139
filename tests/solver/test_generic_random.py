"""The generic solver on random small games, with and without cycles, against a plain value
iteration over the game's own methods written here (dict by state, Gauss-Seidel sweeps), and
exact Fractions against floats where there are no cycles; expected visits against simulation
counts' expectation computed by hand-rolled linear algebra."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from dicejack.games import enumerate_game
from dicejack.solver.generic import (
    best_response_values,
    evaluate_policy,
    expected_visits,
    game_exploitability,
    solve_game,
    uniform_policy,
)


@dataclass(frozen=True)
class RandomGame:
    """`n` states 0..n-1 (and terminal ("end", k)); each state's mover and 1..3 actions, each
    with 1..3 outcomes of random Fraction probabilities; `back` lets outcomes go to earlier
    states (cycles), always with an exit so that every game ends."""

    seed: int
    n: int = 12
    back: bool = True
    players: int = 2

    name = "random"

    @property
    def num_players(self):
        return self.players

    def _rng(self, *key):
        return np.random.default_rng([self.seed, *key])

    def initial_state(self):
        return 0

    def is_terminal(self, s):
        return isinstance(s, tuple)

    def payoff(self, s):
        return Fraction(s[1], 4)

    def player(self, s):
        return int(self._rng(s, 0).integers(self.players))

    def actions(self, s):
        return tuple(range(1 + int(self._rng(s, 1).integers(3))))

    def outcomes(self, s, a):
        rng = self._rng(s, 2, a)
        k = 1 + int(rng.integers(3))
        targets = set()
        for _ in range(k):
            if self.back and rng.random() < 0.4:
                targets.add(int(rng.integers(0, s + 1)))  # back (or stay): a cycle
            elif s + 1 < self.n and rng.random() < 0.7:
                targets.add(int(rng.integers(s + 1, self.n)))
            else:
                targets.add(("end", int(rng.integers(5))))
        targets.add(("end", int(rng.integers(5))))  # always a way out
        weights = [int(w) for w in rng.integers(1, 6, size=len(targets))]
        total = sum(weights)
        return [(t, Fraction(w, total)) for t, w in zip(sorted(targets, key=str), weights,
                                                        strict=True)]


def plain_values(game, policy=None, sweeps=20_000):
    """Gauss-Seidel value iteration over the game's own methods (no dicejack arrays)."""
    space = enumerate_game(game)
    v = {s: float(game.payoff(s)) if game.is_terminal(s) else 0.0 for s in space.states}
    for _ in range(sweeps):
        change = 0.0
        for s in space.states:
            if game.is_terminal(s):
                continue
            qs = [sum(float(p) * v[t] for t, p in game.outcomes(s, a)) for a in game.actions(s)]
            if policy is not None:
                new = sum(w * q for w, q in zip(policy(s), qs, strict=True))
            else:
                new = max(qs) if game.player(s) == 0 else min(qs)
            change = max(change, abs(new - v[s]))
            v[s] = new
        if change < 1e-15:
            break
    return v


@pytest.mark.parametrize("seed", range(12))
def test_random_games_value_and_policy_iteration_equal_a_plain_iteration(seed):
    game = RandomGame(seed)
    want = plain_values(game)
    for method in ("value-iteration", "policy-iteration"):
        sol = solve_game(game, method=method)
        assert sol.method == method  # the game has cycles (a back step), so not "backward"
        for s, state in enumerate(sol.space.states):
            assert abs(sol.values[s] - want[state]) <= 1e-10, (method, state)
        assert sol.residual <= 1e-12
    space = sol.space
    uniform = uniform_policy(space)
    plain = plain_values(game, policy=lambda s: [1 / len(game.actions(s))] * len(game.actions(s)))
    np.testing.assert_allclose(evaluate_policy(space, uniform),
                               [plain[s] for s in space.states], atol=1e-10)
    # a best response is at least as good as the policy for its player, optimal play at most
    first = best_response_values(space, uniform, 0)[0]
    second = best_response_values(space, uniform, 1)[0]
    assert second - 1e-12 <= evaluate_policy(space, uniform)[0] <= first + 1e-12
    assert second - 1e-12 <= sol.value <= first + 1e-12
    assert game_exploitability(space, sol.policy()) <= 1e-10
    # every game ends: the expected visits of the terminal states sum to 1
    visits = expected_visits(space, uniform)
    assert abs(visits[space.terminal].sum() - 1.0) <= 1e-10


@pytest.mark.parametrize("seed", range(6))
def test_random_games_without_cycles_exactly(seed):
    game = RandomGame(seed, back=False)
    exact = solve_game(game, exact=True)
    assert exact.method == "backward"
    floats = solve_game(game)
    assert all(abs(float(f) - x) <= 1e-15 for f, x in zip(exact.values_exact, floats.values,
                                                          strict=True))
    # exactly: each state's value is its mover's best Q
    space = exact.space
    for s in np.flatnonzero(~space.terminal):
        qs = [sum(p * exact.values_exact[j] for j, p in space.exact_rows[r])
              for r in space.rows(int(s))]
        best = max(qs) if space.player[s] == 0 else min(qs)
        assert exact.values_exact[s] == best


def test_one_player_random_games():
    game = RandomGame(5, players=1)
    sol = solve_game(game)
    want = plain_values(game)
    assert abs(sol.value - want[0]) <= 1e-10
    uniform = uniform_policy(sol.space)
    regret = sol.value - evaluate_policy(sol.space, uniform)[0]
    assert abs(game_exploitability(sol.space, uniform) - regret) <= 1e-12
