"""The handout learner's plain-Python reference: the counts' update after a game and the self-play
loop, written from the handout line by line. Tests hold the compiled loop
(:mod:`dicejack.learners.handout.kernel`) to it, table for table; traces
(:mod:`dicejack.learners.handout.trace`) replay games through :func:`play_one_python`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, outcome, roll_total
from dicejack.learners.checks import LearnerError
from dicejack.learners.formulas import estimates, move_probabilities

__all__ = ["record_game", "updated_counts", "play_one_python", "self_play_python"]


# ------------------------------------------------------------------ the counts' update
def record_game(
    win: np.ndarray | list,
    lose: np.ndarray | list,
    moves: Sequence[tuple[int, int, int]],
    winner: str,
) -> None:
    """Update the counts in place after one finished game (the handout's table update).

    moves alternate A, B, A, ... from A; each (X, Y, J) of the winner adds 1 to win[X, Y, J], each
    of the loser 1 to lose[X, Y, J]. Works on numpy tables and on nested lists.
    """
    for won, x, y, j in updated_counts(moves, winner):
        (win if won else lose)[x][y][j] += 1


def updated_counts(
    moves: Sequence[tuple[int, int, int]], winner: str
) -> list[tuple[bool, int, int, int]]:
    """The cells a finished game increments, in move order: (True for WinCount, X, Y, J).

    moves alternate A, B, A, ... from A: the winner's moves count in WinCount, the loser's in
    LoseCount (the handout's update; :func:`record_game` applies it).
    """
    if winner not in ("A", "B"):
        raise LearnerError(f"winner must be 'A' or 'B', got {winner!r}")
    w = 0 if winner == "A" else 1
    return [(i % 2 == w, x, y, j) for i, (x, y, j) in enumerate(moves)]


# ----------------------------------------------------------------- reference self-play
def play_one_python(
    win: list, lose: list, cdf_rows: list[list[float]], low: int, high: int, k: int, m: float,
    rng: np.random.Generator, random_ties: bool, choices: list[tuple[Any, ...]] | None = None,
) -> tuple[list[tuple[int, int, int, int]], str]:
    """One self-play game on nested-list tables (not updated): moves (X, Y, J, total), winner.

    With a `choices` list, each move's computation is appended to it as the fields of a
    :class:`dicejack.learners.handout.trace.Choice`, in order (the numbers below, as they are;
    recording draws nothing and changes nothing).
    """
    moves: list[tuple[int, int, int, int]] = []
    a = b = 0
    mover = 0
    while True:
        wrow = win[a][b]
        lrow = lose[a][b]
        f, total, best = estimates(wrow, lrow, k)
        tie_draw = None
        if random_ties:
            tied = [j for j in range(1, k + 1) if f[j] == f[best]]
            if len(tied) > 1:
                n = len(tied)
                tie_draw = rng.random()
                best = tied[min(int(tie_draw * n), n - 1)]
        p = move_probabilities(f, total, best, k, m)
        # The handout's sampler: u_i cumulative, first i with x < u_i, else K.
        x = rng.random()
        j = k
        u = p[0]
        for i in range(1, k):
            u += p[i]
            if x < u:
                j = i
                break
        roll_draw = rng.random()
        t = roll_total(cdf_rows[j], roll_draw)
        if choices is not None:
            choices.append((
                a, b, tuple(int(v) for v in wrow), tuple(int(v) for v in lrow), tuple(f), total,
                best, tuple(jj for jj in range(1, k + 1) if f[jj] == f[best]), tie_draw,
                tuple(p), x, j, roll_draw,
            ))
        moves.append((a, b, j, t))
        new = a + t
        result = outcome(new, low, high)
        if result != CONTINUES:
            return moves, "AB"[mover if result == MOVER_WINS else 1 - mover]
        a, b = b, new
        mover = 1 - mover


def self_play_python(
    win: np.ndarray, lose: np.ndarray, counters: np.ndarray, cdf: np.ndarray, low: int,
    high: int, m: float, games: int, rng: np.random.Generator, random_ties: bool,
) -> None:
    """The reference loop: same contract as ``kernel.learner_self_play``, plain Python."""
    k = win.shape[2] - 1
    wl, ll = win.tolist(), lose.tolist()
    cdf_rows = cdf.tolist()
    try:
        for _ in range(games):
            moves, winner = play_one_python(wl, ll, cdf_rows, low, high, k, m, rng, random_ties)
            record_game(wl, ll, [mv[:3] for mv in moves], winner)
            counters[0] += 1
            counters[1] += len(moves)
    finally:
        win[...] = wl
        lose[...] = ll

