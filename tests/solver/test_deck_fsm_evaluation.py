"""The exact evaluator and simulation of FSM players of the deck game
(dicejack.solver.deck_fsm_evaluation): equal to a brute force over the whole game tree written
here (every distinct deck order, every opponent action, the quoted code's play_action, the
machine stepped turn by turn, in Fractions) at tiny decks; compiled kernels equal to their plain
references; a 1-state machine equal to the observation-policy evaluator and to
deck_dollar.simulate draw for draw; a seeded simulation inside the exact value's interval."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import permutations

import numpy as np
import pytest

from dicejack.games.deck_dollar import TRUE_STATE_INDEX, DeckDollar, simulate
from dicejack.solver.deck_evaluation import evaluate_deck_policy
from dicejack.solver.deck_fsm_evaluation import FsmPlayer, evaluate_fsm, simulate_fsm
from dicejack.solver.solution import SolverError
from tests.games_package.test_deck_dollar import code_play_action


def brute_force_fsm(game, fsm):
    """Monte's expected reward in Fractions: every distinct deck order (equally likely), every
    opponent action (1/3 each), the machine's action and next state at each of its turns."""
    h, passing = game.hand_size, game.passing

    def obs(showing, hand):
        return TRUE_STATE_INDEX[int(np.ravel_multi_index(
            [showing, hand[0], hand[h // 2], hand[-1]], (4, 3, 3, 3)))]

    @cache
    def play(deck, r, mine, theirs, d, q):
        if r == game.rounds:
            return Fraction((d > 0) - (d < 0))
        total = Fraction(0)
        for b in range(3):
            if r % 2 == 0:
                o = obs(3, mine)
                seen, m2, v1 = code_play_action(3, list(mine), int(fsm.actions[q, o]), h, passing)
                _, t2, v2 = code_play_action(seen, list(theirs), b, h, passing)
            else:
                seen, t2, v2 = code_play_action(3, list(theirs), b, h, passing)
                o = obs(seen, mine)
                _, m2, v1 = code_play_action(seen, list(mine), int(fsm.actions[q, o]), h, passing)
            d2 = d + int(4 * v1) - int(4 * v2) if v1 + v2 <= 1 else d
            rest = list(deck)
            if rest:
                m2 = sorted(m2 + [rest.pop(0)])
            if rest:
                t2 = sorted(t2 + [rest.pop(0)])
            total += play(tuple(rest), r + 1, tuple(m2), tuple(t2), d2,
                          int(fsm.transitions[q, o])) / 3
        return total

    cards = [t for t, n in enumerate(game.counts) for _ in range(n)]
    orders = set(permutations(cards))
    return sum(play(o[2 * h:], 0, tuple(sorted(o[:h])), tuple(sorted(o[h:2 * h])), 0,
                    fsm.initial) for o in orders) / len(orders)


def machines(seed, n):
    rng = np.random.default_rng(seed)
    return FsmPlayer(rng.integers(0, 3, (n, 40)), rng.integers(0, n, (n, 40)),
                     int(rng.integers(0, n)))


TINY = [DeckDollar((2, 2, 2), 2), DeckDollar((2, 3, 2), 2), DeckDollar((2, 3, 3), 3),
        DeckDollar((3, 3, 3), 2)]


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("game", TINY, ids=str)
def test_the_evaluator_is_the_brute_force(game, passing):
    game = DeckDollar(game.counts, game.hand_size, passing=passing)
    for seed, n in [(1, 1), (2, 2), (3, 3), (4, 5)]:
        fsm = machines(seed, n)
        want = float(brute_force_fsm(game, fsm))
        assert evaluate_fsm(game, fsm).expected == pytest.approx(want, abs=1e-12)
        assert evaluate_fsm(game, fsm, compiled=False).expected == pytest.approx(want, abs=1e-12)


def test_a_machine_that_changes_state_differs_from_its_first_state_alone():
    """The machine's state matters: a 2-state machine whose second state plays otherwise is
    not its first state's observation policy (so the brute force above tests transitions)."""
    game = DeckDollar((3, 3, 3), 2, passing=False)
    acts = np.array([np.full(40, 2), np.full(40, 0)])
    flip = FsmPlayer(acts, np.ones((2, 40), np.int64))
    alone = FsmPlayer(acts[:1], np.zeros((1, 40), np.int64))
    assert float(brute_force_fsm(game, flip)) == pytest.approx(evaluate_fsm(game, flip).expected,
                                                                abs=1e-12)
    assert abs(evaluate_fsm(game, flip).expected - evaluate_fsm(game, alone).expected) > 0.01


@pytest.mark.parametrize("passing", [True, False])
def test_compiled_equals_plain_at_a_larger_deck(passing):
    game = DeckDollar((4, 6, 4), 3, passing=passing)
    fsm = machines(9, 4)
    one, two = evaluate_fsm(game, fsm), evaluate_fsm(game, fsm, compiled=False)
    assert one.states == two.states
    np.testing.assert_allclose(one.final, two.final, rtol=0, atol=1e-14)


@pytest.mark.parametrize("passing", [True, False])
def test_a_one_state_machine_is_its_observation_policy(passing):
    game = DeckDollar((6, 10, 6), 4, passing=passing)
    rng = np.random.default_rng(11)
    for _ in range(3):
        policy = rng.integers(0, 3, size=40)
        fsm = FsmPlayer.from_policy(policy)
        got, want = evaluate_fsm(game, fsm), evaluate_deck_policy(game, policy)
        assert got.expected == pytest.approx(want.expected, abs=1e-12)
        assert got.states == want.states
        # the simulation takes deck_dollar.simulate's draws: identical tallies on one seed
        assert simulate_fsm(game, fsm, 3000, np.random.default_rng(5)) == \
            simulate(game, policy, 3000, np.random.default_rng(5))


@pytest.mark.parametrize("passing", [True, False])
def test_the_simulation_compiled_equals_plain(passing):
    game = DeckDollar((5, 8, 5), 4, passing=passing)
    fsm = machines(12, 6)
    assert simulate_fsm(game, fsm, 400, np.random.default_rng(3)) == \
        simulate_fsm(game, fsm, 400, np.random.default_rng(3), compiled=False)


def test_the_simulation_agrees_with_the_exact_value():
    game = DeckDollar((6, 10, 6), 4, passing=False)
    for seed in (13, 14):
        fsm = machines(seed, 8)
        exact = evaluate_fsm(game, fsm).expected
        tally = simulate_fsm(game, fsm, 1_000_000, np.random.default_rng(seed + 100))
        assert abs(tally.mean - exact) < tally.half_width


def test_bad_machines_and_limits_are_refused():
    with pytest.raises(SolverError, match="next states"):
        FsmPlayer(np.zeros((2, 40), np.int64), np.full((2, 40), 2))
    with pytest.raises(SolverError, match=r"\(n, 40\)"):
        FsmPlayer(np.zeros((2, 39), np.int64), np.zeros((2, 39), np.int64))
    with pytest.raises(SolverError, match="initial"):
        FsmPlayer(np.zeros((2, 40), np.int64), np.zeros((2, 40), np.int64), 2)
    with pytest.raises(SolverError, match="deterministic"):
        FsmPlayer.from_policy(np.full((40, 3), 1 / 3))
    with pytest.raises(SolverError, match="memory limit"):
        evaluate_fsm(DeckDollar((6, 8, 6), 4), machines(1, 4), memory_limit=10_000)
    with pytest.raises(SolverError, match="games"):
        simulate_fsm(DeckDollar((6, 8, 6), 4), machines(1, 4), 0, np.random.default_rng(0))
