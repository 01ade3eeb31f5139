"""The shape a report draws a game in: two score axes for Pig and Piglet, tables otherwise.

Owns reading a policy of a jeopardy game (:class:`dicejack.games.Pig`, :class:`~dicejack.games.
Piglet`) as Neller and Presser draw it: per (my score i, opponent's score j), the turn total k
at which the mover stops rolling (holds, or reaches the goal: ``goal - i`` when it never holds
before), the roll/hold boundary in two dimensions. Any other game has no score axes
(:func:`score_axes` is None) and its report shows tables of states instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games import Pig, Piglet, StateSpace
from dicejack.games.pig import HOLD

__all__ = ["ScoreAxes", "score_axes", "hold_rows", "stop_totals", "mean_by_scores"]


@dataclass(frozen=True, eq=False)
class ScoreAxes:
    """Per state of the game: the mover's banked score i, the opponent's j, the turn total k
    and the mover (-1 at terminal states); goal the game's goal (axes 0..goal-1)."""

    goal: int
    i: np.ndarray
    j: np.ndarray
    k: np.ndarray
    mover: np.ndarray


def score_axes(game: Any, space: StateSpace) -> ScoreAxes | None:
    """Pig's and Piglet's states on their score axes; None for any other game."""
    if not isinstance(game, (Pig, Piglet)):
        return None
    n = space.n_states
    i, j, k = (np.full(n, -1, dtype=np.int64) for _ in range(3))
    mover = np.where(space.terminal, -1, space.player).astype(np.int64)
    for s in np.flatnonzero(~space.terminal).tolist():
        s0, s1, total, me = space.states[s]
        i[s], j[s], k[s] = (s0, s1, total) if me == 0 else (s1, s0, total)
    return ScoreAxes(int(game.goal), i, j, k, mover)


def hold_rows(space: StateSpace) -> np.ndarray:
    """Per state, the row of its hold action (-1 where holding is not a move)."""
    out = np.full(space.n_states, -1, dtype=np.int64)
    rows = np.flatnonzero(np.array([a == HOLD for a in space.actions], dtype=bool))
    out[space.row_state[rows]] = rows
    return out


def stop_totals(axes: ScoreAxes, holds: np.ndarray, known: np.ndarray, seat: int = 0
                ) -> np.ndarray:
    """(goal, goal) float: at [i, j], the smallest turn total k of seat `seat`'s states where
    `holds` (with `known`), else ``goal - i`` (it rolls for the win) when some state there is
    `known`; NaN where none is (no data)."""
    g = axes.goal
    out = np.full((g, g), np.nan)
    mine = (axes.mover == seat) & known
    if not mine.any():
        return out
    ii, jj = axes.i[mine], axes.j[mine]
    out[ii, jj] = g - ii
    stop = mine & holds
    order = np.argsort(-axes.k[stop], kind="stable")  # the smallest k written last wins
    si, sj, sk = axes.i[stop][order], axes.j[stop][order], axes.k[stop][order]
    out[si, sj] = sk
    return out


def mean_by_scores(axes: ScoreAxes, values: np.ndarray) -> np.ndarray:
    """(goal, goal): the mean of `values` (per state, NaN ignored) over the non-terminal
    states at each (i, j), both seats pooled; NaN where there is none."""
    g = axes.goal
    ok = (axes.mover >= 0) & np.isfinite(values)
    flat = axes.i[ok] * g + axes.j[ok]
    total = np.bincount(flat, weights=values[ok], minlength=g * g)
    count = np.bincount(flat, minlength=g * g)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan).reshape(g, g)
