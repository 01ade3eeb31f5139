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

**A seat pair** (``exploitability(game, first=pi0, second=pi1)``: pi0 plays the first seat, pi1
the second, as two learners trained apart do): OpenSpiel's NashConv / 2 of the joint policy,
P(a best response, moving first, beats pi1) + P(a best response, moving second, beats pi0) - 1,
``best_response(pi1).first + best_response(pi0).second - 1``; :func:`seat_values` gives the two
terms. Measuring each seat's table as if it played both seats is another number (the pair's
exploitability is what OpenSpiel reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.solver.solution import TIE_TOLERANCE, SolverError, policy_distribution

__all__ = ["BestResponse", "SeatValues", "best_response", "seat_values", "exploitability"]


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


def best_response(
    game: Game, policy: Any, fill: str = "uniform", zero_based: bool = False
) -> BestResponse:
    """The exact best response to `policy` in both seats (see the module docstring).

    `policy`: (L, L) J per state (-1 = no data, played per `fill`; `zero_based`: actions
    0..K-1), an (L, L, K+1) action distribution, a callable (x, y) -> J, or a Solution.
    """
    if not isinstance(game, Game):
        raise SolverError(f"best_response() needs a Game, got {type(game).__name__}")
    dist = policy_distribution(game, policy, fill=fill, zero_based=zero_based)[:, :, 1:]
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


@dataclass(frozen=True)
class SeatValues:
    """What a best response wins against a seat pair (see the module docstring).

    first: P(a best response, moving first, beats the second seat's policy); second: P(a best
    response, moving second, beats the first seat's policy). exploitability = first + second - 1
    (OpenSpiel's NashConv / 2); nash_conv = 2 * exploitability (returns +1/-1). For one policy
    playing both seats these are :class:`BestResponse`'s first and second.
    """

    first: float
    second: float

    @property
    def exploitability(self) -> float:
        return self.first + self.second - 1.0

    @property
    def nash_conv(self) -> float:
        return 2.0 * self.exploitability

    def improvements_over(self, p_first_wins: float) -> tuple[float, float]:
        """OpenSpiel's per-player improvements (``nash_conv(..., return_only_nash_conv=False)``'s
        ``player_improvements``, returns +1/-1) given P(first seat beats second seat) of the pair
        (:func:`dicejack.solver.evaluate`)."""
        return (2.0 * (self.first - p_first_wins), 2.0 * (self.second - (1.0 - p_first_wins)))


def seat_values(
    game: Game, first: Any, second: Any, fill: str = "uniform", zero_based: bool = False
) -> SeatValues:
    """What a best response wins against the pair `first` (first seat) and `second` (second
    seat), each in any form :func:`best_response` takes; see :class:`SeatValues`."""
    against_second = best_response(game, second, fill=fill, zero_based=zero_based)
    against_first = best_response(game, first, fill=fill, zero_based=zero_based)
    return SeatValues(against_second.first, against_first.second)


def exploitability(
    game: Game,
    policy: Any = None,
    fill: str = "uniform",
    *,
    first: Any = None,
    second: Any = None,
    zero_based: bool = False,
) -> float:
    """What a best response wins beyond the game's value, both seats summed (0 for optimal play;
    OpenSpiel's exploitability, NashConv / 2). Of one `policy` playing both seats, or of the
    seat pair `first` (the first seat's policy) and `second` (the second's): pass `policy` or
    both `first` and `second`. See :func:`best_response` and :func:`seat_values`."""
    pair = (first is not None, second is not None)
    if policy is not None and any(pair):
        raise SolverError("exploitability() takes one policy (both seats) or first= and "
                          "second= (a seat pair), not both")
    if policy is None:
        if not all(pair):
            raise SolverError("exploitability() needs a policy, or both first= and second= "
                              "(a seat pair)")
        return seat_values(game, first, second, fill=fill, zero_based=zero_based).exploitability
    return best_response(game, policy, fill=fill, zero_based=zero_based).exploitability
