"""The exact evaluator of the deck divide-the-dollar game (dicejack.solver.deck_evaluation):
equal to a brute force over the whole game tree written here (every distinct order of the deck,
every action of both players, the quoted code's play_action line for line, in Fractions) at
tiny decks, its compiled kernels equal to their plain references, and a seeded simulation of
10^6 games inside the exact value's 95% interval at the study's deck (intent rules)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from itertools import permutations

import numpy as np
import pytest

from dicejack.games.deck_dollar import (
    TRUE_STATE_INDEX,
    DeckDollar,
    fixed_policy,
    policy_table,
    simulate,
    uniform_policy,
)
from dicejack.solver.deck_evaluation import (
    MEMORY_LIMIT,
    deal_distribution,
    evaluate_deck_policy,
    full_information_bound,
)
from dicejack.solver.deck_lean import lean_final
from dicejack.solver.deck_search import local_search
from dicejack.solver.solution import SolverError
from tests.games_package.test_deck_dollar import code_play_action


def code_round(game, deck, r, mine, theirs, d, a, b):
    """One round as the quoted code's game loop plays it (code_play_action; then monte draws,
    then the opponent): (the card showing monte saw, deck, mine, theirs, d) after it."""
    h, passing = game.hand_size, game.passing
    if r % 2 == 0:
        seen, m2, v1 = code_play_action(3, list(mine), a, h, passing)
        _, t2, v2 = code_play_action(seen, list(theirs), b, h, passing)
        seen = 3
    else:
        seen, t2, v2 = code_play_action(3, list(theirs), b, h, passing)
        _, m2, v1 = code_play_action(seen, list(mine), a, h, passing)
    d2 = d + int(4 * v1) - int(4 * v2) if v1 + v2 <= 1 else d
    rest = list(deck)
    if rest:
        m2 = sorted(m2 + [rest.pop(0)])
    if rest:
        t2 = sorted(t2 + [rest.pop(0)])
    return seen, tuple(rest), tuple(m2), tuple(t2), d2


def over_deals(game, play):
    """The mean of play(deck left, 0, monte's hand, the opponent's, 0) over every distinct
    order of the deck (each of probability prod(count!) / deck!)."""
    h = game.hand_size
    cards = [t for t, n in enumerate(game.counts) for _ in range(n)]
    orders = set(permutations(cards))
    total = 0
    for order in orders:
        total = total + play(order[2 * h:], 0, tuple(sorted(order[:h])),
                             tuple(sorted(order[h:2 * h])), 0) / len(orders)
    return total


def brute_force(game, policy):
    """(P(win), P(draw), P(loss)) of monte, in Fractions, over every deck order and every
    action of both players (the policy's probabilities as the nearest fractions of denominator
    at most 1000), the rounds played as the quoted code plays them (code_round)."""
    table = [[Fraction(float(p)).limit_denominator(1000) for p in row]
             for row in policy_table(policy)]
    h = game.hand_size

    def obs(showing, hand):
        return TRUE_STATE_INDEX[int(np.ravel_multi_index([showing, hand[0], hand[h // 2], hand[-1]],
                                                         (4, 3, 3, 3)))]

    @cache
    def play(deck, r, mine, theirs, d):
        if r == game.rounds:
            return np.array([Fraction(d > 0), Fraction(d == 0), Fraction(d < 0)], dtype=object)
        total = np.zeros(3, dtype=object)
        for a in range(3):
            for b in range(3):
                seen, left, m2, t2, d2 = code_round(game, deck, r, mine, theirs, d, a, b)
                p = table[obs(seen, mine)][a] / 3
                if p:
                    total = total + p * play(left, r + 1, m2, t2, d2)
        return total

    return list(over_deals(game, play))


def brute_force_best(game):
    """The full-information optimum in Fractions: monte sees everything; leading, it picks the
    best action for the mean over the opponent's; following, the best after seeing its card."""

    @cache
    def play(deck, r, mine, theirs, d):
        if r == game.rounds:
            return Fraction((d > 0) - (d < 0))
        by = [[Fraction(0)] * 3 for _ in range(3)]
        for a in range(3):
            for b in range(3):
                _, left, m2, t2, d2 = code_round(game, deck, r, mine, theirs, d, a, b)
                by[a][b] = play(left, r + 1, m2, t2, d2)
        if r % 2 == 0:
            return max(sum(row) / 3 for row in by)
        return sum(max(by[a][b] for a in range(3)) for b in range(3)) / 3

    return over_deals(game, play)


def policies():
    rng = np.random.default_rng(5)
    quarters = rng.integers(0, 4, size=(40, 3)).astype(float) + 0.25
    return [fixed_policy(0), fixed_policy(1), fixed_policy(2), uniform_policy(),
            rng.integers(0, 3, size=40), quarters / quarters.sum(axis=1, keepdims=True)]


TINY = [DeckDollar((2, 2, 2), 2), DeckDollar((1, 3, 2), 2), DeckDollar((2, 3, 2), 2),
        DeckDollar((2, 3, 3), 3)]


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("game", TINY, ids=str)
def test_the_evaluator_is_the_brute_force(game, passing):
    game = DeckDollar(game.counts, game.hand_size, passing=passing)
    for policy in policies():
        win, draw, loss = brute_force(game, policy)
        assert win + draw + loss == 1
        for compiled in (True, False):
            got = evaluate_deck_policy(game, policy, compiled=compiled)
            assert abs(got.win - float(win)) < 1e-12 and abs(got.loss - float(loss)) < 1e-12
            assert abs(got.draw - float(draw)) < 1e-12
            assert abs(got.expected - float(win - loss)) < 1e-12


def test_the_brute_force_sees_the_pass():
    # the passing follower changes the value (a planted intent-for-code swap would show here)
    game = DeckDollar((2, 3, 3), 3)
    intent = DeckDollar((2, 3, 3), 3, passing=False)
    assert brute_force(game, fixed_policy(2)) != brute_force(intent, fixed_policy(2))


@pytest.mark.parametrize("game", [DeckDollar((4, 6, 4), 3),
                                  DeckDollar((5, 8, 5), 4, passing=False)], ids=str)
def test_compiled_kernels_equal_their_references(game):
    for policy in policies()[3:]:
        fast = evaluate_deck_policy(game, policy)
        slow = evaluate_deck_policy(game, policy, compiled=False)
        assert np.array_equal(fast.final, slow.final) and fast.states == slow.states
        assert fast.expected == slow.expected and abs(fast.final.sum() - 1) < 1e-12


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("game", [DeckDollar((2, 3, 3), 3), DeckDollar((4, 6, 4), 3),
                                  DeckDollar((5, 8, 5), 4)], ids=str)
def test_the_lean_windows_equal_the_dense_rows(game, passing):
    # each state's window of d in one pool, next states merged in a hash table (grown from
    # 1,024 slots on the way at these decks), against a dense row per state
    game = DeckDollar(game.counts, game.hand_size, passing=passing)
    for policy in policies():
        dense = evaluate_deck_policy(game, policy, compiled=False, lean=False)
        for compiled in (True, False):
            got = evaluate_deck_policy(game, policy, compiled=compiled)
            assert got.states == dense.states and got.final.shape == dense.final.shape
            assert np.abs(got.final - dense.final).max() <= 1e-15
            assert abs(got.expected - dense.expected) <= 1e-15


def test_the_lean_table_grows_and_its_windows_cover_only_reachable_d():
    game = DeckDollar((8, 12, 8), 4)
    final, states, peak = lean_final(game, uniform_policy(), True, MEMORY_LIMIT)
    assert max(states) > 2 * 1024 and final.shape == (2 * 3 * game.rounds + 1,)
    assert peak > 0 and abs(final.sum() - 1) < 1e-12
    # the last column is monte taking 3 quarters more every round: unreachable (it leads
    # half of them, and a follower's 3/4 never scores), so exactly zero
    assert final[-1] == 0.0 and final[final > 0].shape[0] < final.shape[0]


def test_the_deal_is_two_hypergeometric_hands():
    deal = deal_distribution(DeckDollar((16, 28, 16), 5))
    assert sum(deal.values()) == 1 and len(deal) == 21 * 21
    # both hands all 1/4: 16 * 15 * ... * 7 of the 60 * 59 * ... * 51 ordered deals
    assert deal[(5, 0, 0, 5, 0, 0, 6, 28, 16)] == Fraction(math.perm(16, 10), math.perm(60, 10))


def test_a_state_space_over_the_memory_limit_is_refused():
    with pytest.raises(SolverError, match="memory limit"):
        evaluate_deck_policy(DeckDollar((6, 8, 6), 4), uniform_policy(), memory_limit=10_000)


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("game", TINY, ids=str)
def test_the_full_information_bound_is_the_brute_force_optimum(game, passing):
    game = DeckDollar(game.counts, game.hand_size, passing=passing)
    best = brute_force_best(game)
    for compiled in (True, False):
        for lean in (True, False):  # lean windows (solver.deck_bound) and dense rows
            got = full_information_bound(game, compiled=compiled, lean=lean)
            assert abs(got - float(best)) < 1e-12
    assert all(float(best) >= float(w - lo) for w, _, lo in (brute_force(game, p)
                                                            for p in policies()))


def test_the_bound_lies_above_every_policy_and_kernels_agree():
    game = DeckDollar((4, 6, 4), 3)
    bound = full_information_bound(game)
    assert bound == full_information_bound(game, compiled=False)
    assert all(evaluate_deck_policy(game, p).expected < bound - 0.05 for p in policies())


#: The study's deck with the evident intent (passing=False): the four baselines' exact values.
STUDY = DeckDollar(passing=False)


@pytest.mark.slow
def test_a_million_simulated_games_agree_with_the_exact_values():
    baselines = [fixed_policy(0), fixed_policy(1), fixed_policy(2), uniform_policy()]
    for k, policy in enumerate(baselines):
        exact = evaluate_deck_policy(STUDY, policy)
        tally = simulate(STUDY, policy, 10**6, np.random.default_rng(100 + k))
        assert abs(tally.mean - exact.expected) < tally.half_width, k
        assert abs(tally.wins / 10**6 - exact.win) < 0.002


@pytest.mark.slow
def test_a_million_simulated_games_agree_with_the_lean_values_under_passing():
    # the code's passing follower at a 30-card deck (hands grow; the study's deck itself is
    # benchmarks/bench_deck_evaluation.py --passing, minutes per policy)
    game = DeckDollar((8, 14, 8), 4)
    for k, policy in enumerate([fixed_policy(0), fixed_policy(2), uniform_policy()]):
        exact = evaluate_deck_policy(game, policy)
        tally = simulate(game, policy, 10**6, np.random.default_rng(200 + k))
        assert abs(tally.mean - exact.expected) < tally.half_width, k
        assert abs(tally.draws / 10**6 - exact.draw) < 0.002


def test_local_search_ends_at_a_local_optimum_above_its_start():
    game = DeckDollar((3, 4, 3), 3)
    start = np.zeros(40, dtype=np.int64)
    found = local_search(game, start, compiled=False)
    assert found.converged and found.value > evaluate_deck_policy(game, start).expected + 0.1
    assert found.value == evaluate_deck_policy(game, found.actions).expected
    assert list(found.history) == sorted(found.history) and found.history[-1] == found.value
    for obs in range(40):  # no single observation's change improves it
        for action in range(3):
            trial = found.actions.copy()
            trial[obs] = action
            assert evaluate_deck_policy(game, trial).expected <= found.value
    assert found.value <= full_information_bound(game)
    with pytest.raises(SolverError):
        local_search(game, np.zeros(39, dtype=np.int64))
