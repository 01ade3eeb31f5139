"""The deck game's lean full-information bound (dicejack.solver.deck_bound): bit-identical to
the dense backward induction (deck_evaluation.full_information_bound(lean=False)) under both
rules, its compiled kernels equal to their plain references, spilled rounds equal to rounds
kept in memory, its states the uniform policy's reach, and its refusals (the brute-force
optimum at tiny decks: tests/solver/test_deck_evaluation.py)."""

from __future__ import annotations

import pytest

from dicejack.games.deck_dollar import DeckDollar, fixed_policy, uniform_policy
from dicejack.solver.deck_bound import lean_bound
from dicejack.solver.deck_evaluation import (
    MEMORY_LIMIT,
    evaluate_deck_policy,
    full_information_bound,
)
from dicejack.solver.solution import SolverError

SMALL = [DeckDollar((2, 2, 2), 2), DeckDollar((2, 3, 3), 3), DeckDollar((4, 6, 4), 3),
         DeckDollar((5, 8, 5), 4), DeckDollar((3, 7, 4), 2)]


@pytest.mark.parametrize("passing", [True, False])
@pytest.mark.parametrize("game", SMALL, ids=str)
def test_the_lean_bound_is_the_dense_bound_bit_for_bit(game, passing):
    game = DeckDollar(game.counts, game.hand_size, passing=passing)
    dense = full_information_bound(game, compiled=False, lean=False)
    assert dense == full_information_bound(game, lean=False)
    for compiled in (True, False):
        for spill in (False, True):
            assert lean_bound(game, compiled, MEMORY_LIMIT, spill).value == dense
    assert full_information_bound(game) == dense


@pytest.mark.parametrize("game", [DeckDollar((8, 12, 8), 4), DeckDollar((6, 10, 6), 4,
                                                                         passing=False)], ids=str)
def test_the_compiled_bound_grows_its_table_and_equals_the_dense_one(game):
    # more than 1,024 / 4 states a round: the forward hash table grows on the way
    run = lean_bound(game, True, MEMORY_LIMIT)
    uniform = evaluate_deck_policy(game, uniform_policy())
    assert run.states == uniform.states and max(run.states) > 256
    assert run.value == full_information_bound(game, lean=False)
    assert all(run.value > evaluate_deck_policy(game, fixed_policy(a)).expected + 0.05
               for a in range(3))
    assert run.value > uniform.expected + 0.05 and run.value < 1


def test_spilled_rounds_leave_memory_and_the_limit_refuses():
    game = DeckDollar((8, 12, 8), 4)
    held, spilled = lean_bound(game, True, MEMORY_LIMIT), lean_bound(game, True, MEMORY_LIMIT, True)
    assert spilled.value == held.value and spilled.states == held.states
    assert spilled.peak < held.peak
    with pytest.raises(SolverError, match="memory limit"):
        lean_bound(game, True, held.peak - 1)
    assert lean_bound(game, True, held.peak).value == held.value
    with pytest.raises(SolverError, match="memory limit"):
        full_information_bound(game, memory_limit=10_000)
