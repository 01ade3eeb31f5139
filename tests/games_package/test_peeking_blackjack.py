"""Peeking Blackjack (dicejack.games.peeking_blackjack): its states, the per-action cost, and the
generic solver held to an independent value iteration of the assignment's MDP written here."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dicejack.games import GameDefinitionError, PeekingBlackjack, enumerate_game, make_game
from dicejack.games.peeking_blackjack import ASSIGNMENT_MDPS
from dicejack.solver.generic import evaluate_policy, policy_from_actions, solve_game


def _assignment_mdp(values, multiplicity, threshold, peek_cost):
    """The assignment's MDP as its text describes it, written afresh: (state -> action ->
    [(next, probability, reward)]), a second peek and any action at the end with no successor;
    a terminal state is (total, None, None), reached with the hand's pay as the reward."""

    def succ(state, action):
        total, peeked, counts = state
        if counts is None:
            return []
        if action == "Quit":
            return [((total, None, None), 1.0, total)]
        if action == "Peek":
            if peeked is not None:
                return []
            n = sum(counts)
            return [((total, i, counts), c / n, -peek_cost) for i, c in enumerate(counts) if c]
        out = []
        n = sum(counts)
        for i, c in enumerate(counts):
            if peeked is not None and i != peeked or not c:
                continue
            p = 1.0 if peeked is not None else c / n
            new = total + values[i]
            left = list(counts)
            left[i] -= 1
            if new > threshold:
                out.append(((new, None, None), p, 0))
            elif sum(left) == 0:
                out.append(((new, None, None), p, new))
            else:
                out.append(((new, None, tuple(left)), p, 0))
        return out

    start = (0, None, (multiplicity,) * len(values))
    states, todo = {start}, [start]
    while todo:
        s = todo.pop()
        for a in ("Take", "Peek", "Quit"):
            for nxt, _, _ in succ(s, a):
                if nxt not in states:
                    states.add(nxt)
                    todo.append(nxt)
    return start, states, succ


def _value_iteration(values, multiplicity, threshold, peek_cost):
    start, states, succ = _assignment_mdp(values, multiplicity, threshold, peek_cost)
    v = dict.fromkeys(states, 0.0)
    while True:  # synchronous sweeps, the assignment's util.ValueIteration, to no change
        new = {s: max(sum(p * (r + v[n]) for n, p, r in succ(s, a))
                      for a in ("Take", "Peek", "Quit")) for s in states}
        change = max(abs(new[s] - v[s]) for s in states)
        v = new
        if change < 1e-12:
            return start, states, v


@pytest.mark.parametrize("name", sorted(ASSIGNMENT_MDPS))
def test_solver_equals_an_independent_value_iteration(name):
    params = ASSIGNMENT_MDPS[name]
    start, states, v = _value_iteration(*params)
    sol = solve_game(PeekingBlackjack(*params))
    space = sol.space
    assert space.states[0] == start
    live = [s for s in states if s[2] is not None]
    assert sorted(map(repr, live)) == sorted(
        repr(space.states[i]) for i in np.flatnonzero(~space.terminal))
    for s in live:
        assert sol.value_of(s) == pytest.approx(v[s], abs=1e-9), s
    # the terminal states: the assignment's (total, None, None), paying the hand
    ends = {s for s in states if s[2] is None}
    assert {space.states[i] for i in np.flatnonzero(space.terminal)} == ends


def test_small_mdp_exactly():
    sol = solve_game(PeekingBlackjack((1, 5), 2, 10, 1), exact=True)
    assert sol.value_exact == Fraction(41, 6)
    assert sol.space.n_states == 27
    assert solve_game(PeekingBlackjack((1, 3, 5, 8, 10), 3, 40, 1)).space.n_states == 2745


def test_peek_cost_is_a_reward_and_a_second_peek_is_not_legal():
    game = PeekingBlackjack((1, 5), 2, 10, 3)
    space = enumerate_game(game)
    start = space.states[0]
    assert [space.actions[r] for r in space.rows(0)] == ["Take", "Peek", "Quit"]
    r = space.row_of(start, "Peek")
    assert space.reward[r] == -3
    peeked = (0, 1, (2, 2))
    assert [space.actions[r] for r in space.rows(space.index[peeked])] == ["Take", "Quit"]
    # always peek, then take: pays 3 per card and ends on the deck's total or a bust
    policy = policy_from_actions(space, lambda s: "Peek" if s[1] is None else "Take")
    value = evaluate_policy(space, policy)[0]
    assert value < 0  # at least two peeks (two cards, then a bust or more cards), each 3


@pytest.mark.parametrize("params, words", [
    ({"card_values": "1,x"}, "card_values"),
    ({"multiplicity": 0}, "multiplicity"),
    ({"peek_cost": -1}, "peek_cost"),
    ({"card_values": "1,2,3,4,5,6,7,8,9,10", "multiplicity": 10}, "too many"),
])
def test_bad_parameters_fail_in_one_line(params, words):
    with pytest.raises(GameDefinitionError, match=words):
        make_game("peeking-blackjack", params)


def test_parameters_from_the_command_line():
    game = make_game("peeking-blackjack", {"card_values": "1, 3 5", "peek_cost": Fraction(1, 2)})
    assert game.card_values == (1, 3, 5)
    assert game.params()["card_values"] == "1,3,5"
