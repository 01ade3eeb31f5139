"""The solver's numba-compiled sweeps: backward induction (P and best J; then Q, the optimal
mask and the gap) and forward propagation of two policies, for large games.

Each kernel writes into arrays its caller preallocates and validates; the checked API is in
:mod:`dicejack.solver`, whose numpy engine (backward.py, evaluation.py) does the same float
operations in the same order, so the tests hold the two to bit-identical results.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _init_ring(low, n_sides, n_dice, tail):
    """Ring buffers buf[y, s % (S+1), j] holding E_j(s) for s = low..low+S (every y alike)."""
    W = n_sides + 1
    buf = np.empty((low, W, n_dice + 1))
    for y in range(low):
        for k in range(W):
            slot = (low + k) % W
            for j in range(n_dice + 1):
                buf[y, slot, j] = tail[k, j]
    return buf


@njit(cache=True)
def backward_values(low, n_sides, n_dice, tail, p_out, best_out, tie_tol, with_best):
    """Optimal values P by backward induction over anti-diagonals x + y, descending.

    For a fixed opponent score y, let E_j(s) be the mover's win probability after rolling j more
    dice from score s (E_0(s) = 1 - P(y, s) below low, 1 inside [low, high], 0 above). Then
    E_j(s) = mean_{d=1..S} E_{j-1}(s + d), so E_j(x) = E_j(x+1) + (E_{j-1}(x+1) - E_{j-1}(x+S+1))/S:
    O(1) per (state, j), independent of n_sides. Q(x, y, j) = E_j(x) for that y.

    A ring buffer per y holds E_j(s) for the S+1 scores above the current one, so the working set
    is low * (S+1) * (K+1) floats. tail[k, j] = E_j(low + k) for k = 0..S (the same for every y).
    Fills p_out (P) and, if with_best, best_out (lowest J within tie_tol of P; the Q pass
    finds it from Q at no cost, and skipping it here saves a third of this pass). Results of a
    diagonal are written out after it, in a loop of their own: the writes stride across rows.
    """
    S = n_sides
    K = n_dice
    W = S + 1
    buf = _init_ring(low, n_sides, n_dice, tail)
    diag_p = np.empty(low)
    diag_best = np.empty(low, dtype=np.int64)
    inv = 1.0 / S
    for d in range(2 * low - 2, -1, -1):
        x0 = max(0, d - low + 1)
        x1 = min(d, low - 1)
        for x in range(x0, x1 + 1):
            y = d - x
            old = x % W  # holds score x + S + 1 until overwritten with score x
            nxt = (x + 1) % W
            best = -np.inf
            # j descending: slot j-1 (score x+S+1) is read before it is overwritten.
            for j in range(K, 0, -1):
                v = buf[y, nxt, j] + (buf[y, nxt, j - 1] - buf[y, old, j - 1]) * inv
                buf[y, old, j] = v
                best = v if v > best else best
            diag_p[x] = best
            if with_best:
                threshold = best - tie_tol
                lowest = K
                for j in range(K, 0, -1):
                    lowest = j if buf[y, old, j] >= threshold else lowest
                diag_best[x] = lowest
        # After the whole diagonal: E_0 of chain x at score y is 1 - P(x, y) (state <x, y> is on
        # this diagonal, and so is the state <y, x> whose j >= 1 values were just written there).
        for x in range(x0, x1 + 1):
            y = d - x
            buf[x, y % W, 0] = 1.0 - diag_p[x]
            p_out[x, y] = diag_p[x]
            if with_best:
                best_out[x, y] = diag_best[x]


@njit(cache=True)
def backward_q(low, n_sides, n_dice, tail, p, q_out, best_out, optimal_out, gap_out, tie_tol):
    """Q, the lowest optimal J, the optimal mask and the gap, given P, row x by row x, in one
    pass over memory.

    With P known every chain y is independent, so all y advance together from x + 1 to x
    (ring[slot, y, j]: one state's K+1 values side by side, as in a row of Q). For each y, the
    chain step, the best value, the optimal mask and the best non-optimal value are computed
    together from registers, branch-free (the comparisons are data: a branch would mispredict);
    then the whole row of the ring is copied into Q's row at once, front to back. The
    floating-point operations per chain are exactly those of `backward_values`, so this Q is
    bit-identical to the one that produced P. P is read as p[y, x] (a column: the lines it
    touches serve the next S+1 rows too), not transposed first.
    """
    S = n_sides
    K = n_dice
    W = S + 1
    K1 = K + 1
    ring = np.empty((W, low, K1))
    for k in range(W):
        slot = (low + k) % W
        for y in range(low):
            for j in range(K1):
                ring[slot, y, j] = tail[k, j]
    inv = 1.0 / S
    for x in range(low - 1, -1, -1):
        old_s = ring[x % W]
        nxt_s = ring[(x + 1) % W]
        opt_row = optimal_out[x]
        gap_row = gap_out[x]
        best_row = best_out[x]
        for y in range(low):
            a = nxt_s[y]
            o = old_s[y]  # holds score x + S + 1 until overwritten with score x
            best = -np.inf
            # j descending: slot j-1 (score x+S+1) is read before it is overwritten.
            for j in range(K, 0, -1):
                v = a[j] + (a[j - 1] - o[j - 1]) * inv
                o[j] = v
                best = v if v > best else best
            o[0] = 1.0 - p[y, x]  # E_0 of chain y at score x: 1 - P(y, x)
            threshold = best - tie_tol
            second = -np.inf
            opt = opt_row[y]
            opt[0] = False
            lowest = K
            for j in range(K, 0, -1):
                v = o[j]
                ok = v >= threshold
                opt[j] = ok
                lowest = j if ok else lowest
                c = -np.inf if ok else v
                second = c if c > second else second
            gap_row[y] = best - second if second > -np.inf else np.nan
            best_row[y] = lowest
        q_flat = q_out[x].reshape(low * K1)
        ring_flat = old_s.reshape(low * K1)
        for i in range(low * K1):
            q_flat[i] = ring_flat[i]
        for y in range(low):
            q_flat[y * K1] = 0.0  # Q(x, y, 0) = 0: J = 0 is never played


@njit(cache=True)
def forward_visits(low, high, n_dice, probs, pi_a, pi_b, mass_a, mass_b):
    """Propagate the probability of each state forward from <0,0> with A to move.

    pi_a / pi_b: (low, low, K+1) action distributions of players A and B. probs[j, t]: P(j dice
    total t). Fills mass_a[x, y] (probability that <x, y> occurs with A to move) and mass_b, and
    returns the probability that A wins. States are visited at most once per game (scores only
    grow), so mass is a visit probability.
    """
    n_sides = (probs.shape[1] - 1) // n_dice
    mass_a[:, :] = 0.0
    mass_b[:, :] = 0.0
    mass_a[0, 0] = 1.0
    a_wins = 0.0
    for d in range(0, 2 * low - 1):
        x0 = max(0, d - low + 1)
        x1 = min(d, low - 1)
        for x in range(x0, x1 + 1):
            y = d - x
            for who in range(2):
                if who == 0:
                    m = mass_a[x, y]
                else:
                    m = mass_b[x, y]
                if m == 0.0:
                    continue
                for j in range(1, n_dice + 1):
                    if who == 0:
                        w = pi_a[x, y, j]
                    else:
                        w = pi_b[x, y, j]
                    if w == 0.0:
                        continue
                    mw = m * w
                    for t in range(j, j * n_sides + 1):
                        pt = probs[j, t]
                        if pt == 0.0:
                            continue
                        s = x + t
                        if s < low:
                            if who == 0:
                                mass_b[y, s] += mw * pt
                            else:
                                mass_a[y, s] += mw * pt
                        elif s <= high:
                            if who == 0:
                                a_wins += mw * pt
                        else:
                            if who == 1:
                                a_wins += mw * pt
    return a_wins
