"""Exact best response to a fixed policy, and the policy's exploitability.

A policy pi (any form :func:`policy_distribution` accepts) plays one seat, a best response the
other; both seats are solved at once by backward induction over anti-diagonals x + y, from the
last to <0,0> (every roll moves to a larger x + y):

* ``v[x, y]``: the best response's win probability when it is to move at <x, y>:
  max over J of sum_t P(J dice total t) * (1 if x + t lands in [low, high]; 0 if it passes high;
  else 1 - w[y, x + t]);
* ``w[x, y]``: pi's win probability when pi is to move at <x, y>: the same sum with 1 - v, averaged
  over J with pi's probabilities.

``exploitability = v[0, 0] - w[0, 0]``: P(best response, moving first, beats pi) + P(best
response, moving second, beats pi) - 1, the sum over both seats of what a best response wins beyond
the game's value; 0 exactly for an optimal policy, at most 1. It is OpenSpiel's ``exploitability``
(NashConv / 2 with returns +1/-1) for the same policy, which the tests hold it to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.game import Game
from dicejack.solver.solution import TIE_TOLERANCE, SolverError, policy_distribution

__all__ = ["BestResponse", "best_response", "exploitability"]


@dataclass(frozen=True, eq=False)
class BestResponse:
    """A best response to `policy` (see the module docstring).

    v, w: (L, L) win probabilities of the mover (best response, policy); best: (L, L) the best
    response's lowest best J; first, second: P(best response beats the policy) moving first and
    moving second; exploitability = first + second - 1.
    """

    game: Game
    v: np.ndarray
    w: np.ndarray
    best: np.ndarray
    first: float
    second: float

    @property
    def exploitability(self) -> float:
        return self.first + self.second - 1.0


def best_response(game: Game, policy: Any, fill: str = "uniform") -> BestResponse:
    """The exact best response to `policy` in both seats (see the module docstring).

    `policy`: (L, L) J per state (0 = no data, played per `fill`), an (L, L, K+1) action
    distribution, a callable (x, y) -> J, or a Solution.
    """
    if not isinstance(game, Game):
        raise SolverError(f"best_response() needs a Game, got {type(game).__name__}")
    dist = policy_distribution(game, policy, fill=fill)[:, :, 1:]  # (L, L, K)
    low, high = game.low, game.high
    probs = game.sum_probability_table[1:]  # (K, T)
    t = np.arange(1, probs.shape[1])
    probs = probs[:, 1:]
    v = np.zeros((low, low))
    w = np.zeros((low, low))
    best = np.zeros((low, low), dtype=np.int64)
    for d in range(2 * low - 2, -1, -1):
        xs = np.arange(max(0, d - low + 1), min(d, low - 1) + 1)
        ys = d - xs
        score = xs[:, None] + t[None, :]  # (n, T)
        wins = (score >= low) & (score <= high)
        inside = score < low
        col = np.where(inside, score, 0)
        row = np.broadcast_to(ys[:, None], score.shape)
        after_v = np.where(wins, 1.0, np.where(inside, 1.0 - w[row, col], 0.0))  # BR to move
        after_w = np.where(wins, 1.0, np.where(inside, 1.0 - v[row, col], 0.0))  # pi to move
        q_v = after_v @ probs.T  # (n, K)
        q_w = after_w @ probs.T
        top = q_v.max(axis=1)
        v[xs, ys] = top
        best[xs, ys] = np.argmax(q_v >= top[:, None] - TIE_TOLERANCE, axis=1) + 1
        w[xs, ys] = (q_w * dist[xs, ys]).sum(axis=1)
    for a in (v, w, best):
        a.setflags(write=False)
    return BestResponse(game, v, w, best, float(v[0, 0]), float(1.0 - w[0, 0]))


def exploitability(game: Game, policy: Any, fill: str = "uniform") -> float:
    """What a best response wins against `policy` beyond the game's value, both seats summed
    (0 for optimal play; OpenSpiel's exploitability). See :func:`best_response`."""
    return best_response(game, policy, fill=fill).exploitability
