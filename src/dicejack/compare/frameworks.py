"""Conversions between the handout's conventions and other frameworks', with no optional package.

The handout (and dicejack) numbers the dice J = 1..NDice and states a win probability P in [0, 1]
from the point of view of the player about to move at <X, Y> (its own score first). OpenSpiel,
PettingZoo and most RL libraries number actions from 0 (action a = J - 1) and state values in
[-1, 1] for a fixed player (player 0 moves first). These functions turn one into the other, and
:func:`greedy_tables` turns a tabular agent's q-values into the handout's two printed arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack.compare.truth import CompareError
from dicejack.games.handout_rules import Game

__all__ = [
    "dice_to_action",
    "action_to_dice",
    "probability_to_value",
    "value_to_probability",
    "mover_view",
    "greedy_tables",
]


def dice_to_action(j: Any) -> Any:
    """The handout's J (1..NDice) as a 0-based action (0..NDice-1); arrays elementwise."""
    return _array(j) - 1


def action_to_dice(action: Any) -> Any:
    """A 0-based action (0..NDice-1) as the handout's J (1..NDice); arrays elementwise."""
    return _array(action) + 1


def probability_to_value(p: Any) -> Any:
    """A win probability in [0, 1] as the zero-sum return expectation in [-1, 1]: 2P - 1."""
    return 2 * _array(p) - 1


def value_to_probability(v: Any) -> Any:
    """A return expectation in [-1, 1] (win +1, loss -1) as a win probability: (v + 1) / 2."""
    return (_array(v) + 1) / 2


def mover_view(scores: tuple[int, int], mover: int) -> tuple[int, int]:
    """Player 0's and player 1's scores as the handout's <X, Y> for `mover` (0 or 1): the
    mover's own score first."""
    if mover not in (0, 1):
        raise CompareError(f"mover must be player 0 or 1, got {mover!r}")
    return (scores[mover], scores[1 - mover])


def greedy_tables(game: Game, q: Any, visits: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """What a tabular agent learned as the handout's two output arrays (best J, its win
    probability).

    `q`: (L, L, K+1) estimated win probability of the mover for each J (column 0 ignored), as
    a tabular agent keeps it (for values in [-1, 1] pass ``value_to_probability(q)``).
    `visits` (optional): counts per (L, L, K+1) action or per (L, L) state; the best J is taken
    among the J with a visit, and a state without one gets best 0 and probability -1 (the
    handout's "no data"). Without `visits` every state gets a J. Ties go to the lowest J.

    The pair goes straight into ``compare.compare(game, sol, (best, probability))``;
    :func:`dicejack.compare.learned_from_q` does both steps.
    """
    if not isinstance(game, Game):
        raise CompareError(f"greedy_tables() needs a Game, got {type(game).__name__}")
    values = _float_table("q", q, game.table_shape)[:, :, 1:]
    if visits is None:
        seen_j = np.ones(values.shape, dtype=bool)
    else:
        v = np.asarray(visits)
        if v.shape == game.table_shape:
            seen_j = _float_table("visits", v, game.table_shape)[:, :, 1:] > 0
        elif v.shape == game.shape:
            v = _float_table("visits", v, game.shape)
            seen_j = np.broadcast_to((v > 0)[:, :, None], values.shape)
        else:
            raise CompareError(
                f"visits must have shape {game.table_shape} (per J) or {game.shape} (per state), "
                f"got {v.shape}"
            )
    masked = np.where(seen_j, values, -np.inf)
    idx = np.argmax(masked, axis=2)  # the first maximum: the lowest J
    seen = seen_j.any(axis=2)
    best = np.where(seen, idx + 1, 0).astype(np.int64)
    chosen = np.take_along_axis(values, idx[:, :, None], axis=2)[:, :, 0]
    return best, np.where(seen, chosen, -1.0)


def _array(x: Any) -> Any:
    """Scalars stay scalars; sequences become arrays (so the arithmetic is elementwise)."""
    return x if np.isscalar(x) else np.asarray(x)


def _float_table(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "iuf":
            raise TypeError(raw.dtype)
        a = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise CompareError(f"{name} must be a numeric array (integers or floats, not bool or "
                           f"object) of shape {shape}") from None
    if a.shape != shape:
        raise CompareError(f"{name} must have shape {shape}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise CompareError(f"{name} must hold finite numbers")
    return a
