"""The move bookkeeping every compiled counting loop shares, written once: the buffers of a game's
moves, drawing a roll total from one uniform, keeping a move and ending the game when it reaches
LTarget, and adding a finished game's moves to the counts (with their f cache). All are inlined
into the loops of :mod:`dicejack.learners.handout.kernel` and
:mod:`dicejack.learners.kernels`; their plain twins are :func:`dicejack.game.roll_total` and the
reference loops' count updates."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["move_buffers", "roll", "record_counts", "counted_move"]


@njit(cache=True, inline="always")
def roll(cdf, guide, jj, x):
    """The total of jj dice from one uniform x: the first t with x < cdf[jj, t] (exactly
    :func:`dicejack.game.roll_total`), searched from the guide's start in both directions."""
    gsz = guide.shape[1]
    t = guide[jj, min(int(x * gsz), gsz - 1)]
    while t > jj and x < cdf[jj, t - 1]:
        t -= 1
    while not (x < cdf[jj, t]):
        t += 1
    return t



@njit(cache=True, inline="always")
def record_counts(win, lose, fcache, xs, ys, js, n, mover_won):
    """The handout's update after a game of n moves (the last mover, index n-1, won when
    `mover_won`), keeping the f cache of every updated cell in step ([.., 0] = T)."""
    for i in range(n):
        xi = xs[i]
        yi = ys[i]
        ji = js[i]
        if (((n - 1 - i) & 1) == 0) == mover_won:
            win[xi, yi, ji] += 1
        else:
            lose[xi, yi, ji] += 1
        w = win[xi, yi, ji]
        fcache[xi, yi, ji] = float(w) / float(w + lose[xi, yi, ji])
        fcache[xi, yi, 0] += 1.0


@njit(cache=True, inline="always")
def move_buffers(low):
    """The (X, Y, J) buffers of one game's moves: each player moves at most `low` times."""
    cap = 2 * low + 2
    return np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64)


@njit(cache=True, inline="always")
def counted_move(win, lose, fcache, cdf, guide, xs, ys, js, n, a, b, jj, x, low, high):
    """The mover at <a, b> rolls jj dice (total drawn with uniform x); the move is kept as the
    n-th. Returns (moves kept, the mover's new score, 0 if the game goes on, else 1 when the
    mover won and 2 when they went past UTarget); a finished game's moves are already counted."""
    t = roll(cdf, guide, jj, x)
    xs[n] = a
    ys[n] = b
    js[n] = jj
    n += 1
    new = a + t
    if new < low:
        return n, new, 0
    won = new <= high
    record_counts(win, lose, fcache, xs, ys, js, n, won)
    return n, new, 1 if won else 2
