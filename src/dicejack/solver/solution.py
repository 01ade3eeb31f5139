"""What the solver returns and what it accepts: `Solution`, `SolverError`, the tie tolerance, and
policies in every accepted form turned into one validated action distribution."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Union

import numpy as np

from dicejack.game import DicejackError, Game

TIE_TOLERANCE = 1e-12

Method = Literal["backward", "value-iteration"]
Engine = Literal["numpy", "numba"]
#: A policy: (low, low) ints J in 1..n_dice (0 = no data, see `fill`), a (low, low, n_dice+1)
#: action distribution, a callable (x, y) -> J with <x, y> from the mover's view, or a Solution
#: (its optimal actions, ties split evenly).
Policy = Union[np.ndarray, "Solution", Callable[[int, int], Any]]
#: What a policy table's 0 ("no data") cell plays: a uniformly random J (as compare scores it), or
#: an error.
Fill = Literal["uniform", "error"]
FILLS = ("uniform", "error")


class SolverError(DicejackError):
    """The solver was asked for something it cannot do (bad method, game too large, bad policy)."""


@dataclass(frozen=True, eq=False)
class Solution:
    """The exact solution of a game.

    q[x, y, j]: win probability of the mover at <x, y> who rolls j dice then plays optimally
    (column 0 unused, 0). p = max_j q; best: lowest optimal J; optimal: boolean (low, low, K+1)
    mask of optimal J (ties within TIE_TOLERANCE, exact in rational mode); gap: p minus the best
    non-optimal q (NaN where every J is optimal); p00 = p[0, 0], the first player's chance.
    """

    game: Game
    q: np.ndarray
    p: np.ndarray
    best: np.ndarray
    optimal: np.ndarray
    gap: np.ndarray
    p00: float
    method: str
    sweeps: int
    exact: bool = False
    p00_exact: Fraction | None = None
    #: (low, low) object array of Fractions in rational mode, else None.
    p_exact: np.ndarray | None = None

    def optimal_sets(self) -> list[list[list[int]]]:
        """The optimal J of every state as nested lists, rows x, columns y."""
        low = self.game.low
        return [
            [np.flatnonzero(self.optimal[x, y]).tolist() for y in range(low)] for x in range(low)
        ]


def optimal_distribution(sol: Solution) -> np.ndarray:
    """The optimal policy as an action distribution, ties split evenly."""
    mask = sol.optimal.astype(float)
    return mask / mask.sum(axis=2, keepdims=True)


def policy_table(game: Game, policy: Callable[[int, int], Any]) -> np.ndarray:
    """A callable policy (x, y) -> J, asked once in every state, as an (L, L) int64 table."""
    low = game.low
    table = np.zeros((low, low), dtype=np.int64)
    for x in range(low):
        for y in range(low):
            try:
                j = policy(x, y)
            except Exception as exc:  # the caller's code: say where it failed, in one line
                raise SolverError(
                    f"the policy raised {type(exc).__name__} at <{x},{y}>: {exc}"
                ) from exc
            if isinstance(j, (bool, np.bool_)) or not isinstance(j, (int, np.integer)):
                raise SolverError(
                    f"the policy returned {j!r} at <{x},{y}>; it must return a whole number of "
                    f"dice 1..{game.n_dice}"
                )
            table[x, y] = int(j)
    return table


def policy_distribution(game: Game, policy: Policy, fill: Fill = "uniform") -> np.ndarray:
    """Any accepted policy form as a validated (low, low, K+1) action distribution.

    Integer tables hold J in 1..n_dice, or 0 where the learner has no data: `fill` = "uniform"
    plays a uniformly random J there (as :func:`dicejack.compare.compare` scores it), "error"
    refuses it. Distributions must be non-negative, sum to 1 over J = 1..K (or be all 0: no
    data, played per `fill` the same way), and put nothing on J = 0. A callable is asked for its
    J in every state (:func:`policy_table`).
    """
    if fill not in FILLS:
        raise SolverError(f"fill must be 'uniform' or 'error', got {fill!r}")
    if isinstance(policy, Solution):
        if policy.game != game:
            raise SolverError("the Solution is for a different game")
        return optimal_distribution(policy)
    if callable(policy) and not isinstance(policy, np.ndarray):
        policy = policy_table(game, policy)
    arr = np.asarray(policy)
    low, k = game.low, game.n_dice
    if arr.shape == (low, low):
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise SolverError("a policy table must hold whole numbers of dice")
            arr = arr.astype(np.int64)
        lowest = 0 if fill == "uniform" else 1
        if arr.min() < lowest or arr.max() > k:
            bad = np.argwhere((arr < lowest) | (arr > k))[0]
            what = "0 (no data) or 1" if fill == "uniform" else "1"
            raise SolverError(
                f"policy has {arr[tuple(bad)]} dice at <{bad[0]},{bad[1]}>; must be {what}..{k}"
                + ("" if fill == "uniform" else " (fill='error' refuses no-data cells)")
            )
        dist = np.zeros(game.table_shape)
        dist[:, :, 1:] = np.where((arr == 0)[:, :, None], 1.0 / k, 0.0)
        rows, cols = np.nonzero(arr)
        dist[rows, cols, arr[rows, cols]] = 1.0
        return dist
    if arr.shape == game.table_shape:
        dist = np.asarray(arr, dtype=float)
        empty = np.all(dist == 0, axis=2)  # a state without data: played per `fill`
        if (
            not np.all(np.isfinite(dist))
            or dist.min() < 0
            or np.any(dist[:, :, 0] != 0)
            or not np.allclose(dist.sum(axis=2)[~empty], 1.0, atol=1e-9)
        ):
            raise SolverError(
                "an action distribution must be non-negative, 0 for J=0, and sum to 1 per state "
                "(or be all 0: no data)"
            )
        if empty.any():
            if fill == "error":
                x, y = np.argwhere(empty)[0]
                raise SolverError(f"the action distribution is all 0 (no data) at <{x},{y}>; "
                                  "fill='error' refuses no-data states")
            dist = dist.copy()
            dist[empty, 1:] = 1.0 / k
        return dist
    raise SolverError(
        f"a policy must have shape {(low, low)} (dice per state) or {game.table_shape} "
        f"(action distribution), got {arr.shape}"
    )
