"""A best deterministic observation-based policy of the deck divide-the-dollar game against the
uniform opponent, found by local search with the exact evaluator
(:func:`~dicejack.solver.deck_evaluation.evaluate_deck_policy`) as its guide.

Coordinate ascent: the 40 observations in turn, each set to the action whose exact value is
highest with every other observation's action kept (ties kept as they are, so the search never
cycles), until a whole sweep changes nothing: a local optimum under one-observation changes.
Deterministic (no randomness): the same start gives the same policy. Not a proof of the best
policy; the full-information bound (:func:`~dicejack.solver.deck_evaluation.full_information_bound`)
bounds it from above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import N_OBSERVATIONS, DeckDollar
from dicejack.solver.deck_evaluation import evaluate_deck_policy
from dicejack.solver.solution import SolverError

__all__ = ["SearchResult", "local_search"]


@dataclass(frozen=True)
class SearchResult:
    """The policy found (40 action numbers), its exact value, the value after each sweep, the
    evaluations made, and whether the last sweep changed nothing (a local optimum)."""

    actions: np.ndarray
    value: float
    history: tuple[float, ...]
    evaluations: int
    converged: bool


def local_search(game: DeckDollar, start: Any, sweeps: int = 10, compiled: bool = True,
                 progress: Callable[[int, int, float], None] | None = None) -> SearchResult:
    """Coordinate ascent from `start` (40 action numbers) for at most `sweeps` sweeps (module
    docstring); `progress(sweep, observation, value)` is told of every improvement."""
    actions = np.array(start, dtype=np.int64)
    if actions.shape != (N_OBSERVATIONS,) or actions.min() < 0 or actions.max() > 2:
        raise SolverError("local_search starts from 40 actions, each 0, 1 or 2")
    value = evaluate_deck_policy(game, actions, compiled=compiled).expected
    history, evaluations, converged = [value], 1, False
    for sweep in range(sweeps):
        changed = False
        for obs in range(N_OBSERVATIONS):
            kept = actions[obs]
            for action in range(3):
                if action == kept:
                    continue
                actions[obs] = action
                trial = evaluate_deck_policy(game, actions, compiled=compiled).expected
                evaluations += 1
                if trial > value:
                    value, kept, changed = trial, action, True
                    if progress is not None:
                        progress(sweep, obs, value)
            actions[obs] = kept
        history.append(value)
        if not changed:
            converged = True
            break
    return SearchResult(actions.copy(), value, tuple(history), evaluations, converged)
