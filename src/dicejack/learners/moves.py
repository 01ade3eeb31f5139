"""The move bookkeeping every compiled counting loop shares, written once: the buffers of a game's
moves, drawing a roll total from one uniform, keeping a move and ending the game when it reaches
LTarget, and adding a finished game's moves to the counts (with their f cache). All are inlined
into the loops of :mod:`dicejack.learners.handout.kernel` and
:mod:`dicejack.learners.compiled_loops`;
their plain twins are :func:`dicejack.games.handout_rules.roll_total` and the reference loops'
count updates.

The loops work on flat views of their (L, L, K+1) tables (:func:`flat`): a state <a, b> is the
row starting at ``(a * L + b) * (K + 1)`` (:func:`row`), so a table entry is one addition away.
Every index into a table is made unsigned (``np.uint64(i)``, a no-op for the machine): numba
checks each signed index for a negative value to wrap, as Python's ``a[-1]``, and those checks
cost the handout's loop about a fifth of its time. The indices are never negative by
construction (scores and J start at 0 and only grow). The roll's tables are flat likewise
(:func:`roll_table`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["flat", "row", "roll_table", "move_buffers", "roll", "record_counts", "counted_move"]


@njit(cache=True, inline="always")
def flat(table):
    """A C-contiguous table as a 1-D view of the same memory."""
    return table.reshape(table.size)


@njit(cache=True, inline="always")
def row(a, b, low, width):
    """Where state <a, b>'s entries start in a flat (L, L, width) table."""
    return (a * low + b) * width


@njit(cache=True, inline="always")
def roll_table(cdf, guide):
    """The roll's tables, flat: (cdf, its row width, guide, its row width)."""
    return flat(cdf), cdf.shape[1], flat(guide), guide.shape[1]


@njit(cache=True, inline="always")
def roll(table, jj, x):
    """The total of jj dice from one uniform x: the first t with x < cdf[jj, t] (exactly
    :func:`dicejack.games.handout_rules.roll_total`), searched from the guide's start in both
    directions."""
    cdf, width, guide, gsz = table
    start = jj * width
    t = guide[np.uint64(jj * gsz + min(int(x * gsz), gsz - 1))]
    while t > jj and x < cdf[np.uint64(start + t - 1)]:
        t -= 1
    while not (x < cdf[np.uint64(start + t)]):
        t += 1
    return t


@njit(cache=True, inline="always")
def record_counts(win, lose, fcache, rows, js, n, mover_won):
    """The handout's update after a game of n moves (the last mover, index n-1, won when
    `mover_won`), keeping the f cache of every updated cell in step ([row] = T)."""
    for i in range(n):
        at = np.uint64(rows[i])
        cell = np.uint64(rows[i] + js[i])
        if (((n - 1 - i) & 1) == 0) == mover_won:
            win[cell] += 1
        else:
            lose[cell] += 1
        w = win[cell]
        fcache[cell] = float(w) / float(w + lose[cell])
        fcache[at] += 1.0


@njit(cache=True, inline="always")
def move_buffers(low):
    """The buffers of one game's moves (the state's row, J): each player moves at most `low`
    times."""
    cap = 2 * low + 2
    return np.empty(cap, np.int64), np.empty(cap, np.int64)


@njit(cache=True, inline="always")
def counted_move(win, lose, fcache, table, rows, js, n, at, a, jj, x, low, high):
    """The mover at <a, b> (its row `at`) rolls jj dice (total drawn with uniform x); the move
    is kept as the n-th. Returns (moves kept, the mover's new score, 0 if the game goes on, else
    1 when the mover won and 2 when they went past UTarget); a finished game's moves are already
    counted."""
    t = roll(table, jj, x)
    rows[np.uint64(n)] = at
    js[np.uint64(n)] = jj
    n += 1
    new = a + t
    if new < low:
        return n, new, 0
    won = new <= high
    record_counts(win, lose, fcache, rows, js, n, won)
    return n, new, 1 if won else 2
