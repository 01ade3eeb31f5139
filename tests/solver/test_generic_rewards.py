"""Per-action rewards (the protocol's optional ``reward(state, action)``) in the generic solver:
value and policy iteration on a cyclic game, exact rationals on an acyclic one, evaluation and
best response, each against values worked out by hand."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from dicejack.games import enumerate_game
from dicejack.learners import LearnerError
from dicejack.learners.game_learners import GameQLearning
from dicejack.solver.generic import (
    best_response_values,
    evaluate_policy,
    game_exploitability,
    policy_from_actions,
    solve_game,
)


@dataclass(frozen=True)
class PaidWalk:
    """Positions 0..3; step (costs `cost`; +1 or stay, each 1/2; cyclic) or stop (pays the
    position). By hand, cost 1/4: stepping from k is worth V(k+1) - 2 cost, so V = 1.5, 2, 2.5,
    3. With `sure`, a step always moves (no cycle): V(k) = max(k, V(k+1) - cost)."""

    cost: Fraction = Fraction(1, 4)
    sure: bool = False
    name = "paid-walk"
    num_players = 1

    def initial_state(self):
        return 0

    def is_terminal(self, state):
        return isinstance(state, tuple)

    def payoff(self, state):
        return state[1]

    def player(self, state):
        return 0

    def actions(self, state):
        return ("step", "stop") if state < 3 else ("stop",)

    def reward(self, state, action):
        return -self.cost if action == "step" else 0

    def outcomes(self, state, action):
        if action == "stop":
            return [(("end", state), 1)]
        if self.sure:
            return [(state + 1, 1)]
        return [(state + 1, Fraction(1, 2)), (state, Fraction(1, 2))]


@pytest.mark.parametrize("method", ["value-iteration", "policy-iteration"])
def test_cyclic_game_with_costs_by_hand(method):
    sol = solve_game(PaidWalk(), method=method)
    assert [sol.value_of(k) for k in range(4)] == pytest.approx([1.5, 2, 2.5, 3], abs=1e-12)
    assert sol.residual < 1e-12
    assert sol.best_action(0) == "step"


def test_exact_rationals_with_costs():
    sol = solve_game(PaidWalk(Fraction(3, 2), sure=True), exact=True)
    # V(3) = 3, V(2) = max(2, 1.5) = 2, V(1) = max(1, 0.5) = 1, V(0) = max(0, -0.5) = 0
    assert [sol.values_exact[sol.space.index[k]] for k in range(4)] == [0, 1, 2, 3]
    assert sol.best_action(2) == "stop"


def test_evaluation_and_best_response_count_the_costs():
    space = enumerate_game(PaidWalk())
    always_step = policy_from_actions(space, lambda s: "step" if s < 3 else "stop")
    v = evaluate_policy(space, always_step)
    # stepping to 3 takes 2 tries a position on average, each costing 1/4: 3 - (3 - k) / 2
    assert [v[space.index[k]] for k in range(4)] == pytest.approx([1.5, 2, 2.5, 3])
    stop = policy_from_actions(space, lambda s: "stop")
    assert evaluate_policy(space, stop)[0] == 0
    assert best_response_values(space, stop, 0)[0] == pytest.approx(1.5)
    assert game_exploitability(space, stop) == pytest.approx(1.5)


def test_a_game_without_rewards_has_none():
    from dicejack.games import Piglet

    assert enumerate_game(Piglet(goal=2)).reward is None
    assert np.array_equal(enumerate_game(PaidWalk()).reward, [-0.25, 0, -0.25, 0, -0.25, 0, 0])


def test_terminal_payoff_learners_refuse_rewards():
    with pytest.raises(LearnerError, match="rewards per action"):
        GameQLearning(PaidWalk(), 1)
