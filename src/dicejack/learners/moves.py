"""The move bookkeeping every compiled self-play loop shares, written once: drawing a roll total
from one uniform, and adding a finished game's moves to the counts (with their f cache). Both are
inlined into the loops of :mod:`dicejack.learners.handout.kernel` and
:mod:`dicejack.learners.kernels`; their plain twins are :func:`dicejack.game.roll_total` and the
reference loops' count updates."""

from __future__ import annotations

from numba import njit

__all__ = ["roll", "record_counts"]


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

