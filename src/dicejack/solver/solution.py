"""What the solver returns and what it accepts: `Solution`, `SolverError`, the tie tolerance, and
policies in every accepted form turned into one validated action distribution."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Union

import numpy as np

from dicejack.game import DicejackError, Game

TIE_TOLERANCE = 1e-12

Method = Literal["backward", "value-iteration"]
Engine = Literal["numpy", "numba"]
#: A policy: (low, low) ints J in 1..n_dice, a (low, low, n_dice+1) action distribution, or a
#: Solution (its optimal actions, ties split evenly).
Policy = Union[np.ndarray, "Solution"]


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


def policy_distribution(game: Game, policy: Policy) -> np.ndarray:
    """Any accepted policy form as a validated (low, low, K+1) action distribution.

    Integer tables must hold J in 1..n_dice everywhere (a policy must say what to do in every
    state, even unreachable ones); distributions must be non-negative, sum to 1 over J = 1..K,
    and put nothing on J = 0.
    """
    if isinstance(policy, Solution):
        if policy.game != game:
            raise SolverError("the Solution is for a different game")
        return optimal_distribution(policy)
    arr = np.asarray(policy)
    low, k = game.low, game.n_dice
    if arr.shape == (low, low):
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise SolverError("a policy table must hold whole numbers of dice")
            arr = arr.astype(np.int64)
        if arr.min() < 1 or arr.max() > k:
            bad = np.argwhere((arr < 1) | (arr > k))[0]
            raise SolverError(
                f"policy has {arr[tuple(bad)]} dice at <{bad[0]},{bad[1]}>; must be 1..{k}"
            )
        dist = np.zeros(game.table_shape)
        np.put_along_axis(dist, arr[:, :, None], 1.0, axis=2)
        return dist
    if arr.shape == game.table_shape:
        dist = np.asarray(arr, dtype=float)
        if (
            not np.all(np.isfinite(dist))
            or dist.min() < 0
            or np.any(dist[:, :, 0] != 0)
            or not np.allclose(dist.sum(axis=2), 1.0, atol=1e-9)
        ):
            raise SolverError(
                "an action distribution must be non-negative, 0 for J=0, and sum to 1 per state"
            )
        return dist
    raise SolverError(
        f"a policy must have shape {(low, low)} (dice per state) or {game.table_shape} "
        f"(action distribution), got {arr.shape}"
    )
